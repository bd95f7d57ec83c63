/**
 * The train/inference mismatch quantities: how far the trainer's token log-probs are from the
 * inference engine's on the sampled tokens, and what a correction (importance weights, truncation,
 * masking) did about it. Each framework's profile (lib/registry/profile-*.ts, field `mismatch`) maps
 * its own keys to these quantities, says what its number is (estimator, tokens, average), and whether
 * it is the quantity's reference estimator (comparable across frameworks) or another one.
 * Thresholds of the mismatch checks are declared here, per quantity: starting points to override
 * (`scale` of the checks), not validated limits.
 */
import type { MetricGrain } from "./metric-spec";

/** The declared mismatch quantities. */
export type MismatchQuantityId = "absDiff" | "signedGap" | "k3Kl" | "isRatioMean" | "isRatioAbsDev" | "isRatioMax" | "isRatioMin" | "ess" | "correctedFraction";

/** Which way the mismatch gets worse: a larger value, a smaller one, or a departure either way. */
export type MismatchWorse = "higher" | "lower" | "either";

/** A threshold of the mismatch checks for one quantity, or why the quantity has none. */
export type MismatchThreshold = { value: number } | { none: string };

/** One mismatch quantity: label, unit, the reference estimator, and the checks' thresholds. */
export interface MismatchQuantity {
  id: MismatchQuantityId;
  label: string;
  unit: string;
  /** The reference estimator, per token, and how tokens are averaged: a framework's number is comparable when it is this. */
  estimator: string;
  worse: MismatchWorse;
  /** `mismatch_drift`: a least-squares slope over round means beyond this (in unit per round, in the worse direction) fires. */
  driftPerRound: MismatchThreshold;
  /**
   * `mismatch_resume_spike`: a jump at a resume (first record after minus the mean of the records before)
   * in the worse direction fires when it exceeds both `relative` x |the level before| and `floor`.
   */
  resumeSpike: { relative: number; floor: number } | { none: string };
}

const q = (x: MismatchQuantity): MismatchQuantity => x;
const EXTREME = "a batch's extreme: it grows with the number of tokens in the batch, so neither its slope nor its jump says the mismatch moved";

/** Every mismatch quantity, by id (exhaustive). */
export const MISMATCH_QUANTITIES: Readonly<Record<MismatchQuantityId, MismatchQuantity>> = {
  absDiff: q({
    id: "absDiff",
    label: "mean |train - rollout log-prob|",
    unit: "nats/token",
    estimator: "mean over the batch's response tokens of |trainer log-prob - engine log-prob|, trainer = the old (pre-update) policy",
    worse: "higher",
    driftPerRound: { value: 0.005 },
    resumeSpike: { relative: 1, floor: 0.005 },
  }),
  signedGap: q({
    id: "signedGap",
    label: "signed gap (engine - trainer)",
    unit: "nats/token",
    estimator:
      "mean over the batch's response tokens of (engine log-prob - trainer log-prob): the k1 estimate of KL(engine || trainer) on tokens the engine sampled; positive and negative tokens cancel",
    worse: "either",
    driftPerRound: { value: 0.002 },
    resumeSpike: { none: "a signed mean whose tokens cancel: its level can be near 0 while the mismatch is large, so a jump relative to it is no threshold" },
  }),
  k3Kl: q({
    id: "k3Kl",
    label: "k3 KL(engine || trainer)",
    unit: "nats/token",
    estimator: "mean over the batch's response tokens of r - 1 - log r with r = pi_trainer / pi_engine (Schulman's k3, >= 0 per token)",
    worse: "higher",
    driftPerRound: { value: 0.0005 },
    resumeSpike: { relative: 1, floor: 0.0005 },
  }),
  isRatioMean: q({
    id: "isRatioMean",
    label: "mean importance ratio",
    unit: "ratio",
    estimator: "mean over the batch's response tokens of r = pi_trainer / pi_engine before any truncation or mask (1 in expectation under the engine)",
    worse: "either",
    driftPerRound: { value: 0.01 },
    resumeSpike: { none: "1 in expectation: a departure from 1, not a jump relative to the level, would be the sign" },
  }),
  isRatioAbsDev: q({
    id: "isRatioAbsDev",
    label: "mean |importance ratio - 1|",
    unit: "ratio",
    estimator: "mean over the batch's response tokens of |pi_trainer / pi_engine - 1| before truncation",
    worse: "higher",
    driftPerRound: { value: 0.005 },
    resumeSpike: { relative: 1, floor: 0.005 },
  }),
  isRatioMax: q({
    id: "isRatioMax",
    label: "max importance ratio",
    unit: "ratio",
    estimator: "largest pi_trainer / pi_engine over the batch's response tokens",
    worse: "higher",
    driftPerRound: { none: EXTREME },
    resumeSpike: { none: EXTREME },
  }),
  isRatioMin: q({
    id: "isRatioMin",
    label: "min importance ratio",
    unit: "ratio",
    estimator: "smallest pi_trainer / pi_engine over the batch's response tokens",
    worse: "lower",
    driftPerRound: { none: EXTREME },
    resumeSpike: { none: EXTREME },
  }),
  ess: q({
    id: "ess",
    label: "effective sample size of the correction",
    unit: "fraction of tokens",
    estimator: "(sum w)^2 / (n sum w^2) over the batch's n response tokens, w the engine-correction weights: 1 when every weight is equal",
    worse: "lower",
    driftPerRound: { value: 0.02 },
    resumeSpike: { relative: 0.2, floor: 0.02 },
  }),
  correctedFraction: q({
    id: "correctedFraction",
    label: "fraction clipped or masked by the correction",
    unit: "fraction",
    estimator: "fraction of the batch's response tokens whose correction weight was truncated, clipped or masked",
    worse: "higher",
    driftPerRound: { value: 0.01 },
    resumeSpike: { relative: 1, floor: 0.01 },
  }),
};

/** Quantity ids in panel order. */
export const MISMATCH_QUANTITY_IDS: readonly MismatchQuantityId[] = Object.keys(MISMATCH_QUANTITIES) as MismatchQuantityId[];

/** One key (or difference of two keys) a framework logs for a mismatch quantity. */
export interface MismatchMetric {
  /** The W&B history key exactly as the framework logs it. */
  key: string;
  /** Set for a derived value: `key - minus`, both logged in the same record with the same token weights. */
  minus?: string;
  grain: MetricGrain;
  /** What the number is in this framework: estimator, which tokens, how they are averaged. */
  is: string;
  /** Weights before truncation or mask ("raw"), or the weights the loss used ("applied"); absent for non-weights. */
  stage?: "raw" | "applied";
  /** True when it is the quantity's reference estimator (MismatchQuantity.estimator), up to the averaging `is` states. */
  comparable: boolean;
  /** Why it is comparable, or which estimator it is instead and why that differs. */
  comparability: string;
  /** When the framework logs it (its flags). */
  when: string;
  /** Where in the framework's source, as the profile's other declarations cite it. */
  source: string;
}

/** A key that looks like a mismatch quantity but is not one, and what it is. */
export interface MismatchLookAlike {
  key: string;
  is: string;
}

/** A profile's mismatch declarations: each quantity's keys (one or more) or why it logs none, and the look-alikes. */
export interface MismatchSpec {
  metrics: Readonly<Record<MismatchQuantityId, readonly MismatchMetric[] | { absent: string }>>;
  lookAlikes: readonly MismatchLookAlike[];
}

/** The profile's metrics of a quantity ([] when it logs none). */
export function mismatchMetricsOf(spec: MismatchSpec, quantity: MismatchQuantityId): readonly MismatchMetric[] {
  const m = spec.metrics[quantity];
  return "absent" in m ? [] : m;
}

/** A metric's name in tables and legends: its key, or `key - minus` for a derived value. */
export function mismatchMetricName(m: MismatchMetric): string {
  return m.minus === undefined ? m.key : `${m.key} - ${m.minus}`;
}

/** What logged means cannot show, said wherever the panel is shown. */
export const MISMATCH_NOT_SHOWN =
  "logged means (and a batch's max or min) cannot show the per-token distribution: how many tokens sit in the tails, or which sequences carry them, is not in the history and is not estimated here";
