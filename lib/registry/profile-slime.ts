/**
 * slime (THUDM/slime): rollout/step and train/step, N optimizer updates per rollout batch, every
 * update its own row. This file is the one place where slime's keys and their meaning are written:
 * its step keys, metric specs, renamed keys and timer nesting.
 * Source: docs/slime-logging.md (what slime logs, by version) and docs/reference-analysis.md.
 */
import type { ConceptMetric, KeyAlias, KeyFamily, MetricSpec } from "./metric-spec";
import type { BatchStepKeys, FrameworkProfile } from "./framework-profile";
import type { ConditionalMeaning, SemanticFlag } from "./semantic-flags";
import type { MismatchSpec } from "./mismatch";

/** Step keys slime declares with `wandb.define_metric`. `_step` is none of them. */
export const STEP_KEYS = {
  rollout: "rollout/step",
  train: "train/step",
  /** Also for evals: slime evaluates before training at the first rollout id and after training rollout r (eval/step = r), so it can repeat. */
  eval: "eval/step",
} as const;

/** slime's step keys as its batch-and-updates axis declares them (miles logs the same). */
export const SLIME_BATCH_KEYS: BatchStepKeys = { rollout: STEP_KEYS.rollout, update: STEP_KEYS.train, eval: STEP_KEYS.eval };

/** Key families by prefix and the step key they are plotted against. */
const KEY_FAMILIES: readonly KeyFamily[] = [
  { prefix: "train/", stepKey: STEP_KEYS.train, grain: "update" },
  { prefix: "rollout/", stepKey: STEP_KEYS.rollout, grain: "rollout" },
  { prefix: "perf/", stepKey: STEP_KEYS.rollout, grain: "rollout" },
  { prefix: "multi_turn/", stepKey: STEP_KEYS.rollout, grain: "rollout" },
  { prefix: "passrate/", stepKey: STEP_KEYS.rollout, grain: "rollout" },
  { prefix: "eval/", stepKey: STEP_KEYS.eval, grain: "rollout" },
];

/** slime's metrics of the registry's concepts (labels and units are the concepts'). */
const SLIME_CONCEPT_METRICS = {
  entropy: {
    key: "train/entropy_loss",
    grain: "update",
    is: "mean token entropy of the policy on the training batch (per-sample token mean, then mean over the samples of the optimizer step)",
    isNot:
      "not the objective (entropy_coef defaults to 0); lower entropy proves neither better calibration, nor broader competence, nor less semantic diversity",
  },
  clipfrac: {
    key: "train/pg_clipfrac",
    grain: "update",
    is: "fraction of tokens where the clipped PPO surrogate is active",
    isNot: "not a measure of how far the policy moved from the initial model",
  },
  gradNorm: {
    key: "train/grad_norm",
    grain: "update",
    is: "gradient norm returned by the optimizer step (the total norm before clipping, when clip_grad > 0)",
    isNot:
      "an exact 0 is not by itself evidence of a bug or of convergence: with clip_grad > 0 it follows when every sample of the step has zero advantage (e.g. all groups had equal rewards); with --clip-grad 0 Megatron reports 0 on every step; NaN when inf/nan gradients are not checked; the cause needs the admitted minibatch advantages and optimizer state",
  },
  ppoKl: {
    key: "train/ppo_kl",
    grain: "update",
    is: "mean of old_logp - new_logp over tokens: the policy-ratio log; ~0 on the first update after a rollout, non-zero on later updates",
    isNot: "not the divergence from the initial or reference model; read it with the update position inside the batch in view",
  },
  logprobGap: {
    key: "train/train_rollout_logprob_abs_diff",
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
  },
  actorTokPerS: {
    key: "perf/actor_train_tok_per_s",
    grain: "rollout",
    is: "prompt+response tokens of the whole rollout divided by actor train time, cluster-wide",
    isNot: "not per GPU, and not generation throughput",
  },
  responseLen: {
    key: "rollout/response_len/mean",
    grain: "rollout",
    is: "mean effective (loss-masked) response length of the samples admitted for training",
    isNot: "not total generation per episode: a multi-turn episode can be split into several samples",
  },
  responseLenMin: {
    key: "rollout/response_len/min",
    grain: "rollout",
    is: "shortest admitted sample's effective response length in the batch",
    isNot: "not per episode",
  },
  responseLenMax: {
    key: "rollout/response_len/max",
    grain: "rollout",
    is: "longest admitted sample's effective response length in the batch",
    isNot: "not per episode",
  },
  truncated: {
    key: "rollout/truncated_ratio",
    grain: "rollout",
    is: "fraction of admitted samples with status TRUNCATED (hit the length limit)",
    isNot: "not an episode failure rate; aborted and filtered samples are excluded",
  },
  rolloutTime: {
    key: "perf/rollout_time",
    grain: "rollout",
    is: "wall time of one rollout batch on the rollout manager: generation plus reward computation, dynamic-filter over-sampling and aborts",
    isNot: "not generation time alone; describes one machine and its scheduling; summing it misses validation, start-up and idle time",
  },
} as const satisfies Record<string, ConceptMetric>;

/** slime metrics of no concept that notebooks describe. */
const SLIME_OTHER_METRICS: Readonly<Record<string, MetricSpec>> = {
  loss: {
    key: "train/loss",
    label: "loss",
    unit: "",
    grain: "update",
    is: "pg_loss - entropy_coef * entropy_loss (+ kl terms)",
    isNot: "small values are not measures of task quality under group-relative reward normalisation",
  },
  pgLoss: {
    key: "train/pg_loss",
    label: "policy-gradient loss",
    unit: "",
    grain: "update",
    is: "clipped surrogate policy-gradient loss",
    isNot: "not a measure of task quality under group-relative reward normalisation",
  },
};

/**
 * Keys renamed between slime versions that are not round-table metrics: read as their current key
 * wherever that key is looked up, with the note (docs/slime-logging.md, key changes by date).
 */
const KEY_ALIASES: Readonly<Record<string, KeyAlias>> = {
  "rollout/spec_accept_rate": { key: "rollout/rollout/spec_accept_rate", until: "2026-01-04", note: "double-prefixed name of 2025-11-13..2026-01-04" },
  "rollout/spec_accept_length": { key: "rollout/rollout/spec_accept_length", until: "2026-01-04", note: "double-prefixed name of 2025-11-13..2026-01-04" },
};

const klLoss: ConceptMetric = {
  key: "train/kl_loss",
  grain: "update",
  is: "KL loss term against the reference model (logged only with --use-kl-loss)",
  isNot: "not ppo_kl (the policy-ratio log of the update)",
};

const stepTime: ConceptMetric = {
  key: "perf/step_time",
  grain: "rollout",
  is: "trainer time of one rollout batch: train_wait + train (perf/total_train_time before 2025-10-30)",
  isNot: "not the rollout manager's generation time, which overlaps train_wait",
  aliases: [{ key: "perf/total_train_time", until: "2025-10-30", note: "the same container (train_wait + train) under its name before 2025-10-30" }],
};

/** Prefix of slime's per-phase timers on the trainer perf row and rollout-manager row. */
const PERF_TIME_PREFIX = "perf/";
const PERF_TIME_SUFFIX = "_time";

/**
 * `perf/*_time` keys that are not phase timers: per-sample statistics of the rollout manager
 * (multi-turn or tool-using rollouts). Never stacked or summed.
 */
const NOT_TIMERS: ReadonlySet<string> = new Set(["perf/longest_sample_non_generation_time", "perf/longest_effective_sample_non_generation_time"]);

/** True for slime's phase timers (`perf/*_time` but not NOT_TIMERS), e.g. `perf/actor_train_time`. */
function isPerfTimeKey(key: string): boolean {
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
const PERF_TIME_CONTAINERS: Readonly<Record<string, readonly string[]>> = {
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

/**
 * True for the timers stacked into "where a trainer step's time goes" without double counting:
 * `train_wait_time` whole (its parts are mostly time spent waiting, and some of them are logged only
 * at checkpoints) and the parts of `train_time`; the figure adds the untimed rest of `train_time`, so
 * the stack adds up to `step_time`. `perf/rollout_time` is the rollout manager's and overlaps
 * `train_wait_time`; the parts of `train_wait_time` are shown in the table, not stacked.
 */
function isStackableTimer(key: string): boolean {
  return key === "perf/train_wait_time" || PERF_TIME_CONTAINERS["perf/train_time"].includes(key);
}

/** A timer's legend name: the key without `perf/` and `_time`. */
function timerShortName(key: string): string {
  let name = key;
  if (name.startsWith(PERF_TIME_PREFIX)) name = name.slice(PERF_TIME_PREFIX.length);
  if (name.endsWith(PERF_TIME_SUFFIX) && name.length > PERF_TIME_SUFFIX.length) name = name.slice(0, -PERF_TIME_SUFFIX.length);
  return name;
}

const ARGS = "slime/utils/arguments.py";

/** slime logs its parsed arguments as the run config (slime/observability/wandb_utils.py): flat names. */
const SLIME_FLAGS: readonly SemanticFlag[] = [
  {
    name: "use_rollout_logprobs",
    type: "bool",
    concepts: ["ppoKl", "logprobGap"],
    checks: ["ppo_kl_first_update", "mismatch_drift", "mismatch_resume_spike", "mismatch_growth"],
    why: "the old log-probs are the rollout engine's: ppo_kl at a batch's first update carries the engine mismatch instead of ~0, and the log-prob gap compares the current policy with the engine",
    source: ARGS,
  },
  {
    name: "advantage_estimator",
    type: { oneOf: ["grpo", "gspo", "cispo", "reinforce_plus_plus", "reinforce_plus_plus_baseline", "ppo"] },
    concepts: [],
    checks: [],
    why: "ppo (critic runs): rollout/kl was modified in place by the reward computation until commit 045310b2b (2026-08-20), so earlier values are not the KL",
    source: ARGS,
  },
  {
    name: "use_tis",
    type: "bool",
    concepts: ["logprobGap"],
    checks: [],
    why: "truncated importance sampling corrects the loss for the train/rollout mismatch (tis* keys logged)",
    source: ARGS,
  },
  {
    name: "get_mismatch_metrics",
    type: "bool",
    concepts: ["logprobGap"],
    checks: [],
    why: "logs the train/rollout mismatch metrics without using the engine's log-probs in the loss",
    source: ARGS,
  },
  { name: "use_kl_loss", type: "bool", concepts: ["klToRef"], checks: [], why: "train/kl_loss (KL to the reference) is logged only with it", source: ARGS },
  {
    name: "kl_coef",
    type: "number",
    concepts: [],
    checks: [],
    why: "a KL penalty in the reward: rewards are not the raw task rewards when it is above 0",
    source: ARGS,
  },
  { name: "n_samples_per_prompt", type: "number", concepts: [], checks: [], why: "the group size of group-relative advantages", source: ARGS },
  {
    name: "global_batch_size",
    type: "number",
    concepts: ["ppoKl"],
    checks: [],
    why: "with the rollout batch, sets N optimizer updates per rollout batch",
    source: ARGS,
  },
  {
    name: "wandb_always_use_train_step",
    type: "bool",
    concepts: [],
    checks: [],
    why: "rollout/step and eval/step are logged as rollout_id * N (the aligner decides this from the data)",
    source: ARGS,
  },
];

const SLIME_MEANINGS: readonly ConditionalMeaning[] = [
  {
    when: { flag: "advantage_estimator", equals: "ppo" },
    key: {
      name: "rollout/kl",
      note: "with --advantage-estimator ppo (critic runs), slime before commit 045310b2b (2026-08-20) modified rollout/kl in place in the reward computation: unless the run used a later commit (the archive cannot tell), its values are not the KL; never average them as one",
    },
    evidence: "THUDM/slime#2114",
  },
  {
    when: { flag: "use_rollout_logprobs", equals: true },
    concept: {
      id: "ppoKl",
      is: "mean of old_logp - new_logp over tokens, where old_logp are the rollout engine's log-probs (--use-rollout-logprobs): at a batch's first update it is the train/rollout mismatch, not ~0",
      isNot: "not the divergence from the initial or reference model; a non-zero first-update value is the engine mismatch, not a bug",
    },
  },
  {
    when: { flag: "use_rollout_logprobs", equals: true },
    concept: {
      id: "logprobGap",
      is: "mean |trainer log-prob - inference-engine log-prob| with the engine's log-probs as the old policy (--use-rollout-logprobs): the gap of the current policy, not of the old one",
      isNot: "not a quality measure of the policy; not comparable with runs that keep the trainer's old log-probs",
    },
  },
  {
    when: { flag: "use_rollout_logprobs", equals: true },
    check: {
      name: "ppo_kl_first_update",
      notApplicable:
        "with --use-rollout-logprobs the old log-probs are the rollout engine's, so ppo_kl at a batch's first update is the engine mismatch and is expected to be non-zero",
    },
  },
  ...["mismatch_drift", "mismatch_resume_spike", "mismatch_growth"].map((name) => ({
    when: { flag: "use_rollout_logprobs", equals: true },
    check: {
      name,
      notApplicable:
        "with --use-rollout-logprobs train/train_rollout_logprob_abs_diff compares the updating policy with the engine, so its drift and jumps carry the policy's own movement over a batch's updates, not the engine mismatch alone",
    },
  })),
];

const reward: ConceptMetric = {
  key: "rollout/raw_reward",
  grain: "rollout",
  is: "mean over the rollout batch's samples of the reward as the reward model or --custom-rm-path function returned it (the trainer's log_rollout_data row)",
  isNot: "defined by the run's reward function: not comparable across reward functions; not rollout/rewards, which is after GRPO's group normalisation",
};

const LOSS = "slime/backends/megatron_utils/loss.py";
const MIS = "examples/train_infer_mismatch_helper/mis.py";
/** How slime averages train/* keys: not a plain token mean over the batch (docs/slime-logging.md). */
const SLIME_AVERAGE = "token means per sample group as slime's sum_of_sample_mean takes them, averaged over the optimizer update";
const WITH_TIS = "with --use-tis or --get-mismatch-metrics";
const WITH_MIS = "with the MIS example (--custom-tis-function-path examples/train_infer_mismatch_helper/mis.compute_mis_weights_with_cp)";
const SAME = "the reference estimator";

/** slime's train/inference mismatch keys (loss.py policy_loss_function, vanilla_tis_function, icepop_function at 624b824; mis.py). */
const SLIME_MISMATCH: MismatchSpec = {
  metrics: {
    absDiff: [
      {
        key: "train/train_rollout_logprob_abs_diff",
        grain: "update",
        is: `mean |old log-prob - engine log-prob| (with --use-rollout-logprobs: the updating policy's log-prob), ${SLIME_AVERAGE}`,
        comparable: true,
        comparability: `${SAME}; averaged per sample group, not over all tokens, so long responses weigh less than in a plain token mean`,
        when: "whenever the engine returns log-probs",
        source: `${LOSS} policy_loss_function`,
      },
    ],
    signedGap: [
      {
        key: "rollout/rollout_log_probs",
        minus: "rollout/log_probs",
        grain: "rollout",
        is: "engine log-prob mean minus trainer (old) log-prob mean of the rollout batch, both averaged with the same masks and weights, so the difference is the mean of the per-token differences",
        comparable: true,
        comparability: `${SAME}, the trainer's scoring before the batch's first update; averaged per sample group`,
        when: "whenever the trainer's rollout row logs both (log_rollout_data)",
        source: "slime/observability/train_metric_utils.py log_rollout_data (per_rollout_mean_keys)",
      },
      {
        key: "train/mis_kl",
        grain: "update",
        is: `mean of (engine log-prob - old log-prob), ${SLIME_AVERAGE}`,
        comparable: true,
        comparability: SAME,
        when: WITH_MIS,
        source: `${MIS} add_ppl_metrics`,
      },
    ],
    k3Kl: [
      {
        key: "train/mis_k3_kl",
        grain: "update",
        is: `mean of r - 1 - log r, r = pi_old / pi_engine, ${SLIME_AVERAGE}`,
        comparable: true,
        comparability: SAME,
        when: WITH_MIS,
        source: `${MIS} add_ppl_metrics`,
      },
    ],
    isRatioMean: [
      {
        key: "train/tis",
        grain: "update",
        stage: "raw",
        is: `mean of exp(old log-prob - engine log-prob) before truncation, ${SLIME_AVERAGE}`,
        comparable: true,
        comparability: SAME,
        when: WITH_TIS,
        source: `${LOSS} vanilla_tis_function, icepop_function`,
      },
    ],
    isRatioAbsDev: [
      {
        key: "train/tis_abs",
        grain: "update",
        is: `mean of |exp(old log-prob - engine log-prob) - 1|, ${SLIME_AVERAGE}`,
        comparable: true,
        comparability: SAME,
        when: WITH_TIS,
        source: `${LOSS} vanilla_tis_function`,
      },
    ],
    isRatioMax: { absent: "slime logs no largest ratio (the MIS example logs train/mis_is_ratio_max_final, of the weights after its truncation and mask)" },
    isRatioMin: { absent: "slime logs no smallest ratio (the MIS example logs train/mis_is_ratio_min_final, of the weights after its truncation and mask)" },
    ess: { absent: "slime logs no effective sample size of the correction weights" },
    correctedFraction: [
      {
        key: "train/tis_clipfrac",
        grain: "update",
        is: `fraction of tokens whose weight the correction changed: clamped to [tis_clip_low, tis_clip] (TIS) or zeroed outside it (icepop), ${SLIME_AVERAGE}`,
        comparable: true,
        comparability: `${SAME}; which tokens count depends on the correction (truncated or masked)`,
        when: WITH_TIS,
        source: `${LOSS} vanilla_tis_function, icepop_function`,
      },
    ],
  },
  lookAlikes: [
    { key: "train/ois", is: "mean exp(-ppo_kl) = pi_new / pi_old: the PPO update's policy ratio, not the engine mismatch (1 at a batch's first update)" },
    {
      key: "train/train_rollout_logprob_diff",
      is: "the signed difference (trainer - engine) slime logged before 2025-10-27 under the abs-diff name's place; read as the log-prob gap concept with a note, not as the signed gap (opposite sign)",
    },
  ],
};

/** The slime profile. */
export const SLIME_PROFILE: FrameworkProfile<"slime"> = {
  name: "slime",
  label: "slime",
  signature: ["train/step", "rollout/step", "perf/actor_train_tok_per_s", "rollout/response_len/", "train/pg_clipfrac"],
  axis: { kind: "batch-updates", keys: SLIME_BATCH_KEYS, ownRows: [] },
  recordNoun: "rollout batches",
  stepAxis:
    "rollout/step = rollout id (rollout_id * N with --wandb-always-use-train-step); train/step = rollout_id * N + step_id; _step counts logging calls of several processes",
  recordsDescription: "rollout batches (distinct rollout/step) of the round",
  updates: { observable: true, note: "one W&B row per optimizer update (train/step)", keyPrefix: "train/", criticPrefix: "train/critic-" },
  aggregation: "train/* per optimizer update (means over the update's micro-batches); rollout/* and perf/* per rollout batch",
  restart: "a new W&B run (or a run resumed in place) that re-logs rollouts after its checkpoint; the later logging supersedes",
  tensorboard: {
    // slime/utils/logging_utils.py log(args, metrics, step_key): every backend gets step = metrics[step_key].
    step: "each row's own step key: rollout/step for rollout rows, train/step for update rows, eval/step for evals; one TensorBoard step therefore merges an update and a rollout batch of different ids, which the workspace does not split apart: slime's TensorBoard runs are refused",
    stepKey: null,
    separateCalls: [],
  },
  metrics: {
    ...SLIME_CONCEPT_METRICS,
    klToRef: klLoss,
    stepTime,
    reward,
    zeroStdFrac: { absent: "no advantage or group-spread statistic of slime is declared (docs/slime-logging.md lists none)" },
    advantageMax: { absent: "no advantage or group-spread statistic of slime is declared (docs/slime-logging.md lists none)" },
    advantageMin: { absent: "no advantage or group-spread statistic of slime is declared (docs/slime-logging.md lists none)" },
    tokensSeen: { absent: "slime logs no cumulative token count (perf/actor_train_tok_per_s is a throughput of one batch)" },
  },
  otherMetrics: SLIME_OTHER_METRICS,
  keyAliases: KEY_ALIASES,
  keyFamilies: KEY_FAMILIES,
  flags: SLIME_FLAGS,
  package: "slime",
  meanings: SLIME_MEANINGS,
  timers: {
    isTimer: isPerfTimeKey,
    containers: PERF_TIME_CONTAINERS,
    stackable: isStackableTimer,
    // The rollout manager logs perf/rollout_time in rows of its own; it overlaps the trainer's wait.
    separateTimer: SLIME_CONCEPT_METRICS.rolloutTime.key,
    remainderOf: "perf/train_time",
    stepSum: { total: "perf/step_time", parts: PERF_TIME_CONTAINERS["perf/step_time"] },
    shortName: timerShortName,
    stackCaption:
      "Mean trainer time per rollout batch, by phase: train_wait (which holds data preprocessing, weight updates and checkpoint saves of the previous batch, and the wait for generation), the timers inside train, and train's untimed rest; a bar adds up to the mean step time",
  },
  mismatch: SLIME_MISMATCH,
};
