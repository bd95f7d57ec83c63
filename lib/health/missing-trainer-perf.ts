/**
 * `missing_trainer_perf`: rollout batches that were trained on (they have optimizer updates) but
 * carry none of the trainer's perf row. slime's trainer logs that row once per batch after training;
 * without it the batch's timers and actor throughput are absent, and round means silently cover fewer
 * batches.
 */
import { conceptKey, defineCheck } from "./health-check";
import { consecutiveFlags, type HealthHit } from "./flag-ranges";
import { notLoggedReason } from "./not-applicable";
import type { AlignedRuns } from "../types";
import { anyHasKey, forEachBlock } from "../values/key-column";

/** The trainer perf row's key that marks it: slime logs actor throughput on every trainer perf row. */

/** The declared check. Consecutive batches of one round form one flag; the value is empty (an absence). */
export const missingTrainerPerf = defineCheck({
  name: "missing_trainer_perf",
  severity: "notice",
  unit: "rollout",
  needs: { concepts: ["actorTokPerS"], separateTimer: true },
  params: [],
  rule: (_p, profile) =>
    `a rollout batch with optimizer updates but no ${conceptKey(profile, "actorTokPerS")} (no trainer perf row; consecutive batches form one flag)`,
  is: "batches the trainer trained on without logging its perf row: their timers and throughput are missing from every figure and mean",
  isNot:
    "not proof that training failed on those batches: the row can be lost to a crash before logging, to W&B dropping a row, or to a run that ended mid-batch",
  run(aligned, _p, profile) {
    const KEY = conceptKey(profile, "actorTokPerS");
    if (aligned.updates.length === 0) return { applicable: false, reason: "no optimizer updates: no batch was trained on" };
    if (!anyHasKey(aligned.rollouts, KEY)) return { applicable: false, reason: notLoggedReason("rollout batch", KEY) };
    // Per run and rollout id: has the perf key, already reported.
    const ids = new RolloutIds(aligned);
    forEachBlock(aligned.rollouts, [KEY], (from, to, [col]) => {
      for (let i = from; i < to; i++) if (col.found[i - from] !== 0) ids.mark(aligned.rollouts[i], WITH_PERF);
    });
    const hits: HealthHit[] = [];
    for (let i = 0; i < aligned.updates.length; i++) {
      const u = aligned.updates[i];
      if (ids.has(u, WITH_PERF | REPORTED)) continue;
      ids.mark(u, REPORTED);
      hits.push({ round: u.round, runId: u.runId, x: u.rollout, key: KEY, value: null });
    }
    return { applicable: true, flags: consecutiveFlags(hits, aligned.rounds) };
  },
});

/** Marks of a rollout id: a batch with the perf key, an id already reported. */
const WITH_PERF = 1;
const REPORTED = 2;

/** One run's rollout ids seen while sizing, then its marks. */
interface RunIds {
  low: number;
  high: number;
  records: number;
  integers: boolean;
  marks: Uint8Array | Map<number, number>;
}

/**
 * Marks per run and rollout id. Rollout ids are small dense integers per run, so each run gets a byte
 * per id from its smallest to its largest (one typed array, not a Set of 10^6 numbers); a run whose
 * ids are not such integers keeps its marks in a Map (same matching as a Set).
 */
class RolloutIds {
  private readonly runs = new Map<string, RunIds>();
  private lastRunId: string | null = null;
  private lastRun: RunIds | null = null;

  constructor(aligned: AlignedRuns) {
    // Indexed loops: a for...of here allocated an iterator result per record (measured).
    for (let i = 0; i < aligned.rollouts.length; i++) this.see(aligned.rollouts[i]);
    for (let i = 0; i < aligned.updates.length; i++) this.see(aligned.updates[i]);
    for (const run of this.runs.values()) {
      const span = run.high - run.low + 1;
      // Dense enough for a byte per id (a few ids per record at most), else a Map.
      const dense = run.integers && span <= 4 * run.records + 1024;
      run.marks = dense ? new Uint8Array(span) : new Map<number, number>();
    }
  }

  /** True when the record's run has one of `marks` on its rollout id. */
  has(r: { runId: string; rollout: number }, marks: number): boolean {
    const run = this.runOf(r.runId);
    const m = run.marks instanceof Uint8Array ? run.marks[r.rollout - run.low] : (run.marks.get(r.rollout) ?? 0);
    return (m & marks) !== 0;
  }

  /** Adds `mark` on the record's rollout id of its run. */
  mark(r: { runId: string; rollout: number }, mark: number): void {
    const run = this.runOf(r.runId);
    if (run.marks instanceof Uint8Array) run.marks[r.rollout - run.low] |= mark;
    else run.marks.set(r.rollout, (run.marks.get(r.rollout) ?? 0) | mark);
  }

  private see(r: { runId: string; rollout: number }): void {
    let run = r.runId === this.lastRunId ? this.lastRun! : this.runs.get(r.runId);
    if (run === undefined) {
      run = { low: r.rollout, high: r.rollout, records: 0, integers: true, marks: new Uint8Array(0) };
      this.runs.set(r.runId, run);
    }
    this.lastRunId = r.runId;
    this.lastRun = run;
    if (r.rollout < run.low) run.low = r.rollout;
    if (r.rollout > run.high) run.high = r.rollout;
    run.records++;
    if (!Number.isSafeInteger(r.rollout)) run.integers = false;
  }

  /** The run's marks; records of a run are mostly contiguous, so the previous record's run is tried first. */
  private runOf(runId: string): RunIds {
    if (runId !== this.lastRunId) {
      this.lastRunId = runId;
      this.lastRun = this.runs.get(runId)!;
    }
    return this.lastRun!;
  }
}
