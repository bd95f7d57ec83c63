import { test } from "node:test";
import assert from "node:assert/strict";
import * as path from "node:path";

import { openWorkspace } from "../../lib/workspace/open-workspace";
import { isView, keysOf } from "../../lib/values/compact-values";
import { workspaceParams } from "../../lib/workspace/workspace-params";

const ROOT = path.resolve(__dirname, "../..");

test("openWorkspace keeps the rows by default; releaseRows empties them and leaves the alignment as it was", async () => {
  const params = workspaceParams({}, ROOT);
  const kept = await openWorkspace(params);
  const released = await openWorkspace(params, {}, { releaseRows: true });
  assert.equal(kept.rowsReleased, false);
  assert.deepEqual(
    kept.archive.runs.map((r) => r.rows.length),
    kept.archive.manifest.runs.map((r) => r.historyEvents),
  );
  assert.ok(kept.archive.runs.every((r) => r.rows.length > 0));
  assert.equal(released.rowsReleased, true);
  assert.deepEqual(
    released.archive.runs.map((r) => r.rows.length),
    [0, 0, 0, 0],
  );
  assert.deepEqual(released.aligned, kept.aligned);
  assert.equal(released.mappingHolds, kept.mappingHolds);
  const compact = await openWorkspace(params, {}, { compact: true, releaseRows: true });
  assert.ok(isView(compact.aligned.updates[0].values));
  assert.equal(compact.aligned.updates.length, kept.aligned.updates.length);
  kept.aligned.updates.forEach((u, i) => {
    const c = compact.aligned.updates[i].values;
    assert.deepEqual(keysOf(c), Object.keys(u.values));
    for (const k of Object.keys(u.values)) assert.ok(Object.is(c[k], u.values[k]), `update ${i} ${k}`);
  });
});
