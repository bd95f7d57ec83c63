import { after, test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

import { ensureAnalysisArchive, rolloutsPerRunFor } from "../../bench/analysis-data";
import { runAnalysisBench } from "../../bench/analysis-bench";
import { VENV_PYTHON } from "../../bench/child";
import { loadArchive } from "../../lib/archive/load-archive";

function hasModule(name: string): boolean {
  try {
    execFileSync(VENV_PYTHON, ["-c", `import importlib.util as u; assert u.find_spec('${name}')`], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}
const SKIP = hasModule("pandas") ? false : `${VENV_PYTHON} lacks pandas (pip install -r requirements-bench.txt into .venv)`;
const SKIP_DUCKDB = hasModule("duckdb") ? false : `${VENV_PYTHON} lacks duckdb (pip install -r requirements-bench.txt into .venv)`;
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
  const r = await runAnalysisBench({ updates: 200, reps: 1, workDir: work, sides: ["ours", "pandas"] });
  assert.deepEqual(r.differences, []);
  assert.equal(r.reps, 1);
  assert.equal(r.rows, 508);
  assert.ok(r.ratio !== null && r.ratio > 0);
  for (const side of ["ours", "pandas"] as const) {
    assert.deepEqual(Object.keys(r.medianPhases[side] ?? {}), ["load", "align", "summaries", "export"]);
    assert.ok((r.maxPeakRssKb[side] ?? 0) > 0);
  }
  assert.equal(r.medianSeconds.duckdb, undefined, "a side not asked for does not run");
  assert.equal(r.oursOverDuckdb, null);
});

test("analysis benchmark, tiny: DuckDB's per-round means, records and CSVs equal ours", { skip: SKIP_DUCKDB }, async () => {
  const r = await runAnalysisBench({ updates: 400, reps: 1, workDir: work, sides: ["ours", "duckdb"] });
  assert.deepEqual(r.differences, []);
  assert.deepEqual(r.sides, ["ours", "duckdb"]);
  assert.ok(r.oursOverDuckdb != null && r.oursOverDuckdb > 0);
  assert.equal(r.ratio, null, "no pandas side, no pandas ratio");
  assert.deepEqual(Object.keys(r.medianPhases.duckdb ?? {}), ["load", "align", "summaries", "export"]);
  assert.ok((r.maxPeakRssKb.duckdb ?? 0) > 0);
  // Our samples ran with Node's default heap, so they are the default-heap record.
  assert.equal(r.defaultHeap?.ok, true);
  assert.equal(r.defaultHeap?.fromSamples, true);
});

test('DuckDB side: a frozen "NaN" is a logged non-finite value, not missing and not 0', { skip: SKIP_DUCKDB }, async () => {
  const a = await ensureAnalysisArchive(400, { workDir: work });
  const out = mkdtempSync(path.join(work, "duckdb-"));
  execFileSync(VENV_PYTHON, [path.join(__dirname, "../../bench/analysis_duckdb.py"), a.dir, out], { env: { ...process.env, TZ: "UTC" } });
  const summary = JSON.parse(readFileSync(path.join(out, "summary.json"), "utf8"));
  // Counted from the frozen lines themselves: update rows whose grad_norm is the string "NaN".
  const archive = await loadArchive(a.dir);
  const updates = archive.runs.flatMap((run) => run.rows).filter((row) => row["train/step"] !== undefined && row["train/loss"] !== undefined);
  const nan = updates.filter((row) => Number.isNaN(row["train/grad_norm"])).length;
  assert.ok(nan >= 1, "the archive holds a NaN grad_norm to count");
  const [mean, n, nonFinite, missing] = summary.policy.all.gradNorm;
  assert.equal(nonFinite, nan);
  assert.equal(n + nonFinite + missing, 400);
  assert.equal(n, updates.filter((row) => Number.isFinite(row["train/grad_norm"])).length);
  assert.ok(Number.isFinite(mean));
  assert.equal(summary.records.updates, 400);
  assert.equal(summary.n, 2);
  assert.equal(summary.records.issues, undefined, "the DuckDB side does not recount coverage issues");
});
