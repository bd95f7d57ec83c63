/**
 * Aligns the history rows of consecutive slime runs (rounds) on slime's explicit step keys: optimizer
 * updates on train/step, rollout batches on rollout/step, evals on eval/step, each run with its own N
 * and rollout/step reading (infer-axis-mapping.ts). Rows a later logging replaced are superseded
 * (supersede.ts) and listed, never counted. `_step` orders one writer's rows and names rows in
 * messages; it is never an axis. No interpolation, no forward fill: a value not logged stays absent.
 *
 * The steps: scan (classify rows), decide each run's axes and mark superseded rows (runRowsOf), one
 * RunPass per run (records, rollout merge, critic merge), superseded records and notes, coverage.
 */
import type { OwnRows } from "../../registry/framework-profile";
import type { AxisAlignment, CoverageIssue, RunHistory, SupersededRecords } from "../../types";
import type { AlignRunsOptions } from "../align-options";
import { keyRowsOf } from "../key-rows";
import { noRows } from "../row-reader";
import { releaseRows } from "../../values/packed-run";
import { runMetaOf } from "../run-meta";
import { checkCoverage } from "./coverage";
import { buildRunAxes, decideRunAxes, firstRolloutOf, mappingFromRunAxes } from "./infer-axis-mapping";
import { RunPass } from "./run-pass";
import { scanRun, type RunScan } from "./scan-runs";
import { type RunRows, SlimeRecords } from "./slime-records";
import { runNotes, supersededRecords } from "./superseded-records";
import { LIVE, rowRollouts, supersedeAcrossRuns, supersedeWithinRun } from "./supersede";

/** Issue kinds whose step is a train/step (the others carry a rollout id). */
const UPDATE_AXIS_KINDS = new Set<CoverageIssue["kind"]>(["missing-update", "duplicate-update", "update-without-rollout"]);

/** alignRuns for slime runs (rollout/step, train/step); `conceptKeys` are counted per run into `keyRows`. */
export function alignSlimeRuns(runs: RunHistory[], opts: AlignRunsOptions, conceptKeys: readonly string[], ownRows: readonly OwnRows[] = []): AxisAlignment {
  const reporter = opts.reporter;
  const scans = runs.map((run, i) => {
    const s = scanRun(run, ownRows);
    reporter?.progress?.("classify rows", i + 1, runs.length);
    return s;
  });
  const per = runRowsOf(scans, opts);
  const mapping = mappingFromRunAxes(per.map((p) => p.axis));
  const runsMeta = runs.map((r, i) => runMetaOf(r, scans[i].codes.length));
  const out = new SlimeRecords(opts.compact === true);
  const superseded: SupersededRecords[] = [];
  per.forEach((rr, ri) => {
    const from = { updates: out.updates.length, rollouts: out.rollouts.length };
    new RunPass(rr, out, ownRows, opts.memo?.of(rr.scan.run.runId, rr.scan.run.round) ?? null).collect();
    opts.onRunRecords?.({ runId: rr.scan.run.runId, updates: out.updates, updatesFrom: from.updates, rollouts: out.rollouts, rolloutsFrom: from.rollouts });
    out.keyRows.push(...keyRowsOf(rr.scan.run, rr.scan.reader, rr.by, conceptKeys));
    superseded.push(...supersededRecords(per, ri));
    if (opts.releaseRows) {
      // The reader holds the rows' values (packed rows' arena chunks): let them go with the rows, and
      // the run's per-row arrays, which nothing reads once its records, key rows and superseded rows are made.
      rr.scan.reader = noRows();
      releaseRows(rr.scan.run);
      releaseRowArrays(rr);
    }
    reporter?.progress?.("align runs", ri + 1, runs.length);
  });
  runNotes(per, superseded, out.notes);
  const cov = checkCoverage(mapping, runsMeta, out.rollouts, out.updates, out.issues, out.noUpdatesExpected);
  cov.coverage.forEach((c, i) => (c.rowKinds = { ...scans[i].counts }));
  const sorted = sortIssues(out.issues.concat(cov.issues), runs, per);
  for (const note of out.notes) reporter?.info?.(note.message);
  if (sorted.length > 0) {
    const nRuns = new Set(sorted.map((x) => x.runId)).size;
    reporter?.warn?.(`alignment found ${sorted.length} issue(s) in ${nRuns} run(s), first: ${sorted[0].message} (see aligned.issues)`);
  }
  const { updates, rollouts, evals, criticOnly, notes, keyRows } = out;
  return {
    mapping,
    rounds: runs.map((r) => r.round),
    runs: runsMeta,
    rollouts,
    updates,
    evals,
    superseded,
    criticOnly,
    coverage: cov.coverage,
    issues: sorted,
    notes,
    keyRows,
  };
}

/** Empties a run's per-row arrays (about 35 bytes a row: 22 MB per run at 10^6 updates). */
function releaseRowArrays(rr: RunRows): void {
  const { scan } = rr;
  scan.codes = new Uint8Array(0);
  scan.steps = new Float64Array(0);
  scan.historySteps = new Float64Array(0);
  scan.families = new Uint8Array(0);
  scan.own = null;
  scan.sorted = { trainSteps: null, rolloutIds: null };
  rr.rollouts = new Float64Array(0);
  rr.by = new Int32Array(0);
}

/** Decides each run's axes, marks superseded rows within and across runs, and numbers display updates. */
function runRowsOf(scans: RunScan[], opts: AlignRunsOptions): RunRows[] {
  const decisions = decideRunAxes(scans, { n: opts.n, alwaysUseTrainStep: opts.alwaysUseTrainStep });
  const ids = scans.map((s, i) => rowRollouts(s, decisions[i].n, decisions[i].alwaysUseTrainStep));
  const by = scans.map((s) => new Int32Array(s.codes.length).fill(LIVE));
  const restarts = scans.map((s, i) => supersedeWithinRun(s, ids[i], decisions[i].n, by[i], i));
  const firsts = scans.map((s, i) => firstRolloutOf(s, decisions[i]));
  supersedeAcrossRuns(ids, firsts, by);
  const axes = buildRunAxes(decisions, firsts);
  return scans.map((scan, i) => ({ scan, axis: axes[i], rollouts: ids[i], by: by[i], restarts: restarts[i] }));
}

/** Run order, then the rollout the issue concerns (issues not tied to a step first); ties keep creation order. */
function sortIssues(all: CoverageIssue[], runs: RunHistory[], per: RunRows[]): CoverageIssue[] {
  const runIndex = new Map(runs.map((r, i) => [r.runId, i] as const));
  const at = all.map((x) => {
    if (x.step === null) return -Infinity;
    if (!UPDATE_AXIS_KINDS.has(x.kind)) return x.step;
    return Math.floor(x.step / per[runIndex.get(x.runId)!].axis.n);
  });
  const order = all.map((_, i) => i);
  order.sort((a, b) => {
    const d = runIndex.get(all[a].runId)! - runIndex.get(all[b].runId)!;
    if (d !== 0) return d;
    if (at[a] !== at[b]) return at[a] < at[b] ? -1 : 1;
    return a - b;
  });
  return order.map((i) => all[i]);
}
