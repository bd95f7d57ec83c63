/**
 * Plain per-round means of the calibrated metrics, computed from frozen history rows the way the
 * reference analysis defines them: over the round's optimizer-update rows (entropy, clip fraction,
 * gradient norm) or over its rollout batches (actor tokens/s, response length, truncated fraction,
 * rollout time). Used by the CLI to print what it generated.
 */
import type { HistoryRow, RunHistory } from "../../lib/types";
import type { RoundTarget } from "./calibration";

/** Round means of one run: the calibrated quantities, plus the run and its zero-grad-norm updates. */
export interface RoundMeans extends RoundTarget {
  runId: string;
  /** Display update numbers (train/step - 1) with grad norm exactly 0. */
  zeroGradNormUpdates: number[];
}

function meanOf(rows: readonly HistoryRow[], key: string): number {
  const values = rows.map((r) => r[key]).filter((v): v is number => v !== undefined);
  return values.reduce((a, b) => a + b, 0) / values.length;
}

/** Per-round means of one frozen run. */
export function roundMeans(run: RunHistory): RoundMeans {
  const updates = run.rows.filter((r) => r["train/step"] !== undefined);
  const withKey = (key: string) => run.rows.filter((r) => r[key] !== undefined);
  return {
    round: run.round,
    runId: run.runId,
    entropy: meanOf(updates, "train/entropy_loss"),
    clipfrac: meanOf(updates, "train/pg_clipfrac"),
    gradNorm: meanOf(updates, "train/grad_norm"),
    actorTokPerS: meanOf(withKey("perf/actor_train_tok_per_s"), "perf/actor_train_tok_per_s"),
    responseLen: meanOf(withKey("rollout/response_len/mean"), "rollout/response_len/mean"),
    truncatedFraction: meanOf(withKey("rollout/truncated_ratio"), "rollout/truncated_ratio"),
    rolloutTime: meanOf(withKey("perf/rollout_time"), "perf/rollout_time"),
    zeroGradNormUpdates: updates.filter((r) => r["train/grad_norm"] === 0).map((r) => r["train/step"] - 1),
  };
}

/** The means formatted at the reference analysis' printed precision. */
export function formatRoundMeans(m: RoundMeans): string {
  return [
    m.round.padEnd(3),
    m.runId.padEnd(12),
    `entropy ${m.entropy.toFixed(5)}`,
    `clip ${m.clipfrac.toFixed(5)}`,
    `grad ${m.gradNorm.toFixed(2)}`,
    `tok/s ${m.actorTokPerS.toFixed(2)}`,
    `resp ~${m.responseLen.toFixed(0)}`,
    `trunc ${(100 * m.truncatedFraction).toFixed(1)}%`,
    `rollout ~${m.rolloutTime.toFixed(0)}s`,
    `zero-grad [${m.zeroGradNormUpdates.join(",")}]`,
  ].join("  ");
}
