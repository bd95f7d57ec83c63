/**
 * verl (volcengine/verl, `RayPPOTrainer.fit`): one W&B row per training step, logged with
 * `step=global_steps` (so `_step` is the global step) and `training/global_step`; a val-before-train
 * row at the starting step with val metrics only; `val-core/*`, `val-aux/*` merged into every
 * test_freq-th step's row. Actor metrics are means over the step's mini-batch updates, so single
 * optimizer updates are not observable. Sources: verl ray_trainer.py, dp_actor.py, metric_utils.py
 * (docs/framework-profiles.md).
 */
import type { ConceptMetric } from "./metric-spec";
import type { SemanticFlag } from "./semantic-flags";
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

/** verl logs its Hydra config as nested entries (checked in verl 0.9.1's own runs). */
const VERL_FLAGS: readonly SemanticFlag[] = [
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
    type: { oneOf: ["token", "sequence", "geometric"] },
    concepts: ["logprobGap"],
    checks: [],
    why: "rollout rejection sampling masks samples whose train/rollout ratio is out of bounds",
    source: "verl/trainer/config/algorithm.py",
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
      "mean token entropy of the step's batch under the policy before the update: verl 0.9.1 computes actor/entropy in the old-log-prob pass",
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
};
