import { test } from "node:test";
import assert from "node:assert/strict";
import * as path from "node:path";

import { openWorkspace } from "../../lib/workspace/open-workspace";
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
});
