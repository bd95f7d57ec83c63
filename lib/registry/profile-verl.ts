/**
 * verl (volcengine/verl, `RayPPOTrainer.fit`): one W&B row per training step, logged with
 * `step=global_steps` (so `_step` is the global step) and `training/global_step`; a val-before-train
 * row at the starting step with val metrics only; `val-core/*`, `val-aux/*` merged into every
 * test_freq-th step's row. Actor metrics are means over the step's mini-batch updates, so single
 * optimizer updates are not observable. Sources: verl ray_trainer.py, dp_actor.py, metric_utils.py
 * (docs/framework-profiles.md).
 */
import type { ConceptMetric } from "./metric-spec";
import type { FlagRule, SemanticFlag } from "./semantic-flags";
import type { MismatchSpec } from "./mismatch";
import { asLoggedStackCaption, stepRecordsDescription, type FrameworkProfile } from "./framework-profile";

const STEP = "training steps";
const perStep = (key: string, is: string, isNot: string): ConceptMetric => ({ key, grain: "rollout", is, isNot });
// timing_s/agent_loop/* are per-sample latency statistics, counts and token lengths of the agent loop,
// not phases of the step (verl 0.9.1, checked on real runs).
const isTimer = (k: string) => k.startsWith("timing_s/") && !k.startsWith("timing_s/agent_loop/");
/** The phases inside the step timer (`timing_s/testing`, `start_profile` and `stop_profile` run outside it). */
const STEP_PHASES: readonly string[] = [
  "timing_s/gen",
  "timing_s/reward",
  "timing_s/old_log_prob",
  "timing_s/ref",
  "timing_s/values",
  "timing_s/adv",
  "timing_s/update_critic",
  "timing_s/update_actor",
  "timing_s/update_weights",
  "timing_s/save_checkpoint",
];

const CONFIG = "verl/trainer/config/ppo_trainer.yaml";
/** verl 0.9.1 core_algos.agg_loss's modes (any other raises). */
const LOSS_AGG_MODES = ["token-mean", "token-sum", "seq-mean-token-sum", "seq-mean-token-sum-norm", "seq-mean-token-mean"] as const;
const ENTROPY_AGG =
  "verl 0.9.1 verl/trainer/ppo/ray_trainer.py:1588-1597 (actor/entropy = agg_loss(entropys, loss_agg_mode=actor.loss_agg_mode, loss_scale_factor=actor.loss_scale_factor)); verl/trainer/ppo/core_algos.py:1170-1204 agg_loss";

/** What actor/entropy is under each loss_agg_mode but the default token-mean. */
const ENTROPY_BY_MODE: readonly { mode: (typeof LOSS_AGG_MODES)[number]; is: string }[] = [
  {
    mode: "token-sum",
    is: "the sum of the token entropies of the step's batch (verl's token-sum aggregation), not a mean: it grows with the number of tokens",
  },
  {
    mode: "seq-mean-token-sum",
    is: "the mean over the step's sequences of each sequence's summed token entropy (seq-mean-token-sum): it grows with response length",
  },
  {
    mode: "seq-mean-token-sum-norm",
    is: "the mean over the step's sequences of each sequence's summed token entropy divided by actor.loss_scale_factor, or by the batch's padded response length when unset (seq-mean-token-sum-norm): below the token mean whenever responses are shorter than that length",
  },
  {
    mode: "seq-mean-token-mean",
    is: "the mean over the step's sequences of each sequence's mean token entropy (seq-mean-token-mean): every sequence weighs the same whatever its length",
  },
];

/** The settings that count a training step's optimizer updates: ppo_epochs x train_batch_size / ppo_mini_batch_size. */
const UPDATE_COUNT_FLAGS = ["actor_rollout_ref.actor.ppo_epochs", "actor_rollout_ref.actor.ppo_mini_batch_size", "data.train_batch_size"] as const;

/** One optimizer update per training step: one epoch over one mini-batch as large as the batch (both counted in prompts). */
const ONE_UPDATE_PER_STEP: FlagRule = {
  flags: UPDATE_COUNT_FLAGS,
  text: "actor_rollout_ref.actor.ppo_epochs = 1 and actor_rollout_ref.actor.ppo_mini_batch_size = data.train_batch_size",
  test: (v) => v[UPDATE_COUNT_FLAGS[0]] === 1 && v[UPDATE_COUNT_FLAGS[1]] !== undefined && v[UPDATE_COUNT_FLAGS[1]] === v[UPDATE_COUNT_FLAGS[2]],
};

/** verl logs its Hydra config as nested entries (checked in verl 0.9.1's own runs). */
const VERL_FLAGS: readonly SemanticFlag[] = [
  ...UPDATE_COUNT_FLAGS.map(
    (name): SemanticFlag => ({
      name,
      type: "number",
      concepts: [],
      checks: ["ppo_kl_first_update", "ppo_kl_stuck_zero", "logprob_gap_jump"],
      why: "with the others, the optimizer updates of a training step (ppo_epochs x train_batch_size / ppo_mini_batch_size): exactly one, and actor/* are that update's, at its batch's first position",
      source: name.startsWith("data.") ? "verl/trainer/config/data/legacy_data.yaml" : "verl/trainer/config/actor/actor.yaml",
    }),
  ),
  {
    name: "actor_rollout_ref.actor.use_dynamic_bsz",
    type: "bool",
    concepts: ["entropy"],
    checks: [],
    why: "verl up to 0.4 reported entropy differently with dynamic batch size (thunlp/JustRL#5)",
    source: CONFIG,
  },
  {
    name: "algorithm.adv_estimator",
    type: {
      oneOf: [
        "gae",
        "grpo",
        "reinforce_plus_plus",
        "reinforce_plus_plus_baseline",
        "remax",
        "rloo",
        "opo",
        "grpo_passk",
        "gpg",
        "rloo_vectorized",
        "grpo_vectorized",
        "optimal_token_baseline",
        "tir_optimal_token_baseline",
        "gdpo",
      ],
    },
    concepts: [],
    checks: [],
    why: "the advantage estimator (verl/trainer/ppo/core_algos.py AdvantageEstimator): what the rewards are normalised against",
    source: "verl/trainer/ppo/core_algos.py",
  },
  {
    name: "algorithm.rollout_correction.rollout_is",
    type: { oneOf: ["token", "sequence"] },
    concepts: ["logprobGap"],
    checks: [],
    why: "rollout importance sampling corrects the loss for the train/rollout mismatch (rollout_corr/* logged)",
    source: "verl/trainer/config/algorithm.py",
  },
  {
    name: "algorithm.rollout_correction.rollout_rs",
    // verl 0.9.1 RolloutCorrectionConfig: a comma-delimited list of canonical modes.
    type: {
      listOf: [
        "token_k1",
        "token_k2",
        "token_k3",
        "seq_sum_k1",
        "seq_sum_k2",
        "seq_sum_k3",
        "seq_mean_k1",
        "seq_mean_k2",
        "seq_mean_k3",
        "seq_max_k2",
        "seq_max_k3",
      ],
    },
    concepts: ["logprobGap"],
    checks: [],
    why: "rollout rejection sampling masks samples whose train/rollout ratio is out of bounds",
    source: "verl/trainer/config/algorithm.py",
  },
  {
    name: "actor_rollout_ref.actor.loss_agg_mode",
    type: { oneOf: LOSS_AGG_MODES },
    concepts: ["entropy"],
    checks: [],
    why: "verl aggregates actor/entropy with the actor's loss_agg_mode: only token-mean (the default) gives the mean token entropy",
    source: "verl/trainer/config/actor/actor.yaml",
  },
  { name: "actor_rollout_ref.actor.use_kl_loss", type: "bool", concepts: ["klToRef"], checks: [], why: "actor/kl_loss is logged only with it", source: CONFIG },
  {
    name: "trainer.use_v1",
    type: "bool",
    concepts: ["truncated"],
    checks: ["truncation_surge"],
    why: "in the V1 trainer response_length/clip_ratio counts responses as long as the batch's longest, not those cut at the configured limit",
    source: CONFIG,
  },
];

const CORR = "verl/trainer/ppo/rollout_corr_helper.py";
const OFF_POLICY =
  "whenever the rollout returns log-probs (compute_offpolicy_metrics runs with every rollout correction config, and without one in verl 0.9.1's trainer)";
const WITH_IS = "with algorithm.rollout_correction.rollout_is set";
const STEP_TOKENS = "over the step's response tokens";

/** verl 0.9.1's rollout_corr/* keys (rollout_corr_helper.py; checked in its own runs, test/fixtures/real-runs/verl). */
const VERL_MISMATCH: MismatchSpec = {
  metrics: {
    absDiff: [
      {
        key: "rollout_corr/log_ppl_abs_diff",
        grain: "rollout",
        is: "mean over the step's sequences of |engine mean log-prob - trainer mean log-prob| of the sequence",
        comparable: false,
        comparability:
          "another estimator: the absolute value of a per-sequence mean difference, so token differences of opposite sign cancel inside a sequence; at most the token mean |difference|, often far below it",
        when: OFF_POLICY,
        source: `${CORR} compute_offpolicy_metrics`,
      },
    ],
    signedGap: [
      {
        key: "rollout_corr/kl",
        grain: "rollout",
        is: `mean of (engine log-prob - old log-prob) ${STEP_TOKENS}`,
        comparable: true,
        comparability: "the reference estimator, a plain token mean over the step",
        when: OFF_POLICY,
        source: `${CORR} compute_offpolicy_metrics`,
      },
      {
        key: "rollout_corr/log_ppl_diff",
        grain: "rollout",
        is: "mean over the step's sequences of (engine mean log-prob - trainer mean log-prob) of the sequence",
        comparable: true,
        comparability: "the reference estimator averaged per sequence (each sequence weighs the same, whatever its length)",
        when: OFF_POLICY,
        source: `${CORR} compute_offpolicy_metrics`,
      },
    ],
    k3Kl: [
      {
        key: "rollout_corr/k3_kl",
        grain: "rollout",
        is: `mean of r - 1 - log r, r = pi_old / pi_engine, ${STEP_TOKENS}`,
        comparable: true,
        comparability: "the reference estimator, a plain token mean over the step",
        when: OFF_POLICY,
        source: `${CORR} compute_offpolicy_metrics`,
      },
    ],
    isRatioMean: [
      {
        key: "rollout_corr/rollout_is_mean",
        grain: "rollout",
        stage: "applied",
        is: `mean of the applied weights ${STEP_TOKENS}: truncated at the upper threshold (TIS) or zeroed outside the bounds (icepop)`,
        comparable: false,
        comparability: "the weights after truncation or mask, not the raw ratio: below the raw mean whenever a weight was cut",
        when: WITH_IS,
        source: `${CORR} compute_is_metrics`,
      },
    ],
    isRatioAbsDev: { absent: "verl logs no mean |ratio - 1| (rollout_corr/rollout_is_std is the applied weights' spread)" },
    isRatioMax: [
      {
        key: "rollout_corr/rollout_is_max",
        grain: "rollout",
        stage: "applied",
        is: "largest applied weight of the step (token level), or largest raw sequence ratio (sequence level)",
        comparable: false,
        comparability: "at token level the weights after truncation, capped at the threshold; not the raw largest ratio",
        when: WITH_IS,
        source: `${CORR} compute_is_metrics`,
      },
    ],
    isRatioMin: [
      {
        key: "rollout_corr/rollout_is_min",
        grain: "rollout",
        stage: "applied",
        is: "smallest applied weight of the step (token level), or smallest raw sequence ratio (sequence level)",
        comparable: false,
        comparability: "at token level the weights after truncation or mask (icepop zeroes), not the raw smallest ratio",
        when: WITH_IS,
        source: `${CORR} compute_is_metrics`,
      },
    ],
    ess: [
      {
        key: "rollout_corr/rollout_is_eff_sample_size",
        grain: "rollout",
        stage: "applied",
        is: `1 / mean((w / mean w)^2) ${STEP_TOKENS}, w the weights clamped to [0, threshold]: (sum w)^2 / (n sum w^2)`,
        comparable: true,
        comparability: "the reference estimator over the applied weights",
        when: WITH_IS,
        source: `${CORR} compute_is_metrics`,
      },
    ],
    correctedFraction: [
      {
        key: "rollout_corr/rollout_is_ratio_fraction_high",
        grain: "rollout",
        is: "fraction of the step's tokens (sequences at sequence level) whose raw ratio exceeds the upper threshold: truncated by TIS",
        comparable: true,
        comparability:
          "the reference estimator for truncation at the upper bound; icepop also zeroes those below the lower bound (rollout_corr/rollout_is_ratio_fraction_low)",
        when: WITH_IS,
        source: `${CORR} compute_is_metrics`,
      },
      {
        key: "rollout_corr/rollout_rs_masked_fraction",
        grain: "rollout",
        is: "fraction of the step's tokens rejection sampling masked out of the loss",
        comparable: true,
        comparability: "the reference estimator for masking",
        when: "with algorithm.rollout_correction.rollout_rs set",
        source: `${CORR} compute_rollout_rejection_mask`,
      },
    ],
  },
  lookAlikes: [
    {
      key: "training/rollout_probs_diff_mean",
      is: "mean |p_trainer - p_engine| of token probabilities, not log-probs (verl/utils/debug/metrics.py calculate_debug_metrics): small for unlikely tokens whatever their log-prob gap",
    },
    {
      key: "rollout_corr/chi2_token",
      is: "E[rho^2] - 1 of the raw token ratios: 1 / (1 + chi2_token) is the effective sample size of the untruncated weights, not shown as one",
    },
  ],
};

/** The verl profile. */
export const VERL_PROFILE: FrameworkProfile<"verl"> = {
  name: "verl",
  label: "verl",
  signature: ["training/global_step", "actor/", "timing_s/", "response_length/", "critic/score/"],
  axis: {
    kind: "step",
    stepKey: "training/global_step",
    evalPrefixes: ["val-core/", "val-aux/"],
    stepKeys: ["training/global_step", "training/epoch"],
    summaryKeys: [],
    ownRows: [],
  },
  recordNoun: STEP,
  recordsDescription: stepRecordsDescription(STEP, "training/global_step"),
  stepAxis: "training/global_step (= W&B _step: verl logs with step=global_steps), one row per training step (one rollout batch)",
  updates: {
    observable: false,
    note: "verl logs one row per training step with actor metrics averaged over its mini-batch updates: single updates and their positions are averaged away",
    keyPrefix: null,
    criticPrefix: null,
    onePerRecord: {
      when: { rule: ONE_UPDATE_PER_STEP },
      evidence:
        "verl 0.9.1 trainer/ppo/ray_trainer.py _update_actor: mini_batch_size = ppo_mini_batch_size x rollout.n, epochs = ppo_epochs; workers/engine_workers.py train_mini_batch: one optimizer step per mini-batch, train_batch_size x rollout.n / mini_batch_size x epochs of them",
    },
  },
  aggregation: "actor/* are means over the step's mini-batches (ppo_epochs x train_batch_size / ppo_mini_batch_size optimizer steps, 4 by default)",
  restart:
    "a new W&B run that continues global_steps from its checkpoint: it re-logs the steps after the checkpoint (the later run supersedes) and logs a val-before-train row at the checkpoint step",
  tensorboard: {
    // verl's Tracking tensorboard backend: add_scalar(k, v, step) with step=global_steps, the same dict W&B gets.
    step: "global_steps (training steps), the step verl passes to every backend; the training/global_step tag holds it too",
    stepKey: "training/global_step",
    separateCalls: [],
  },
  metrics: {
    entropy: perStep(
      "actor/entropy",
      "mean token entropy of the step's batch under the policy before the update (actor.loss_agg_mode token-mean, verl's default: other modes aggregate it otherwise): verl 0.9.1 computes actor/entropy in the old-log-prob pass",
      "not the entropy during or after the update (that is actor/entropy_loss, logged when the update computes entropy); not per optimizer update; not slime's per-update entropy_loss",
    ),
    clipfrac: perStep(
      "actor/pg_clipfrac",
      "mean over the step's mini-batches of the fraction of tokens where the clipped surrogate is active",
      "not per update; the dual-clip lower fraction is actor/pg_clipfrac_lower",
    ),
    gradNorm: perStep(
      "actor/grad_norm",
      "mean over the step's mini-batch optimizer steps of the pre-clip gradient norm",
      "not a single update's norm: an exact 0 in one mini-batch is averaged away, so zero-gradient updates cannot be listed",
    ),
    ppoKl: perStep(
      "actor/ppo_kl",
      "mean over the step's mini-batches of old_logp - new_logp",
      "positions inside the step are averaged away: the ~0 of a batch's first update cannot be checked",
    ),
    klToRef: perStep("actor/kl_loss", "KL loss against the reference model (only with use_kl_loss)", "not ppo_kl"),
    logprobGap: {
      absent: "verl logs training/rollout_probs_diff_* (a difference of probabilities) and rollout_corr/* (KL-type measures), not a mean |log-prob difference|",
    },
    responseLen: perStep("response_length/mean", "mean response length of the step's batch", "not per episode"),
    responseLenMin: perStep("response_length/min", "shortest response of the step's batch", "not per episode"),
    responseLenMax: perStep("response_length/max", "longest response of the step's batch", "not per episode"),
    truncated: perStep(
      "response_length/clip_ratio",
      "fraction of the step's responses that reached the maximum response length",
      "not an episode failure rate",
    ),
    rolloutTime: perStep("timing_s/gen", "wall time of the step's generation phase", "describes one machine and its scheduling"),
    actorTokPerS: { absent: "perf/throughput is tokens per GPU-second of the whole step, not actor training throughput" },
    stepTime: perStep("timing_s/step", "wall time of the whole training step", "includes generation, reward and all training phases"),
    reward: perStep(
      "critic/score/mean",
      "mean over the step's sequences of the sequence score (token_level_scores summed), as the reward function or model returned it (compute_data_metrics)",
      "defined by the run's reward function: not comparable across reward functions; not critic/rewards/mean, which has the in-reward KL penalty subtracted",
    ),
    zeroStdFrac: {
      absent: "verl logs no per-group reward spread; critic/advantages/max and /min (both exactly 0) say when no group carries signal",
    },
    advantageMax: perStep(
      "critic/advantages/max",
      "largest token advantage of the step's batch (compute_data_metrics, over response tokens)",
      "not a per-sample mean",
    ),
    advantageMin: perStep(
      "critic/advantages/min",
      "smallest token advantage of the step's batch (compute_data_metrics, over response tokens)",
      "not a per-sample mean",
    ),
    tokensSeen: {
      absent:
        "perf/total_num_tokens counts the tokens of one step's batch, not the tokens seen so far (verl/trainer/ppo/metric_utils.py compute_throughout_metrics)",
    },
  },
  otherMetrics: {},
  keyAliases: {},
  keyFamilies: [],
  flags: VERL_FLAGS,
  package: "verl",
  meanings: [
    {
      when: { flag: "actor_rollout_ref.actor.use_dynamic_bsz", equals: true, version: { package: "verl", below: "0.4.1" } },
      concept: {
        id: "entropy",
        is: "with dynamic batch size, verl 0.4.0 and earlier did not put the old-log-prob pass's entropies back in sample order before masking them, so actor/entropy mixes tokens of other responses",
        isNot: "not the policy's mean token entropy; not comparable with later verl or with runs without dynamic batch size",
      },
      evidence: "thunlp/JustRL#5",
    },
    ...ENTROPY_BY_MODE.map(({ mode, is }) => ({
      when: { flag: "actor_rollout_ref.actor.loss_agg_mode", equals: mode },
      concept: {
        id: "entropy" as const,
        is: `${is}; computed in the old-log-prob pass, before the update`,
        isNot: "not the mean token entropy (loss_agg_mode token-mean): not comparable with runs under another loss_agg_mode",
      },
      evidence: ENTROPY_AGG,
    })),
    {
      when: { flag: "trainer.use_v1", equals: true },
      concept: {
        id: "truncated",
        is: "fraction of the step's responses as long as the batch's longest response (verl's V1 trainer)",
        isNot: "not the fraction cut at the configured maximum length: in V1 a batch whose longest response is short counts it as clipped",
      },
    },
    {
      when: { flag: "trainer.use_v1", equals: true },
      check: {
        name: "truncation_surge",
        notApplicable: "verl's V1 trainer counts responses as long as the batch's longest as clipped, not those cut at the limit",
      },
    },
  ],
  timers: {
    isTimer,
    containers: { "timing_s/step": STEP_PHASES },
    // Only the step's phases add up to a bar no longer than the step.
    stackable: (k) => STEP_PHASES.includes(k),
    separateTimer: null,
    remainderOf: null,
    stepSum: null,
    shortName: (k) => k,
    stackCaption: asLoggedStackCaption(STEP),
  },
  mismatch: VERL_MISMATCH,
};
