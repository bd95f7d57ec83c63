/**
 * Wall time of an experiment's records, read from its frozen rows' W&B bookkeeping before alignment
 * releases them: a run started at `_timestamp - _runtime` of its first row holding both; the
 * experiment started when its earliest run did; a record's time is its latest source row's
 * `_timestamp`. So a record's wall time is the wall clock since the experiment started, the gaps
 * between runs (restarts, queueing) included. A run without a start refuses the axis (never guessed).
 */
import type { RunHistory } from "../types";

/** Record wall times of one experiment, or why it has none. */
export type WallClock = { at(runId: string, historySteps: readonly number[]): number; origin: number } | { none: string };

/** A run's rows as sorted `_step`s and their `_timestamp`s (NaN when a row has none). */
interface RunStamps {
  steps: Float64Array;
  stamps: Float64Array;
}

/**
 * The latest `_timestamp` of the rows at `steps` (binary search over the rows sorted by `_step`; a run
 * resumed in place, its later log kept at its framework's steps, holds a step twice: the latest of
 * them); NaN when none has one.
 */
function latestStamp(run: RunStamps, steps: readonly number[]): number {
  let latest = Number.NaN;
  const take = (t: number) => {
    // NaN <= x is false: the first stamped row sets `latest`, an unstamped one never does.
    if (!Number.isNaN(t) && !(t <= latest)) latest = t;
  };
  for (const s of steps) {
    let lo = 0;
    let hi = run.steps.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const at = run.steps[mid];
      if (at === s) {
        for (let i = mid; i >= 0 && run.steps[i] === s; i--) take(run.stamps[i]);
        for (let i = mid + 1; i < run.steps.length && run.steps[i] === s; i++) take(run.stamps[i]);
        break;
      }
      if (at < s) lo = mid + 1;
      else hi = mid - 1;
    }
  }
  return latest;
}

/** The rows' steps and stamps in `_step` order (already so unless a later log of the run went back). */
function sortedByStep(steps: Float64Array, stamps: Float64Array): RunStamps {
  if (steps.every((s, i) => i === 0 || s > steps[i - 1])) return { steps, stamps };
  const order = [...steps.keys()].sort((a, b) => steps[a] - steps[b] || a - b);
  return { steps: Float64Array.from(order, (i) => steps[i]), stamps: Float64Array.from(order, (i) => stamps[i]) };
}

/** A number of a row, or NaN. */
function num(v: unknown): number {
  return typeof v === "number" && Number.isFinite(v) ? v : Number.NaN;
}

/**
 * The wall clock of an experiment's runs (rows still loaded), or why there is none.
 * @example const w = wallClock(archive.runs); if (!("none" in w)) w.at("run1", [12]) // seconds since start
 */
export function wallClock(runs: readonly RunHistory[]): WallClock {
  const byRun = new Map<string, RunStamps>();
  let origin = Number.POSITIVE_INFINITY;
  for (const run of runs) {
    const steps = new Float64Array(run.rows.length);
    const stamps = new Float64Array(run.rows.length);
    let start = Number.NaN;
    run.rows.forEach((row, i) => {
      steps[i] = row._step;
      stamps[i] = num(row._timestamp);
      if (Number.isNaN(start)) start = stamps[i] - num(row._runtime);
    });
    if (Number.isNaN(start))
      return { none: `run ${run.runId} (round ${run.round}) has no row with both _timestamp and _runtime, so when it started is not known` };
    origin = Math.min(origin, start);
    byRun.set(run.runId, sortedByStep(steps, stamps));
  }
  if (byRun.size === 0) return { none: "no run" };
  return {
    origin,
    at: (runId, historySteps) => {
      const run = byRun.get(runId);
      return run === undefined ? Number.NaN : latestStamp(run, historySteps) - origin;
    },
  };
}
