/**
 * slime's metric specs: its keys, what they are averaged over, and what they do and do not mean
 * (the spec's shape is the registry's, lib/registry/metric-spec.ts). slime's profile
 * (lib/registry/profile-slime.ts) maps the registry's concepts to them; slime's row kinds, step keys
 * and timer nesting read them too.
 * Source: docs/slime-logging.md (what slime logs, by version) and docs/reference-analysis.md.
 */
import type { KeyAlias, MetricGrain, MetricSpec } from "../registry/metric-spec";

/** Step keys slime declares with `wandb.define_metric`. `_step` is none of them. */
export const STEP_KEYS = {
  rollout: "rollout/step",
  train: "train/step",
  /** Also for evals: slime evaluates before training at the first rollout id and after training rollout r (eval/step = r), so it can repeat. */
  eval: "eval/step",
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
    isNot:
      "not the objective (entropy_coef defaults to 0); lower entropy proves neither better calibration, nor broader competence, nor less semantic diversity",
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
    is: "gradient norm returned by the optimizer step (the total norm before clipping, when clip_grad > 0)",
    isNot:
      "an exact 0 is not by itself evidence of a bug or of convergence: with clip_grad > 0 it follows when every sample of the step has zero advantage (e.g. all groups had equal rewards); with --clip-grad 0 Megatron reports 0 on every step; NaN when inf/nan gradients are not checked; the cause needs the admitted minibatch advantages and optimizer state",
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
    aliases: [
      {
        key: "train/train_rollout_logprob_diff",
        until: "2025-10-27",
        note: "the signed difference (trainer - engine) of slime before 2025-10-27: positive and negative tokens cancel, so its mean is at most, and usually well below, the mean absolute difference",
      },
    ],
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
    is: "wall time of one rollout batch on the rollout manager: generation plus reward computation, dynamic-filter over-sampling and aborts",
    isNot: "not generation time alone; describes one machine and its scheduling; summing it misses validation, start-up and idle time",
  }),
} as const;

export type MetricRole = keyof typeof METRICS;

/** Look a metric up by its W&B key (or an older alias of it); undefined when the schema does not describe it. */
export function metricByKey(key: string): MetricSpec | undefined {
  for (const spec of Object.values(METRICS) as MetricSpec[]) {
    if (spec.key === key) return spec;
    if (spec.aliases?.some((a) => a.key === key)) return spec;
  }
  return undefined;
}

/**
 * Keys renamed between slime versions that are not round-table metrics: read as their current key
 * wherever that key is looked up, with the note (docs/slime-logging.md, key changes by date).
 */
export const KEY_ALIASES: Readonly<Record<string, KeyAlias>> = {
  "perf/step_time": { key: "perf/total_train_time", until: "2025-10-30", note: "the same container (train_wait + train) under its name before 2025-10-30" },
  "rollout/spec_accept_rate": { key: "rollout/rollout/spec_accept_rate", until: "2026-01-04", note: "double-prefixed name of 2025-11-13..2026-01-04" },
  "rollout/spec_accept_length": { key: "rollout/rollout/spec_accept_length", until: "2026-01-04", note: "double-prefixed name of 2025-11-13..2026-01-04" },
};

/** Every key that stands for `key` in some slime version, the current key first. */
export function keysFor(key: string): string[] {
  const out = [key];
  const spec = metricByKey(key);
  if (spec?.key === key) for (const a of spec.aliases ?? []) out.push(a.key);
  const renamed = KEY_ALIASES[key];
  if (renamed) out.push(renamed.key);
  return out;
}

/** The alias entry of an old key (e.g. train/train_rollout_logprob_diff), or undefined. */
export function aliasOf(oldKey: string): { current: string; alias: KeyAlias } | undefined {
  for (const spec of Object.values(METRICS) as MetricSpec[]) {
    const a = spec.aliases?.find((x) => x.key === oldKey);
    if (a) return { current: spec.key, alias: a };
  }
  for (const [current, alias] of Object.entries(KEY_ALIASES)) if (alias.key === oldKey) return { current, alias };
  return undefined;
}

/** A record's value of a metric key: the key itself, else the first older alias present; undefined when none was logged. */
export function valueOfKeys(values: Record<string, number>, keys: readonly string[]): number | undefined {
  for (let i = 0; i < keys.length; i++) {
    const v = values[keys[i]];
    if (v !== undefined) return v;
  }
  return undefined;
}

/** Prefix of slime's per-phase timers on the trainer perf row and rollout-manager row. */
export const PERF_TIME_PREFIX = "perf/";
export const PERF_TIME_SUFFIX = "_time";

/**
 * `perf/*_time` keys that are not phase timers: per-sample statistics of the rollout manager
 * (multi-turn or tool-using rollouts). Never stacked or summed.
 */
export const NOT_TIMERS: ReadonlySet<string> = new Set(["perf/longest_sample_non_generation_time", "perf/longest_effective_sample_non_generation_time"]);

/** True for slime's phase timers (`perf/*_time` but not NOT_TIMERS), e.g. `perf/actor_train_time`. */
export function isPerfTimeKey(key: string): boolean {
  return key.startsWith(PERF_TIME_PREFIX) && key.endsWith(PERF_TIME_SUFFIX) && !NOT_TIMERS.has(key);
}

/**
 * slime's trainer timers nest (slime's actor: data_preprocess runs before
 * `with inverse_timer("train_wait"), timer("train")`; save_model and update_weights run between
 * train blocks, so they land in the next batch's train_wait):
 * - `step_time` (named `total_train_time` before 2025-10-30) = `train_wait_time` + `train_time`;
 * - `train_wait_time` contains `data_preprocess`, `wake_up`, `sleep`, `save_model`, `update_weights`,
 *   `ref_model_update` (the last four from the previous batch) and the wait for generation;
 * - `train_time` contains `ref_log_probs`, `teacher_log_probs`, `log_probs`, `actor_train`, plus untimed
 *   advantage and logging work.
 * Stacking a container with its parts counts time twice.
 */
export const PERF_TIME_CONTAINERS: Readonly<Record<string, readonly string[]>> = {
  "perf/step_time": ["perf/train_wait_time", "perf/train_time"],
  "perf/total_train_time": ["perf/train_wait_time", "perf/train_time"],
  "perf/train_wait_time": [
    "perf/data_preprocess_time",
    "perf/wake_up_time",
    "perf/sleep_time",
    "perf/save_model_time",
    "perf/update_weights_time",
    "perf/ref_model_update_time",
  ],
  "perf/train_time": ["perf/ref_log_probs_time", "perf/teacher_log_probs_time", "perf/log_probs_time", "perf/actor_train_time"],
};

/** The container a timer is part of (e.g. perf/actor_train_time -> perf/train_time), or undefined. */
export function timerParent(key: string): string | undefined {
  for (const [parent, parts] of Object.entries(PERF_TIME_CONTAINERS)) if (parent !== "perf/total_train_time" && parts.includes(key)) return parent;
  return undefined;
}

/**
 * True for the timers stacked into "where a trainer step's time goes" without double counting:
 * `train_wait_time` whole (its parts are mostly time spent waiting, and some of them are logged only
 * at checkpoints) and the parts of `train_time`; the figure adds the untimed rest of `train_time`, so
 * the stack adds up to `step_time`. `perf/rollout_time` is the rollout manager's and overlaps
 * `train_wait_time`; the parts of `train_wait_time` are shown in the table, not stacked.
 */
export function isStackableTimer(key: string): boolean {
  return key === "perf/train_wait_time" || PERF_TIME_CONTAINERS["perf/train_time"].includes(key);
}
