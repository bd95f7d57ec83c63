import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readLocalLogFiles } from "../../lib/workspace/local-log-files";

test("reads the logs that exist, lists runs without one, and parses nan and np.float64", () => {
  const dir = mkdtempSync(join(tmpdir(), "local-logs-"));
  try {
    writeFileSync(
      join(dir, "a.log"),
      [
        "[2026-01-12 08:30:00] train.py:28 - starting",
        "(MegatronTrainRayActor pid=7) [2026-01-12 08:31:00] model.py:500 - step 2: {'train/loss': np.float64(0.5), 'train/kl': nan, 'train/step': 2}",
        "step 3: {'train/loss': ",
        "",
      ].join("\n"),
    );
    const r = readLocalLogFiles(dir, ["a", "b"]);
    assert.deepEqual(r.missing, ["b"]);
    const recs = r.records.get("a")!;
    assert.equal(recs.length, 1);
    assert.equal(recs[0].kind, "step");
    assert.equal(recs[0].id, 2);
    assert.equal(recs[0].values["train/loss"], 0.5);
    assert.ok(Number.isNaN(recs[0].values["train/kl"]));
    assert.equal(r.stats[0].stats.records, 1);
    // The malformed line travels with the stats, for the cross-check verdict.
    assert.deepEqual(
      r.stats[0].malformed.map((m) => [m.line, m.message]),
      [[3, "step 3"]],
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
