/**
 * What the simulator is calibrated to: the per-round means of the reference analysis
 * (docs/reference-analysis.md) and its list of zero-gradient-norm updates. The generator
 * shapes noisy series and then shifts or scales them so that these means come out exactly.
 */

/** Per-round targets (plain means over the round's 40 updates or 20 rollout batches). */
export interface RoundTarget {
  round: string;
  /** Mean `train/entropy_loss` over the round's updates. */
  entropy: number;
  /** Mean `train/pg_clipfrac` over the round's updates. */
  clipfrac: number;
  /** Mean `train/grad_norm` over the round's updates (exact zeros included). */
  gradNorm: number;
  /** Mean `perf/actor_train_tok_per_s` over the round's rollout batches. */
  actorTokPerS: number;
  /** Mean `rollout/response_len/mean` over the round's rollout batches (tokens). */
  responseLen: number;
  /** Mean `rollout/truncated_ratio` over the round's rollout batches (fraction). */
  truncatedFraction: number;
  /** Mean `perf/rollout_time` over the round's rollout batches (s). */
  rolloutTime: number;
}

/** The reference round means, as printed in docs/reference-analysis.md. */
export const ROUND_TARGETS: readonly RoundTarget[] = [
  { round: "R0", entropy: 0.18025, clipfrac: 0.00123, gradNorm: 2.18, actorTokPerS: 13538.13, responseLen: 288, truncatedFraction: 0.118, rolloutTime: 234 },
  { round: "R1", entropy: 0.15557, clipfrac: 0.00058, gradNorm: 2.16, actorTokPerS: 13502.78, responseLen: 269, truncatedFraction: 0.204, rolloutTime: 245 },
  { round: "R2", entropy: 0.14212, clipfrac: 0.00056, gradNorm: 1.38, actorTokPerS: 13468.47, responseLen: 205, truncatedFraction: 0.223, rolloutTime: 224 },
  { round: "R3", entropy: 0.13258, clipfrac: 0.00038, gradNorm: 1.14, actorTokPerS: 13527.11, responseLen: 247, truncatedFraction: 0.158, rolloutTime: 209 },
];

/** Display update numbers (train/step - 1) whose recorded gradient norm is exactly 0. */
export const ZERO_GRAD_NORM_UPDATES: readonly number[] = [66, 70, 82, 116, 140, 142, 156, 160];
