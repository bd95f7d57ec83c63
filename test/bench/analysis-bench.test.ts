import { after, test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

import { ensureAnalysisArchive, rolloutsPerRunFor } from "../../bench/analysis-data";
import { runAnalysisBench } from "../../bench/analysis-bench";
import { runChild, tsxCommand, VENV_PYTHON } from "../../bench/child";
import { diffJson } from "../../bench/summary-json";
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

test("analysis benchmark, tiny: the export alone (npm run export's job) writes the full job's CSVs byte for byte", async () => {
  const r = await runAnalysisBench({ updates: 200, reps: 1, workDir: work, sides: ["ours", "ours-export"] });
  assert.deepEqual(r.differences, []);
  assert.deepEqual(r.sides, ["ours", "ours-export"]);
  assert.ok((r.medianSeconds["ours-export"] ?? 0) > 0);
  assert.ok((r.maxPeakRssKb["ours-export"] ?? 0) > 0);
  assert.deepEqual(Object.keys(r.medianPhases["ours-export"] ?? {}), ["load", "align", "summaries", "export"]);
  assert.equal(r.oursExportOverDuckdbMinimal, null, "no minimal DuckDB side, no ratio");
});

test("a size measured with a raised heap also runs ours once with Node's default heap, outside the samples", async () => {
  const r = await runAnalysisBench({
    updates: 200,
    reps: 1,
    workDir: work,
    sides: ["ours"],
    nodeOptions: ["--max-old-space-size=2048"],
    defaultHeapRunTimeoutSeconds: 120,
  });
  assert.equal(r.defaultHeap?.ok, true);
  assert.equal(r.defaultHeap?.fromSamples, false);
  assert.ok((r.defaultHeap?.peakRssKb ?? 0) > 0);
  assert.equal(r.samples.length, 1, "the default-heap run is not a timed sample");
  assert.deepEqual(r.oursNodeOptions, ["--max-old-space-size=2048"]);
  assert.equal(r.ratio, null);
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
  assert.equal(summary.records.issues, 0);
});

/** A copy of the 400-update archive with R1's lines edited, its manifest entry made to match. */
async function editedArchive(name: string, edit: (lines: string[]) => void): Promise<string> {
  const a = await ensureAnalysisArchive(400, { workDir: work });
  const dir = path.join(work, name);
  rmSync(dir, { recursive: true, force: true });
  cpSync(a.dir, dir, { recursive: true });
  const manifestPath = path.join(dir, "manifest.json");
  const manifest = JSON.parse(readFileSync(manifestPath, "utf8"));
  const run = manifest.runs[1];
  const lines = readFileSync(path.join(dir, run.file), "utf8").trimEnd().split("\n");
  edit(lines);
  const text = lines.map((l, i) => l.replace(/"_step":\d+/, `"_step":${i}`)).join("\n") + "\n";
  writeFileSync(path.join(dir, run.file), text);
  Object.assign(run, {
    sha256: createHash("sha256").update(text).digest("hex"),
    bytes: Buffer.byteLength(text),
    historyEvents: lines.length,
    lastStep: lines.length - 1,
  });
  writeFileSync(manifestPath, JSON.stringify(manifest, null, 2) + "\n");
  return dir;
}

/** summary.json of one side run on `dir`. */
async function sideSummary(side: "ours" | "pandas" | "duckdb", dir: string): Promise<Record<string, any>> {
  const out = mkdtempSync(path.join(work, `${side}-`));
  const env = { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? work, TZ: "UTC" };
  const [cmd, args] =
    side === "ours" ? tsxCommand("bench/analysis-ours.ts", [dir, out]) : [VENV_PYTHON, [path.join(__dirname, `../../bench/analysis_${side}.py`), dir, out]];
  await runChild(cmd, args, env);
  return JSON.parse(readFileSync(path.join(out, "summary.json"), "utf8"));
}

test("DuckDB side: an unclassified row is one coverage issue, as ours counts it", { skip: SKIP_DUCKDB }, async () => {
  const dir = await editedArchive("unclassified", (lines) => lines.push('{"_step":0,"custom/thing":1}'));
  const duck = await sideSummary("duckdb", dir);
  assert.deepEqual(diffJson(await sideSummary("ours", dir), duck, 1e-9), []);
  assert.equal(duck.records.issues, 1);
});

test("DuckDB side: a batch's rollout row logged twice with another value counts as pandas counts it", { skip: SKIP_DUCKDB || SKIP }, async () => {
  // A second rollout-manager row of the same batch with another rollout_time: analysis_pandas.py (and
  // so this side) counts a conflict and a duplicate slot and drops the value; the library takes the
  // later row as superseding the earlier one (lib/align/slime/supersede.ts), so ours is not the reference here.
  const dir = await editedArchive("relogged", (lines) => {
    const manager = lines.findIndex((l) => l.includes('"perf/rollout_time"'));
    lines.splice(manager + 1, 0, lines[manager].replace(/"perf\/rollout_time":[^,}]+/, '"perf/rollout_time":1.5'));
  });
  const duck = await sideSummary("duckdb", dir);
  assert.deepEqual(diffJson(await sideSummary("pandas", dir), duck, 1e-9), []);
  assert.equal(duck.records.issues, 2);
  // R1's rollout_time mean covers one batch fewer: the conflicting value is missing, not averaged.
  assert.deepEqual(duck.rollout.R1.rolloutTime.slice(1), [49, 0, 1]);
});

test("minimal DuckDB side: DUCKDB_MEMORY_LIMIT bounds DuckDB, is named in its report, changes no byte; a bad one is refused", {
  skip: SKIP_DUCKDB,
}, async () => {
  const a = await ensureAnalysisArchive(400, { workDir: work });
  const script = path.join(__dirname, "../../bench/analysis_duckdb_minimal.py");
  const run = async (limit: string | undefined, out: string) => {
    const env = { PATH: process.env.PATH ?? "", HOME: work, ...(limit === undefined ? {} : { DUCKDB_MEMORY_LIMIT: limit }) };
    const { report } = await runChild<{ memoryLimit?: string; updates: number }>(VENV_PYTHON, [script, a.dir, out], env);
    return report;
  };
  const free = await run(undefined, path.join(work, "minimal-free"));
  const bound = await run("256MB", path.join(work, "minimal-256"));
  assert.equal(free.memoryLimit, undefined);
  assert.equal(bound.memoryLimit, "256MB");
  assert.equal(bound.updates, 400);
  for (const f of ["rollouts.csv", "updates.csv"]) {
    assert.equal(readFileSync(path.join(work, "minimal-256", "exports", f), "utf8"), readFileSync(path.join(work, "minimal-free", "exports", f), "utf8"));
  }
  // The bound is DuckDB's own: far too little makes it fail, as it would not if the variable were ignored.
  await assert.rejects(run("16MB", path.join(work, "minimal-16")), /Out of Memory Error/);
  await assert.rejects(
    run("8x", path.join(work, "minimal-bad")),
    /invalid DUCKDB_MEMORY_LIMIT: '8x' \(a number and KB, MB, GB, KiB, MiB or GiB, e\.g\. 800MB\)/,
  );
});
