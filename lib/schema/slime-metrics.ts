/**
 * The slime metric schema: the one place where metric keys, what they are averaged over, and what
 * they do and do not mean are written down. Notebooks, captions, summaries and exports read it.
 * Source: docs/slime-logging.md and docs/reference-analysis.md.
 */

/** What a per-round mean of this metric is taken over. */
export type MetricGrain = "update" | "rollout";

export interface MetricSpec {
  /** The W&B history key exactly as slime logs it. */
  key: string;
  /** Short human label for tables and axes. */
  label: string;
  unit: string;
  grain: MetricGrain;
  /** What the number is. */
  is: string;
  /** What it is not: the reading rule that stops a common misreading. */
  isNot: string;
}

/** Step keys slime declares with `wandb.define_metric`. `_step` is none of them. */
export const STEP_KEYS = {
  rollout: "rollout/step",
  train: "train/step",
  eval: "eval/step",
  /** Actor-critic runs log critic updates against their own step key. */
  critic: "train/critic-step",
} as const;

/** Key families by prefix and the step key they are plotted against. */
export const KEY_FAMILIES: readonly { prefix: string; stepKey: string; grain: MetricGrain }[] = [
  { prefix: "train/", stepKey: STEP_KEYS.train, grain: "update" },
  { prefix: "rollout/", stepKey: STEP_KEYS.rollout, grain: "rollout" },
  { prefix: "perf/", stepKey: STEP_KEYS.rollout, grain: "rollout" },
  { prefix: "multi_turn/", stepKey: STEP_KEYS.rollout, grain: "rollout" },
  { prefix: "passrate/", stepKey: STEP_KEYS.rollout, grain: "rollout" },
  { prefix: "eval/", stepKey: STEP_KEYS.eval, grain: "rollout" },
];

const m = (spec: MetricSpec): MetricSpec => spec;

/** The metrics the notebooks and the summary export use, by role. */
export const METRICS = {
  entropy: m({
    key: "train/entropy_loss",
    label: "entropy",
    unit: "nats/token",
    grain: "update",
    is: "mean token entropy of the policy on the training batch (per-sample token mean, then mean over the samples of the optimizer step)",
    isNot: "not the objective (entropy_coef defaults to 0); lower entropy proves neither better calibration, nor broader competence, nor less semantic diversity",
  }),
  clipfrac: m({
    key: "train/pg_clipfrac",
    label: "clip fraction",
    unit: "fraction of tokens",
    grain: "update",
    is: "fraction of tokens where the clipped PPO surrogate is active",
    isNot: "not a measure of how far the policy moved from the initial model",
  }),
  gradNorm: m({
    key: "train/grad_norm",
    label: "gradient norm",
    unit: "L2 norm",
    grain: "update",
    is: "gradient norm returned by the optimizer step (before clipping at 1.0)",
    isNot: "an exact 0 is not by itself evidence of a bug or of convergence: it follows when every sample of the step has zero advantage (e.g. all groups had equal rewards); the cause needs the admitted minibatch advantages and optimizer state",
  }),
  ppoKl: m({
    key: "train/ppo_kl",
    label: "ppo_kl",
    unit: "nats/token",
    grain: "update",
    is: "mean of old_logp - new_logp over tokens: the policy-ratio log; ~0 on the first update after a rollout, non-zero on later updates",
    isNot: "not the divergence from the initial or reference model; read it with the update position inside the batch in view",
  }),
  logprobAbsDiff: m({
    key: "train/train_rollout_logprob_abs_diff",
    label: "|train - rollout log-prob|",
    unit: "nats/token",
    grain: "update",
    is: "mean |trainer log-prob - inference-engine log-prob|: numerical consistency of generation vs training",
    isNot: "not a quality measure of the policy",
  }),
  loss: m({
    key: "train/loss",
    label: "loss",
    unit: "",
    grain: "update",
    is: "pg_loss - entropy_coef * entropy_loss (+ kl terms)",
    isNot: "small values are not measures of task quality under group-relative reward normalisation",
  }),
  pgLoss: m({
    key: "train/pg_loss",
    label: "policy-gradient loss",
    unit: "",
    grain: "update",
    is: "clipped surrogate policy-gradient loss",
    isNot: "not a measure of task quality under group-relative reward normalisation",
  }),
  actorTokPerS: m({
    key: "perf/actor_train_tok_per_s",
    label: "actor tokens/s",
    unit: "tokens/s",
    grain: "rollout",
    is: "prompt+response tokens of the whole rollout divided by actor train time, cluster-wide",
    isNot: "not per GPU, and not generation throughput",
  }),
  responseLen: m({
    key: "rollout/response_len/mean",
    label: "mean response length",
    unit: "tokens",
    grain: "rollout",
    is: "mean effective (loss-masked) response length of the samples admitted for training",
    isNot: "not total generation per episode: a multi-turn episode can be split into several samples",
  }),
  responseLenMin: m({
    key: "rollout/response_len/min",
    label: "min response length",
    unit: "tokens",
    grain: "rollout",
    is: "shortest admitted sample's effective response length in the batch",
    isNot: "not per episode",
  }),
  responseLenMax: m({
    key: "rollout/response_len/max",
    label: "max response length",
    unit: "tokens",
    grain: "rollout",
    is: "longest admitted sample's effective response length in the batch",
    isNot: "not per episode",
  }),
  truncatedRatio: m({
    key: "rollout/truncated_ratio",
    label: "truncated fraction",
    unit: "fraction of samples",
    grain: "rollout",
    is: "fraction of admitted samples with status TRUNCATED (hit the length limit)",
    isNot: "not an episode failure rate; aborted and filtered samples are excluded",
  }),
  rolloutTime: m({
    key: "perf/rollout_time",
    label: "rollout wall time",
    unit: "s",
    grain: "rollout",
    is: "wall time of one rollout batch's generation",
    isNot: "describes one machine and its scheduling; summing it misses validation, start-up and idle time",
  }),
} as const;

export type MetricRole = keyof typeof METRICS;

/** Look a metric up by its W&B key; undefined when the schema does not describe it. */
export function metricByKey(key: string): MetricSpec | undefined {
  for (const spec of Object.values(METRICS)) if (spec.key === key) return spec;
  return undefined;
}

/** Prefix of slime's per-phase timers on the trainer perf row and rollout-manager row. */
export const PERF_TIME_PREFIX = "perf/";
export const PERF_TIME_SUFFIX = "_time";

/** True for slime's timing keys (`perf/*_time`), e.g. `perf/actor_train_time`. */
export function isPerfTimeKey(key: string): boolean {
  return key.startsWith(PERF_TIME_PREFIX) && key.endsWith(PERF_TIME_SUFFIX);
}

/**
 * slime's trainer timers nest (read from slime's timer use; the sample follows it):
 * `step_time` = `train_wait_time` + `train_time`, and `train_time` contains `data_preprocess_time`,
 * `log_probs_time`, `ref_log_probs_time` and `actor_train_time`. Stacking a container with its parts
 * counts time twice.
 */
export const PERF_TIME_CONTAINERS: Readonly<Record<string, readonly string[]>> = {
  "perf/step_time": ["perf/train_wait_time", "perf/train_time"],
  "perf/train_time": ["perf/data_preprocess_time", "perf/log_probs_time", "perf/ref_log_probs_time", "perf/actor_train_time"],
};

/**
 * True for timers that can be stacked into "where a trainer step's time goes": trainer timers that
 * are not containers. `perf/rollout_time` is the rollout manager's and overlaps `train_wait_time`.
 */
export function isStackableTimer(key: string): boolean {
  return isPerfTimeKey(key) && !(key in PERF_TIME_CONTAINERS) && key !== METRICS.rolloutTime.key;
}
