/**
 * Coverage of aligned runs: which rollouts and updates each run (round) owns, and every way that
 * differs from "contiguous, each exactly once, rounds continuing without gap or overlap".
 * Issues are reported, never repaired. Issue messages name run, round and step themselves.
 */
import type { AlignedRuns, AxisMapping, CoverageIssue, RolloutRecord, RunAxis, RunCoverage, UpdateRecord } from "../types";
import { runUpdateNumber } from "./axis-formulas";

/** Coverage summary and coverage issues of a set of aligned records. */
export interface CoverageResult {
  coverage: RunCoverage[];
  issues: CoverageIssue[];
}

type RunMeta = AlignedRuns["runs"][number];

/**
 * Checks the coverage of rollout and update records, run by run in round order. Issue kinds:
 * duplicate-update, duplicate-rollout, missing-rollout (holes inside a run, or a run without any
 * rollout or update), missing-update (expected slots rN..rN+N-1 of a rollout the run owns),
 * update-without-rollout (updates of a rollout that has no rollout row), gap-between-rounds,
 * overlap-between-rounds. `priorIssues` (from alignment) only count toward each run's `ok` flag.
 * `noUpdatesExpected[i]` lists rollouts of run i that are not expected to have actor updates (a
 * crashed run's trailing rollout, critic-only rollouts). Each run uses its own N and display formula
 * (mapping.runs; the mapping's N for runs it does not list).
 */
export function checkCoverage(
  mapping: AxisMapping,
  runs: RunMeta[],
  rollouts: RolloutRecord[],
  updates: UpdateRecord[],
  priorIssues: CoverageIssue[] = [],
  noUpdatesExpected: Set<number>[] = [],
): CoverageResult {
  const axes = new Map((mapping.runs ?? []).map((a) => [a.runId, a] as const));
  const index = new Map<string, number>();
  runs.forEach((r, i) => index.set(r.runId, i));
  const rolloutIds = groupSteps(runs.length, index, rollouts, (r) => r.rollout);
  const trainSteps = groupSteps(runs.length, index, updates, (u) => u.trainStep);

  const issues: CoverageIssue[] = [];
  const coverage: RunCoverage[] = [];
  let maxPrev = -Infinity; // highest rollout owned by an earlier round
  let maxPrevRun: RunMeta | null = null;

  for (let i = 0; i < runs.length; i++) {
    const run = runs[i];
    const axis: Pick<RunAxis, "n" | "firstRollout" | "updateBase"> = axes.get(run.runId) ?? { n: mapping.n, firstRollout: mapping.r0, updateBase: 0 };
    const n = axis.n;
    const updateNumber = (t: number) => runUpdateNumber(axis, t);
    const skip = noUpdatesExpected[i];
    const at = `run ${run.runId} (round ${run.round})`;
    const add = (kind: CoverageIssue["kind"], step: number | null, message: string) =>
      issues.push({ runId: run.runId, round: run.round, kind, step, key: null, message: `${at}: ${message}` });

    const R = rolloutIds[i].sort();
    const T = trainSteps[i].sort();
    const Ru = dedupe(R, (v, count) => add("duplicate-rollout", v, `rollout ${v} has ${count} rollout records`));
    const U = dedupe(T, (v, count) => add("duplicate-update", v, `train/step ${v} (update ${updateNumber(v)}) has ${count} optimizer-update rows`));

    // Rollouts the run owns: those with rollout rows and those its updates belong to.
    const S = mergeUnique(Ru, U, n);
    if (S.length === 0) add("missing-rollout", null, "has no rollout rows and no optimizer-update rows");
    for (let k = 1; k < S.length; k++) {
      if (S[k] > S[k - 1] + 1) {
        const a = S[k - 1] + 1;
        const b = S[k] - 1;
        add("missing-rollout", a, `${range("rollout", a, b)} missing (no rollout row and no update) between rollouts ${S[k - 1]} and ${S[k]}`);
      }
    }

    let j = 0; // pointer into U
    let q = 0; // pointer into Ru
    for (let k = 0; k < S.length; k++) {
      const r = S[k];
      while (q < Ru.length && Ru[q] < r) q++;
      const hasRow = q < Ru.length && Ru[q] === r;
      const lo = r * n;
      if (skip?.has(r) && !(j < U.length && Math.floor(U[j] / n) === r)) continue;
      let present = 0;
      let firstPresent = NaN;
      let missFrom = NaN;
      // t runs one past the block so that a trailing run of missing slots is closed too.
      for (let t = lo; t <= lo + n; t++) {
        const isPresent = t < lo + n && j < U.length && U[j] === t;
        if (isPresent) {
          j++;
          present++;
          if (firstPresent !== firstPresent) firstPresent = t;
        }
        if ((isPresent || t === lo + n) && missFrom === missFrom) {
          const to = t - 1;
          add(
            "missing-update",
            missFrom,
            `rollout ${r} lacks ${range("train/step", missFrom, to)} (${range("update", updateNumber(missFrom), updateNumber(to))})`,
          );
          missFrom = NaN;
        } else if (!isPresent && t < lo + n && missFrom !== missFrom) {
          missFrom = t;
        }
      }
      if (!hasRow && present > 0) {
        add(
          "update-without-rollout",
          firstPresent,
          `rollout ${r} has ${present} update(s) from train/step ${firstPresent} (update ${updateNumber(firstPresent)}) but no rollout row`,
        );
      }
    }

    if (S.length > 0) {
      const first = S[0];
      const last = S[S.length - 1];
      if (maxPrevRun !== null) {
        const prev = `round ${maxPrevRun.round} (run ${maxPrevRun.runId})`;
        if (first > maxPrev + 1) {
          add(
            "gap-between-rounds",
            maxPrev + 1,
            `${range("rollout", maxPrev + 1, first - 1)} missing between ${prev}, which ends at rollout ${maxPrev}, and this round, which starts at rollout ${first}`,
          );
        } else if (first <= maxPrev) {
          let count = 0;
          while (count < S.length && S[count] <= maxPrev) count++;
          add(
            "overlap-between-rounds",
            first,
            `starts at rollout ${first}, but ${prev} already reaches rollout ${maxPrev}: ${count} rollout(s) of this run (${S[0]}..${S[count - 1]}) are owned twice`,
          );
        }
      }
      if (last > maxPrev) {
        maxPrev = last;
        maxPrevRun = run;
      }
    }

    coverage.push({
      runId: run.runId,
      round: run.round,
      historyEvents: run.historyEvents,
      rollouts: Ru.length,
      updates: U.length,
      firstRollout: Ru.length ? Ru[0] : null,
      lastRollout: Ru.length ? Ru[Ru.length - 1] : null,
      firstUpdate: U.length ? updateNumber(U[0]) : null,
      lastUpdate: U.length ? updateNumber(U[U.length - 1]) : null,
      ok: true,
    });
  }

  const bad = new Set<string>();
  for (const x of priorIssues) bad.add(x.runId);
  for (const x of issues) bad.add(x.runId);
  for (const c of coverage) c.ok = !bad.has(c.runId);
  return { coverage, issues };
}

/** One plain row per run of the coverage table shown in notebooks. */
export interface CoverageTableRow {
  round: string;
  runId: string;
  historyEvents: number;
  rollouts: number;
  /** "1..20", or "-" when the run has none. */
  rolloutRange: string;
  updates: number;
  /** Display update numbers, "1..40", or "-". */
  updateRange: string;
  /** Eval rows and critic-update rows (kept out of updates), when known from alignment. */
  evalRows: number | null;
  criticRows: number | null;
  issues: number;
  ok: boolean;
}

/** Coverage per run as plain rows for display (ranges as text, issue counts). */
export function coverageTable(aligned: AlignedRuns): CoverageTableRow[] {
  const counts = new Map<string, number>();
  for (const x of aligned.issues) counts.set(x.runId, (counts.get(x.runId) ?? 0) + 1);
  return aligned.coverage.map((c) => ({
    round: c.round,
    runId: c.runId,
    historyEvents: c.historyEvents,
    rollouts: c.rollouts,
    rolloutRange: c.firstRollout === null ? "-" : `${c.firstRollout}..${c.lastRollout}`,
    updates: c.updates,
    updateRange: c.firstUpdate === null ? "-" : `${c.firstUpdate}..${c.lastUpdate}`,
    evalRows: c.rowKinds ? c.rowKinds.eval : null,
    criticRows: c.rowKinds ? c.rowKinds["critic-update"] : null,
    issues: counts.get(c.runId) ?? 0,
    ok: c.ok,
  }));
}

/**
 * Issue kinds after which the axis mapping does not hold for the run (an update or rollout whose
 * place is unknown or doubled): round tables and exports built on it are refused unless the user
 * asks for them anyway. Gaps, holes and unclassified rows are reported but leave the mapping intact.
 */
export const BLOCKING_ISSUE_KINDS: ReadonlySet<CoverageIssue["kind"]> = new Set<CoverageIssue["kind"]>([
  "missing-update",
  "duplicate-update",
  "update-without-rollout",
  "duplicate-rollout",
  "conflicting-values",
  "superseding-dominates",
]);

/** The issues after which the axis mapping does not hold (see BLOCKING_ISSUE_KINDS), in issue order. */
export function blockingIssues(aligned: Pick<AlignedRuns, "issues">): CoverageIssue[] {
  return aligned.issues.filter((x) => BLOCKING_ISSUE_KINDS.has(x.kind));
}

/** Options of {@link assertMappingHolds}. */
export interface AssertMappingHoldsOptions {
  /** Build the numbers anyway (the caller prints the issues). Default false. */
  allowIssues?: boolean;
  /** What is being refused, for the message, e.g. "export". Default "round tables". */
  what?: string;
}

/**
 * Throws one message naming the first blocking issue's run, rollout and key when the axis mapping
 * does not hold for some run (numbers people cite are not built on a guess), unless allowIssues.
 */
export function assertMappingHolds(aligned: Pick<AlignedRuns, "issues">, opts: AssertMappingHoldsOptions = {}): void {
  if (opts.allowIssues) return;
  const bad = blockingIssues(aligned);
  if (bad.length === 0) return;
  const x = bad[0];
  const where = `run ${x.runId}, round ${x.round}${x.step === null ? "" : `, ${UPDATE_STEP_KINDS.has(x.kind) ? "train/step" : "rollout"} ${x.step}`}${x.key === null ? "" : `, key ${x.key}`}`;
  const more = bad.length > 1 ? ` (and ${bad.length - 1} more blocking issue(s); see notebook 02 or aligned.issues)` : "";
  throw new Error(
    `refusing ${opts.what ?? "round tables"}: the axis mapping does not hold for ${where}: ${x.kind}: ${x.message}${more}. ` +
      `Numbers built on it could be wrong; pass allowIssues (CLI: --allow-issues) to build them anyway`,
  );
}

const UPDATE_STEP_KINDS = new Set<CoverageIssue["kind"]>(["missing-update", "duplicate-update", "update-without-rollout"]);

/** Options of {@link assertAligned}. */
export interface AssertAlignedOptions {
  /** How many issues the error lists. Default 5. */
  max?: number;
}

/**
 * Throws one error listing the first issues (run, round, step, kind) when alignment found any.
 * @example assertAligned(alignRuns(archive.runs)) // passes silently for clean data
 */
export function assertAligned(aligned: AlignedRuns, opts: AssertAlignedOptions = {}): void {
  const max = opts.max ?? 5;
  if (!Number.isInteger(max) || max < 1) throw new Error(`invalid max: ${opts.max}`);
  const issues = aligned.issues;
  if (issues.length === 0) return;
  const runs = new Set(issues.map((x) => x.runId)).size;
  const lines = issues.slice(0, max).map((x) => {
    const step = x.step === null ? "" : `, step ${x.step}`;
    const key = x.key === null ? "" : `, key ${x.key}`;
    return `  - ${x.kind} (run ${x.runId}, round ${x.round}${step}${key}): ${x.message}`;
  });
  const more = issues.length > max ? `\n  ... and ${issues.length - max} more (see aligned.issues)` : "";
  throw new Error(`alignment found ${issues.length} issue(s) in ${runs} run(s):\n${lines.join("\n")}${more}`);
}

function range(what: string, a: number, b: number): string {
  return a === b ? `${what} ${a}` : `${what}s ${a}..${b}`;
}

function groupSteps<T extends { runId: string }>(nRuns: number, index: Map<string, number>, records: T[], step: (r: T) => number): Float64Array[] {
  // Run index per record; records of one run are usually adjacent, so the last lookup is reused.
  const at = new Int32Array(records.length);
  const counts = new Array<number>(nRuns).fill(0);
  let lastId: string | null = null;
  let last = -1;
  for (let k = 0; k < records.length; k++) {
    const id = records[k].runId;
    if (id !== lastId) {
      const i = index.get(id);
      if (i === undefined) throw new Error(`invalid records: run ${id} is not among the aligned runs`);
      lastId = id;
      last = i;
    }
    at[k] = last;
    counts[last]++;
  }
  const out = counts.map((c) => new Float64Array(c));
  const fill = new Array<number>(nRuns).fill(0);
  for (let k = 0; k < records.length; k++) out[at[k]][fill[at[k]]++] = step(records[k]);
  return out;
}

/** Distinct values of a sorted array; calls `dup` once per value present more than once. */
function dedupe(sorted: Float64Array, dup: (value: number, count: number) => void): Float64Array {
  const out = new Float64Array(sorted.length);
  let n = 0;
  let i = 0;
  while (i < sorted.length) {
    let k = i + 1;
    while (k < sorted.length && sorted[k] === sorted[i]) k++;
    if (k - i > 1) dup(sorted[i], k - i);
    out[n++] = sorted[i];
    i = k;
  }
  return out.subarray(0, n);
}

/** Sorted union of rollout ids and the rollouts floor(t/N) of sorted distinct train steps. */
function mergeUnique(rollouts: Float64Array, steps: Float64Array, n: number): number[] {
  const out: number[] = [];
  let i = 0;
  let j = 0;
  while (i < rollouts.length || j < steps.length) {
    const a = i < rollouts.length ? rollouts[i] : Infinity;
    const b = j < steps.length ? Math.floor(steps[j] / n) : Infinity;
    const v = Math.min(a, b);
    if (a === v) i++;
    if (b === v) j++;
    if (out.length === 0 || out[out.length - 1] !== v) out.push(v);
  }
  return out;
}
