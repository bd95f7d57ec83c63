/**
 * Hand-built slime histories for the axes and local-log tests: per rollout batch the rows slime
 * writes, in its order (manager row, trainer rollout row, N update rows, trainer perf row).
 */
import type { HistoryRow, RunHistory } from "../../lib/types";
import { batchRowKinds } from "../../tools/simulate-slime/slime-rows";

/** What to build for one run. */
export interface RunSpec {
  runId: string;
  round: string;
  n: number;
  /** Rollout ids of the run, in logging order. */
  rollouts: number[];
  /** train/step values to leave out. */
  dropSteps?: number[];
}

/** Values are simple functions of the step so that tests can hand-compute them. */
export function managerRow(r: number): HistoryRow {
  return {
    "rollout/response_len/mean": 100 + r,
    "rollout/truncated_ratio": r / 100,
    "perf/rollout_time": 10 + r,
    "rollout/step": r,
  };
}

export function trainerRolloutRow(r: number): HistoryRow {
  return { "rollout/log_probs": -0.5 - r / 100, "rollout/rewards": r / 10, "rollout/step": r };
}

export function updateRow(t: number): HistoryRow {
  return { "train/loss": t / 1000, "train/grad_norm": 1 + t, "train/entropy_loss": 0.2, "train/step": t };
}

export function trainerPerfRow(r: number): HistoryRow {
  return { "perf/actor_train_time": 5, "perf/actor_train_tok_per_s": 1000 + r, "rollout/step": r };
}

/** Bookkeeping keys added in order, like W&B does. */
export function stamp(rows: HistoryRow[]): HistoryRow[] {
  return rows.map((r, i) => ({ ...r, _step: i, _runtime: 10 * i, _timestamp: 1_700_000_000 + 10 * i }));
}

/** The rows of one run without bookkeeping keys. */
export function slimeRows(spec: RunSpec): HistoryRow[] {
  const drop = new Set(spec.dropSteps ?? []);
  const rows: HistoryRow[] = [];
  for (const r of spec.rollouts) {
    let stepId = 0;
    for (const kind of batchRowKinds(spec.n)) {
      if (kind === "optimizer-update") {
        const t = r * spec.n + stepId++;
        if (!drop.has(t)) rows.push(updateRow(t));
      } else rows.push(kind === "rollout-manager" ? managerRow(r) : kind === "trainer-rollout" ? trainerRolloutRow(r) : trainerPerfRow(r));
    }
  }
  return rows;
}

/** A run from raw rows (stamped here). */
export function runOf(runId: string, round: string, rows: HistoryRow[]): RunHistory {
  return { runId, round, entity: "test", project: "axes", state: "finished", rows: stamp(rows) };
}

/** A run as slime would log it. */
export function slimeRun(spec: RunSpec): RunHistory {
  return runOf(spec.runId, spec.round, slimeRows(spec));
}

/** Consecutive integers a..b. */
export function ids(a: number, b: number): number[] {
  const out: number[] = [];
  for (let i = a; i <= b; i++) out.push(i);
  return out;
}
