/**
 * miles (radixark/miles), slime's production fork: the same W&B writers, step keys and rows per
 * rollout batch as slime (so slime's aligner reads it), with keys slime does not log and a few
 * meanings that differ. This file is the one place where miles' keys and their meaning are written;
 * what it shares with slime it takes from slime's profile, never by copy.
 * Source: docs/framework-profiles.md, section "miles" (file:line references into miles at 31f1ca9).
 */
import type { ConceptId } from "./concepts";
import type { AbsentConcept, FrameworkProfile } from "./framework-profile";
import type { ConceptMetric, MetricSpec } from "./metric-spec";
import { SLIME_BATCH_KEYS, SLIME_PROFILE } from "./profile-slime";
import { mismatchMetricsOf, type MismatchSpec } from "./mismatch";

/** slime's metric of a concept, for the concepts miles computes and logs exactly as slime does. */
function asSlime(concept: ConceptId): ConceptMetric {
  const m: ConceptMetric | AbsentConcept = SLIME_PROFILE.metrics[concept];
  if ("absent" in m) throw new Error(`invalid concept: slime logs no ${concept}`);
  return m;
}

/** miles' metrics whose meaning differs from slime's (losses.py, model.py, log_utils.py). */
const MILES_OWN_METRICS = {
  entropy: {
    key: "train/entropy_loss",
    grain: "update",
    is: "mean token entropy of the policy on the training batch, computed only with entropy_coef != 0 or --observe-training-entropy (losses.py:113)",
    isNot:
      "with entropy_coef = 0 (the default) and without --observe-training-entropy miles logs an exact 0 on every update (losses.py:303): entropy not computed, not a collapsed policy; lower entropy proves neither better calibration nor less diversity",
  },
  gradNorm: {
    key: "train/grad_norm",
    grain: "update",
    is: "global gradient L2 norm before clipping (log_utils.py:511), as Megatron's optimizer step returns it; under multi-LoRA the largest adapter's norm",
    isNot:
      "an exact 0 is not by itself a zero gradient: miles logs 0.0 when the optimizer is disabled, and with --no-check-for-nan-in-loss-and-grad when inf gradients made it skip the step (model.py:573); an all-zero-advantage step also gives 0; a training attempt discarded by fault tolerance logs no row",
  },
  logprobGap: {
    key: "train/train_rollout_logprob_abs_diff",
    grain: "update",
    is: "mean |old log-prob - inference-engine log-prob| over the update's tokens, where old log-probs are the trainer's scoring before the update (losses.py:340)",
    isNot:
      "not a quality measure of the policy; with --use-rollout-logprobs the old log-probs are the engine's, so it is 0 by construction (slime compares the updating policy there); not train/train_rollout_kl, a KL estimate of the same mismatch",
    aliases: [
      {
        key: "train/train_rollout_logprob_diff",
        until: "2025-10-26",
        note: "the signed difference (trainer - engine) miles logged before 2025-10-26 (commit a5c7b33): positive and negative tokens cancel, so its mean is at most, and usually well below, the mean absolute difference",
      },
    ],
  },
  stepTime: {
    ...asSlime("stepTime"),
    aliases: [
      {
        key: "perf/total_train_time",
        until: "2025-10-29",
        note: "the same container (train_wait + train) under its name before miles' rename of 2025-10-29 (commit 26695d7)",
      },
    ],
  },
} as const satisfies Record<string, ConceptMetric>;

/** miles metrics of no concept that notebooks describe: slime's (loss, pg_loss), then miles' own. */
const MILES_OTHER_METRICS: Readonly<Record<string, MetricSpec>> = {
  ...SLIME_PROFILE.otherMetrics,
  trainRolloutKl: {
    key: "train/train_rollout_kl",
    label: "KL(rollout || train)",
    unit: "nats/token",
    grain: "update",
    is: "k3 estimate of KL(inference engine || trainer) at the sampled tokens, per-token log-ratio and estimate clamped (losses.py:354, math_utils.py compute_approx_kl low_var_kl)",
    isNot:
      "not the KL to the reference model (train/kl_loss) and not ppo_kl (old vs updated policy): it measures the engine/trainer mismatch before the update, 0 by construction with --use-rollout-logprobs",
  },
  essRatio: {
    key: "train/ess_ratio",
    grain: "update",
    label: "ESS ratio",
    unit: "fraction",
    is: "mean over the update's samples of (sum w)^2 / (n * sum w^2) with per-token w = pi_new / pi_old = exp(-ppo_kl): 1 when the update has not moved the policy (math_utils.py compute_ess_ratio_contribution)",
    isNot: "not about the inference engine (TIS/MIS metrics are): it is the policy-ratio weights of the PPO update, ~1 on the first update after a rollout",
  },
  tis: {
    key: "train/tis",
    label: "TIS ratio",
    unit: "ratio",
    grain: "update",
    is: "mean exp(old log-prob - engine log-prob) before truncation, with --use-tis or --get-mismatch-metrics (corrections.py:22)",
    isNot: "not the weight applied to the loss (that is clamped to [tis_clip_low, tis_clip]); absent without --use-tis / --get-mismatch-metrics",
  },
  tisClipfrac: {
    key: "train/tis_clipfrac",
    label: "TIS clip fraction",
    unit: "fraction of tokens",
    grain: "update",
    is: "fraction of tokens whose TIS weight was clamped (corrections.py:25)",
    isNot: "not the PPO clip fraction (train/pg_clipfrac)",
  },
  actorTrainMfu: {
    key: "perf/actor_train_mfu",
    label: "actor MFU",
    unit: "fraction",
    grain: "rollout",
    is: "actor training TFLOPS per GPU (3 x forward FLOPs / actor_train time) divided by perf/mfu_peak_tflops (train_metric_utils.py:48)",
    isNot: "absent when the GPU's bf16 peak is unknown and --mfu-peak-tflops is not given; an estimate from sequence lengths, not measured FLOPs",
  },
};

/**
 * `perf/*_time` keys that are not phase timers: slime's per-sample statistics, and miles' multi-LoRA
 * async rollout's `perf/fully_async/batch_wait_time` (async_rollout.py:564), a rollout-side wait.
 */
const NOT_TIMERS: ReadonlySet<string> = new Set(["perf/fully_async/batch_wait_time"]);

/** miles' phase timers: slime's (the actor's timers nest alike: actor.py:90, 400, 497, 571), less NOT_TIMERS. */
function isMilesTimer(key: string): boolean {
  return !NOT_TIMERS.has(key) && SLIME_PROFILE.timers.isTimer(key);
}

const LOSSES = "miles/backends/training_utils/loss_hub/losses.py";

/**
 * miles' mismatch keys: slime's (the same TIS functions and rollout rows: loss_hub/corrections.py,
 * log_utils.py), with its own abs diff (the trainer's scoring, 0 with --use-rollout-logprobs) and
 * its k3 KL train/train_rollout_kl; train/ess_ratio is the PPO ratio's, not the correction's.
 */
const MILES_MISMATCH: MismatchSpec = {
  metrics: {
    ...SLIME_PROFILE.mismatch.metrics,
    absDiff: [
      {
        key: "train/train_rollout_logprob_abs_diff",
        grain: "update",
        is: "mean |old log-prob - engine log-prob|, token means per rollout averaged over the update's rollouts (losses.py:340-351); 0 by construction with --use-rollout-logprobs",
        comparable: true,
        comparability: "the reference estimator; averaged per rollout, not over all tokens",
        when: "whenever the engine returns log-probs",
        source: `${LOSSES}:340-351`,
      },
    ],
    k3Kl: [
      {
        key: "train/train_rollout_kl",
        grain: "update",
        is: "mean of r - 1 - log r, r = pi_old / pi_engine, per-token log-ratio clamped to [-10, 10] (low_var_kl), token means per rollout averaged over the update's rollouts; 0 by construction with --use-rollout-logprobs",
        comparable: true,
        comparability: "the reference estimator; the clamp changes only tokens whose log-ratio exceeds 10 in size",
        when: "whenever the engine returns log-probs",
        source: `${LOSSES}:353-360,374, loss_hub/math_utils.py compute_approx_kl`,
      },
      ...mismatchMetricsOf(SLIME_PROFILE.mismatch, "k3Kl"),
    ],
    ess: {
      absent:
        "miles logs no effective sample size of the engine-correction weights: train/ess_ratio is the ESS of the PPO update's ratio pi_new / pi_old (see look-alikes)",
    },
  },
  lookAlikes: [
    ...SLIME_PROFILE.mismatch.lookAlikes,
    {
      key: "train/ess_ratio",
      is: "(sum w)^2 / (n sum w^2) with w = pi_new / pi_old: the PPO update's policy-ratio weights, ~1 at a batch's first update; not about the inference engine",
    },
  ],
};

/**
 * The miles profile. Signature: miles logs every key of slime's signature, so detection (which counts
 * matches and refuses a tie) tells them apart only by what each signature holds. miles' holds three of
 * slime's entries, not its step keys (perf/actor_train_tok_per_s, rollout/response_len/,
 * train/pg_clipfrac), plus six keys slime never logs. A key set without those six scores for slime
 * what it scores for miles plus the step keys it holds: a slime run (which always has rollout/step) is
 * slime, whatever its version. A miles run scores 3 + m for miles against slime's 5, so it is miles
 * when it holds m >= 3 of the six (every update row has ess_ratio; rollout log-probs give
 * train_rollout_kl; GRPO-like estimators give both zero-std percentages; a GPU miles knows gives the
 * MFU pair); at m = 2 (e.g. PPO on a GPU of unknown peak) the tie is refused, and at m <= 1 it reads
 * as slime: name the profile.
 */
export const MILES_PROFILE: FrameworkProfile<"miles"> = {
  name: "miles",
  label: "miles",
  signature: [
    "perf/actor_train_tok_per_s",
    "rollout/response_len/",
    "train/pg_clipfrac",
    "train/ess_ratio",
    "train/train_rollout_kl",
    "rollout/zero_std/all_zero_percentage",
    "rollout/zero_std/all_one_percentage",
    "perf/actor_train_mfu",
    "perf/mfu_peak_tflops",
  ],
  // offload_train logs the host memory as a row of its own with rollout/step (miles' actor.py), which
  // slime's row kinds would read as a second trainer perf row of the batch.
  axis: { kind: "batch-updates", keys: SLIME_BATCH_KEYS, ownRows: [{ prefix: "perf/cpu_memory_", what: "miles' host memory after offloading the trainer" }] },
  recordNoun: SLIME_PROFILE.recordNoun,
  stepAxis: SLIME_PROFILE.stepAxis,
  recordsDescription: SLIME_PROFILE.recordsDescription,
  updates: SLIME_PROFILE.updates,
  aggregation:
    "train/* per optimizer update: token means per rollout (a rollout's samples together), averaged over the update's rollouts; rollout/* and perf/* per rollout batch",
  restart:
    "a relaunch is a new W&B run that re-logs rollouts after its checkpoint (the later logging supersedes); a training attempt discarded by fault tolerance is retried in the same run, re-logging the trainer's rollout and perf rows of that rollout (superseded the same way) but no update rows",
  metrics: {
    ...MILES_OWN_METRICS,
    clipfrac: asSlime("clipfrac"),
    ppoKl: asSlime("ppoKl"),
    klToRef: asSlime("klToRef"),
    actorTokPerS: asSlime("actorTokPerS"),
    responseLen: asSlime("responseLen"),
    responseLenMin: asSlime("responseLenMin"),
    responseLenMax: asSlime("responseLenMax"),
    truncated: asSlime("truncated"),
    rolloutTime: asSlime("rolloutTime"),
    reward: asSlime("reward"),
    zeroStdFrac: {
      absent:
        "miles logs rollout/zero_std/all_zero_percentage and all_one_percentage (percentages of groups whose rewards are all 0 or all 1), not yet read as this concept",
    },
    advantageMax: { absent: "no advantage statistic of miles is declared" },
    advantageMin: { absent: "no advantage statistic of miles is declared" },
    tokensSeen: { absent: "miles logs no cumulative token count (perf/actor_train_tok_per_s is a throughput of one batch)" },
  },
  otherMetrics: MILES_OTHER_METRICS,
  // No renamed keys: miles' history never logged slime's double-prefixed rollout/rollout/spec_* keys.
  keyAliases: {},
  keyFamilies: SLIME_PROFILE.keyFamilies,
  timers: { ...SLIME_PROFILE.timers, isTimer: isMilesTimer },
  tensorboard: SLIME_PROFILE.tensorboard,
  // miles parses slime's arguments (miles/utils/arguments.py keeps their names).
  flags: SLIME_PROFILE.flags,
  package: "miles",
  meanings: [
    // slime's, less its log-prob gap rule and its mismatch checks' reason, which differ in miles.
    ...SLIME_PROFILE.meanings.filter((m) => m.concept?.id !== "logprobGap" && m.check?.name.startsWith("mismatch_") !== true),
    {
      when: { flag: "use_rollout_logprobs", equals: true },
      concept: {
        id: "logprobGap",
        is: "0 by construction with --use-rollout-logprobs: miles compares the engine's log-probs with themselves",
        isNot: "not a measurement of the train/rollout mismatch in such a run",
      },
    },
    ...["mismatch_drift", "mismatch_resume_spike", "mismatch_growth"].map((name) => ({
      when: { flag: "use_rollout_logprobs", equals: true },
      check: {
        name,
        notApplicable:
          "with --use-rollout-logprobs miles compares the engine's log-probs with themselves: train/train_rollout_logprob_abs_diff and train/train_rollout_kl are 0 by construction, so there is no mismatch to follow",
      },
    })),
  ],
  mismatch: MILES_MISMATCH,
};
