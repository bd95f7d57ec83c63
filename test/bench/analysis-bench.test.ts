import { after, test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

import { ensureAnalysisArchive, rolloutsPerRunFor } from "../../bench/analysis-data";
import { runAnalysisBench } from "../../bench/analysis-bench";
import { VENV_PYTHON } from "../../bench/child";
import { loadArchive } from "../../lib/archive/load-archive";

function hasPandas(): boolean {
  try {
    execFileSync(VENV_PYTHON, ["-c", "import importlib.util as u; assert u.find_spec('pandas')"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}
const SKIP = hasPandas() ? false : `${VENV_PYTHON} lacks pandas (pip install -r requirements-bench.txt into .venv)`;
const work = mkdtempSync(path.join(os.tmpdir(), "bench-analysis-test-"));
after(() => rmSync(work, { recursive: true, force: true }));

test("the benchmark archive is a valid frozen archive with the requested updates, and is cached", async () => {
  const a = await ensureAnalysisArchive(200, { workDir: work });
  assert.ok(a.writeSeconds > 0);
  const archive = await loadArchive(a.dir);
  assert.deepEqual(
    archive.runs.map((r) => r.round),
    ["R0", "R1", "R2", "R3"],
  );
  const updates = archive.runs.flatMap((r) => r.rows).filter((row) => row["train/step"] !== undefined && row["train/loss"] !== undefined);
  assert.equal(updates.length, 200);
  // 25 batches per run: 5 rows each, plus an eval row after batches 10 and 20.
  assert.deepEqual(
    archive.runs.map((r) => r.rows.length),
    [127, 127, 127, 127],
  );
  const again = await ensureAnalysisArchive(200, { workDir: work });
  assert.equal(again.writeSeconds, 0);
  assert.equal(again.dir, a.dir);
});

test("rolloutsPerRunFor refuses sizes that do not split into whole batches", () => {
  assert.equal(rolloutsPerRunFor(200, 4), 25);
  assert.throws(() => rolloutsPerRunFor(201, 4), /invalid updates: 201/);
});

test("analysis benchmark, tiny: the library and pandas give the same summaries and CSVs", { skip: SKIP }, async () => {
  const r = await runAnalysisBench({ updates: 200, reps: 1, workDir: work });
  assert.deepEqual(r.differences, []);
  assert.equal(r.reps, 1);
  assert.equal(r.rows, 508);
  assert.ok(r.ratio !== null && r.ratio > 0);
  for (const side of ["ours", "pandas"] as const) {
    assert.deepEqual(Object.keys(r.medianPhases[side]), ["load", "align", "summaries", "export"]);
    assert.ok((r.maxPeakRssKb[side] ?? 0) > 0);
  }
});
