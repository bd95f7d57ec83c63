/**
 * Coverage of aligned runs: which rollouts and updates each run (round) owns, and every way that
 * differs from "contiguous, each exactly once, rounds continuing without gap or overlap".
 * Issues are reported, never repaired. Issue messages name run, round and step themselves.
 */
import type { AlignedRuns, AxisMapping, CoverageIssue, AxisRecord, RunAxis, RunCoverage, UpdateRecord } from "../../types";
import { runUpdateNumber } from "./axis-formulas";
import { ascending } from "./scan-runs";

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
  rollouts: AxisRecord[],
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
  // The highest rollout owned by an earlier round, and that round's run.
  let prev: RoundReach = { last: -Infinity, run: null };
  for (let i = 0; i < runs.length; i++) {
    const run = runs[i];
    const axis: Pick<RunAxis, "n" | "firstRollout" | "updateBase"> = axes.get(run.runId) ?? { n: mapping.n, firstRollout: mapping.r0, updateBase: 0 };
    const check = new RunCoverageCheck(run, axis, noUpdatesExpected[i], issues);
    const { rolloutIds: owned, updateSteps } = check.unique(rolloutIds[i], trainSteps[i]);
    const ownedIds = check.ownedRollouts(owned, updateSteps);
    check.updateSlots(ownedIds, owned, updateSteps);
    prev = check.roundBoundary(ownedIds, prev);
    coverage.push(check.coverage(owned, updateSteps));
  }
  const bad = new Set<string>();
  for (const x of priorIssues) bad.add(x.runId);
  for (const x of issues) bad.add(x.runId);
  for (const c of coverage) c.ok = !bad.has(c.runId);
  return { coverage, issues };
}

/** How far earlier rounds reach: their highest owned rollout and the run that owns it. */
interface RoundReach {
  last: number;
  run: RunMeta | null;
}

/** The coverage checks of one run, with its axis, the rollouts that expect no updates, and the issue list. */
class RunCoverageCheck {
  private readonly n: number;
  private readonly at: string;

  constructor(
    private readonly run: RunMeta,
    private readonly axis: Pick<RunAxis, "n" | "firstRollout" | "updateBase">,
    private readonly skip: Set<number> | undefined,
    private readonly issues: CoverageIssue[],
  ) {
    this.n = axis.n;
    this.at = `run ${run.runId} (round ${run.round})`;
  }

  private add(kind: CoverageIssue["kind"], step: number | null, message: string): void {
    this.issues.push({ runId: this.run.runId, round: this.run.round, kind, step, key: null, message: `${this.at}: ${message}` });
  }

  private updateNumber(t: number): number {
    return runUpdateNumber(this.axis, t);
  }

  /** Sorted distinct rollout ids and train/steps; each one logged more than once is an issue. */
  unique(rolloutIds: Float64Array, trainSteps: Float64Array): { rolloutIds: Float64Array; updateSteps: Float64Array } {
    // Records come in order: sorted only when they are not (10^6 train/steps sorted only to find them in order).
    const ids = dedupe(ascending(rolloutIds) ? rolloutIds : rolloutIds.sort(), (v, count) =>
      this.add("duplicate-rollout", v, `rollout ${v} has ${count} rollout records`),
    );
    const steps = dedupe(ascending(trainSteps) ? trainSteps : trainSteps.sort(), (v, count) =>
      this.add("duplicate-update", v, `train/step ${v} (update ${this.updateNumber(v)}) has ${count} optimizer-update rows`),
    );
    return { rolloutIds: ids, updateSteps: steps };
  }

  /** Rollouts the run owns (those with rollout rows and those its updates belong to); holes among them are issues. */
  ownedRollouts(rolloutIds: Float64Array, updateSteps: Float64Array): number[] {
    const owned = mergeUnique(rolloutIds, updateSteps, this.n);
    if (owned.length === 0) this.add("missing-rollout", null, "has no rollout rows and no optimizer-update rows");
    for (let k = 1; k < owned.length; k++) {
      if (owned[k] > owned[k - 1] + 1) {
        const a = owned[k - 1] + 1;
        const b = owned[k] - 1;
        this.add("missing-rollout", a, `${range("rollout", a, b)} missing (no rollout row and no update) between rollouts ${owned[k - 1]} and ${owned[k]}`);
      }
    }
    return owned;
  }

  /** Per owned rollout: its N update slots rN..rN+N-1 (missing ones are issues), and updates without a rollout row. */
  updateSlots(owned: number[], rolloutIds: Float64Array, updateSteps: Float64Array): void {
    const n = this.n;
    let j = 0; // pointer into updateSteps
    let q = 0; // pointer into rolloutIds
    for (const r of owned) {
      while (q < rolloutIds.length && rolloutIds[q] < r) q++;
      const hasRow = q < rolloutIds.length && rolloutIds[q] === r;
      if (this.skip?.has(r) && !(j < updateSteps.length && Math.floor(updateSteps[j] / n) === r)) continue;
      const slots = this.scanSlots(r, updateSteps, j);
      j = slots.next;
      if (!hasRow && slots.present > 0) {
        const first = slots.firstPresent;
        this.add(
          "update-without-rollout",
          first,
          `rollout ${r} has ${slots.present} update(s) from train/step ${first} (update ${this.updateNumber(first)}) but no rollout row`,
        );
      }
    }
  }

  /** The update slots of rollout r from position j of the sorted train/steps: runs of missing slots are issues. */
  private scanSlots(r: number, updateSteps: Float64Array, j: number): { next: number; present: number; firstPresent: number } {
    const lo = r * this.n;
    const hi = lo + this.n;
    let present = 0;
    let firstPresent = NaN;
    let missFrom = NaN;
    // t runs one past the block so that a trailing run of missing slots is closed too.
    for (let t = lo; t <= hi; t++) {
      const isPresent = t < hi && j < updateSteps.length && updateSteps[j] === t;
      if (isPresent) {
        j++;
        present++;
        if (firstPresent !== firstPresent) firstPresent = t;
      }
      if ((isPresent || t === hi) && missFrom === missFrom) {
        const to = t - 1;
        this.add(
          "missing-update",
          missFrom,
          `rollout ${r} lacks ${range("train/step", missFrom, to)} (${range("update", this.updateNumber(missFrom), this.updateNumber(to))})`,
        );
        missFrom = NaN;
      } else if (!isPresent && t < hi && missFrom !== missFrom) {
        missFrom = t;
      }
    }
    return { next: j, present, firstPresent };
  }

  /** A gap or an overlap with the rollouts earlier rounds reach; returns how far the rounds reach with this one. */
  roundBoundary(owned: number[], prev: RoundReach): RoundReach {
    if (owned.length === 0) return prev;
    const first = owned[0];
    const last = owned[owned.length - 1];
    if (prev.run !== null) {
      const before = `round ${prev.run.round} (run ${prev.run.runId})`;
      if (first > prev.last + 1) {
        this.add(
          "gap-between-rounds",
          prev.last + 1,
          `${range("rollout", prev.last + 1, first - 1)} missing between ${before}, which ends at rollout ${prev.last}, and this round, which starts at rollout ${first}`,
        );
      } else if (first <= prev.last) {
        let count = 0;
        while (count < owned.length && owned[count] <= prev.last) count++;
        this.add(
          "overlap-between-rounds",
          first,
          `starts at rollout ${first}, but ${before} already reaches rollout ${prev.last}: ${count} rollout(s) of this run (${owned[0]}..${owned[count - 1]}) are owned twice`,
        );
      }
    }
    return last > prev.last ? { last, run: this.run } : prev;
  }

  /** The run's coverage summary (`ok` is set once every run is checked). */
  coverage(rolloutIds: Float64Array, updateSteps: Float64Array): RunCoverage {
    const first = (xs: Float64Array) => (xs.length ? xs[0] : null);
    const last = (xs: Float64Array) => (xs.length ? xs[xs.length - 1] : null);
    return {
      runId: this.run.runId,
      round: this.run.round,
      historyEvents: this.run.historyEvents,
      rollouts: rolloutIds.length,
      updates: updateSteps.length,
      firstRollout: first(rolloutIds),
      lastRollout: last(rolloutIds),
      firstUpdate: updateSteps.length ? this.updateNumber(updateSteps[0]) : null,
      lastUpdate: updateSteps.length ? this.updateNumber(updateSteps[updateSteps.length - 1]) : null,
      ok: true,
    };
  }
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
