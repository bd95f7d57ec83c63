/**
 * OpenRLHF (OpenRLHF/OpenRLHF, `PPOTrainer` and `WandbLogger`): `train/global_step` declared with
 * `define_metric("train/*", step_metric="train/global_step")`, one row of `train/*` keys per training
 * step (rollout batch), `eval/*` rows with `eval/global_step`; `_step` advances per wandb.log call
 * (a samples table is a second call). The grad norm is the last optimizer step's of the batch.
 * Sources: openrlhf/trainer/ray/ppo_actor.py, ppo_trainer.py, utils/logging_utils.py
 * (docs/framework-profiles.md).
 */
import type { ConceptMetric } from "./metric-spec";
import type { ConditionalMeaning, SemanticFlag } from "./semantic-flags";
import type { MismatchSpec } from "./mismatch";
import { asLoggedStackCaption, stepRecordsDescription, type FrameworkProfile } from "./framework-profile";

const perStep = (key: string, is: string, isNot: string): ConceptMetric => ({ key, grain: "rollout", is, isNot });
const TIMING = "train/timing/";
const isTimer = (k: string) => k.startsWith(TIMING);

const CLI = "openrlhf/cli/train_ppo_ray.py";

/**
 * OpenRLHF 0.11 groups its arguments (`--algo.kl.use_loss`) and logs each group as the repr of a nested
 * argparse namespace (`algo: "namespace(advantage=namespace(...), kl=namespace(...))"`, seen in its own
 * runs): the names are dot paths into those reprs.
 */
const OPENRLHF_FLAGS: readonly SemanticFlag[] = [
  {
    name: "algo.advantage.estimator",
    type: { oneOf: ["gae", "reinforce", "rloo", "reinforce_baseline", "group_norm", "dr_grpo", "flash_reinforce"] },
    concepts: [],
    checks: [],
    why: "the advantage estimator: gae trains a critic, the others are group- or batch-relative",
    source: CLI,
  },
  {
    name: "algo.advantage.is_correction_level",
    type: { oneOf: ["off", "token", "seq"] },
    concepts: ["logprobGap"],
    checks: [],
    why: "vLLM importance-sampling correction of the train/rollout mismatch (off, per token, per sequence)",
    source: CLI,
  },
  {
    name: "algo.kl.use_loss",
    type: "bool",
    concepts: ["klToRef"],
    checks: [],
    why: "KL to the reference as a loss term instead of a reward penalty",
    source: CLI,
  },
  { name: "algo.kl.init_coef", type: "number", concepts: ["klToRef"], checks: [], why: "the KL coefficient: with 0 no KL is computed", source: CLI },
  { name: "actor.entropy_coef", type: "number", concepts: ["entropy"], checks: [], why: "train/entropy_loss is logged only when it is set", source: CLI },
  {
    name: "reward.overlong_buffer_len",
    type: "number",
    concepts: ["reward"],
    checks: [],
    why: "DAPO overlong penalty on (None: off): subtracted from the logged reward",
    source: CLI,
  },
  { name: "reward.overlong_penalty_factor", type: "number", concepts: ["reward"], checks: [], why: "the overlong penalty's largest value", source: CLI },
  {
    name: "reward.stop_properly_penalty_coef",
    type: "number",
    concepts: ["reward"],
    checks: [],
    why: "ProRL stop-properly penalty on (None: off): truncated samples' rewards scaled or replaced in the logged reward",
    source: CLI,
  },
  {
    name: "algo.dynamic_filtering_enable",
    type: "bool",
    concepts: ["reward"],
    checks: [],
    why: "prompts whose mean score is outside algo.dynamic_filtering_range are dropped before training: the logged reward is over the kept ones",
    source: CLI,
  },
  {
    name: "critic.freezing_steps",
    type: "number",
    concepts: ["reward"],
    checks: [],
    why: "the actor is not trained in the first freezing_steps steps, so its status keys (train/reward among them) are not logged there",
    source: CLI,
  },
  {
    name: "logger.logging_steps",
    type: "number",
    concepts: [],
    checks: [],
    why: "a row every logging_steps training steps: coverage expects exactly those steps",
    source: CLI,
  },
  {
    name: "train.async_enable",
    type: "bool",
    concepts: [],
    checks: ["step_time_mismatch"],
    why: "the async trainer's timing/step_total is wall time with queue waits, not the sum of the phase timers",
    source: CLI,
  },
];

const ORL = "openrlhf 0.11.2 openrlhf/trainer";

/** Length penalties, dynamic filtering, a frozen actor and the async trainer: what they change in the logged keys. */
const OPENRLHF_MEANINGS: readonly ConditionalMeaning[] = [
  {
    when: {
      rule: {
        flags: ["reward.overlong_buffer_len", "reward.stop_properly_penalty_coef"],
        text: "reward.overlong_buffer_len or reward.stop_properly_penalty_coef set (length penalties on)",
        test: (v) => typeof v["reward.overlong_buffer_len"] === "number" || typeof v["reward.stop_properly_penalty_coef"] === "number",
      },
    },
    concept: {
      id: "reward",
      is: "mean over the step's samples of the reward after OpenRLHF's length penalties: the DAPO overlong penalty subtracted past max_new_tokens - overlong_buffer_len, truncated samples' rewards scaled by (or set to) stop_properly_penalty_coef",
      isNot:
        "not the reward function's score: shaped by the penalties, not comparable with runs without them (train/rollout/reward_mean carries the same penalties)",
    },
    evidence: `${ORL}/ppo_utils/experience_maker.py:246-247 (apply_length_penalties before the baseline); ppo_utils/length_penalty.py:55,100,103 (the penalties), :150-153 (info["reward"] synced with the penalised rewards "so logged metrics reflect penalties")`,
  },
  {
    when: { flag: "algo.dynamic_filtering_enable", equals: true },
    concept: {
      id: "reward",
      is: "mean over the step's kept samples: prompts whose mean score lies outside algo.dynamic_filtering_range (exclusive) are dropped and replaced before training, so the mean is over the prompts that passed the filter",
      isNot: "not the policy's mean reward over the prompts it saw: all-correct and all-wrong prompts are left out (by default range (0, 1))",
    },
    evidence: `${ORL}/ppo_utils/samples_generator.py:168-186 (_generate_vllm drops a prompt's samples by their mean score)`,
  },
  {
    when: { flag: "algo.dynamic_filtering_enable", equals: true },
    key: {
      name: "train/dynamic_filtering_pass_rate",
      note: "samples kept per prompt consumed x 100 (len(experiences) / prompts_consumed * 100): up to n_samples_per_prompt x 100, not a percentage of prompts; None for a step served from the sample buffer",
    },
    evidence: `${ORL}/ppo_utils/samples_generator.py:122-123; ppo_trainer.py:548-549`,
  },
  {
    when: {
      rule: {
        flags: ["critic.freezing_steps"],
        text: "critic.freezing_steps > 0 (the actor frozen while the critic warms up)",
        test: (v) => typeof v["critic.freezing_steps"] === "number" && v["critic.freezing_steps"] > 0,
      },
    },
    concept: {
      id: "reward",
      is: "mean reward of the samples the actor trained on (its training status): nothing in the frozen steps 1 .. freezing_steps + 1 (the actor trains once the step count before the step exceeds freezing_steps), and the first trained step averages every frozen step's samples too, which the actor's replay buffer kept",
      isNot:
        "a round mean covers the trained steps only, its first value a mean over several steps (train/rollout/reward_mean, from each step's own samples, is logged at every step)",
    },
    evidence: `${ORL}/ppo_trainer.py:233-236 (experiences appended to the actor every step), :240 (ppo_train(global_step) before the increment), :272 (run_actor = global_steps > critic.freezing_steps), :418-425 (rollout/reward_mean from the step's experiences); ray/ppo_actor.py:603 (the replay buffer cleared only after a fit)`,
  },
  {
    when: { flag: "train.async_enable", equals: true },
    check: {
      name: "step_time_mismatch",
      notApplicable: "the async trainer logs timing/step_total as the wall time since the last step, queue waits included, not the sum of its phase timers",
    },
    evidence: `${ORL}/ppo_trainer_async.py:237`,
  },
];

const LOSS = "openrlhf/models/loss.py PolicyLoss";
const WITH_IS_CORRECTION = "with --algo.advantage.is_correction_level token or seq and the ppo policy loss (vllm_kl and is_filter_ratio are set only then)";

/** OpenRLHF 0.11.2's mismatch keys (models/loss.py, trainer/ray/ppo_actor.py). */
const OPENRLHF_MISMATCH: MismatchSpec = {
  metrics: {
    absDiff: {
      absent: "OpenRLHF logs no mean |log-prob difference| of trainer and vLLM (train/logprobs_diff is against the reference model: see look-alikes)",
    },
    signedGap: [
      {
        key: "train/vllm_kl",
        grain: "rollout",
        is: "mean of (vLLM log-prob - old log-prob) over a micro-batch's tokens, averaged over the step's micro-batches",
        comparable: true,
        comparability: "the reference estimator (its name says KL: it is the k1 estimate of KL(vLLM || trainer)), token means per micro-batch averaged",
        when: WITH_IS_CORRECTION,
        source: `${LOSS}, openrlhf/trainer/ray/ppo_actor.py`,
      },
    ],
    k3Kl: { absent: "OpenRLHF logs no k3 estimate of the mismatch (train/vllm_kl is k1, the signed gap)" },
    isRatioMean: { absent: "OpenRLHF logs no statistic of the correction's ratios" },
    isRatioAbsDev: { absent: "OpenRLHF logs no statistic of the correction's ratios" },
    isRatioMax: { absent: "OpenRLHF logs no statistic of the correction's ratios" },
    isRatioMin: { absent: "OpenRLHF logs no statistic of the correction's ratios" },
    ess: { absent: "OpenRLHF logs no effective sample size of the correction weights" },
    correctedFraction: [
      {
        key: "train/is_filter_ratio",
        grain: "rollout",
        is: "fraction of a micro-batch's tokens (of its sequences at seq level) whose gated statistic (ratio, binary KL or TV) fell outside the thresholds: clamped (clip mode) or dropped (mask mode); averaged over the step's micro-batches",
        comparable: false,
        comparability:
          "gated on the ratio by default, but on a binary KL or total variation with --algo.advantage.is_correction_gating; at seq level it counts sequences, not tokens",
        when: WITH_IS_CORRECTION,
        source: LOSS,
      },
    ],
  },
  lookAlikes: [
    {
      key: "train/logprobs_diff",
      is: "mean of (policy log-prob - reference-model log-prob): the KL penalty's log-ratio against the initial model (openrlhf/trainer/ray/ppo_actor.py, ppo_utils/experience_maker.py), not the vLLM mismatch",
    },
  ],
};

/** The OpenRLHF profile. */
export const OPENRLHF_PROFILE: FrameworkProfile<"openrlhf"> = {
  name: "openrlhf",
  label: "OpenRLHF",
  signature: ["train/policy_loss", "train/actor_grad_norm", "train/ppo_clip_ratio", "train/timing/", "train/rollout/"],
  axis: {
    kind: "step",
    stepKey: "train/global_step",
    evalPrefixes: ["eval/"],
    stepKeys: ["train/global_step", "eval/global_step"],
    summaryKeys: [],
    ownRows: [],
    interval: {
      steps: "logger.logging_steps",
      lastPartial: "nothing: the steps after the last multiple of logging_steps are never logged",
      source: "openrlhf 0.11.2 openrlhf/trainer/ppo_trainer.py:386 save_logs_and_checkpoints (global_step % logger.logging_steps == 0)",
    },
  },
  recordNoun: "training steps",
  recordsDescription: stepRecordsDescription("training steps", "train/global_step"),
  stepAxis: "train/global_step (define_metric step), one row per training step (one rollout batch); _step counts logging calls",
  updates: {
    observable: false,
    note: "OpenRLHF logs one row per training step (status means over its micro-batches; the grad norm of its last optimizer step)",
    keyPrefix: null,
    criticPrefix: null,
  },
  aggregation: "train/* are means over the step's micro-batches, except train/actor_grad_norm and the learning rate: the last optimizer step's value",
  restart: "a new W&B run (reinit) with global_step restored from the checkpoint: it re-logs the steps after the checkpoint (the later run supersedes)",
  tensorboard: {
    // OpenRLHF's TensorBoard logger: add_scalar(f"train/{k}", v, global_step), evaluations as eval/{k} at the same step.
    step: "global_step (training steps, one per rollout batch), the number W&B logs as train/global_step; no tag holds it",
    stepKey: "train/global_step",
    separateCalls: ["eval/"],
  },
  metrics: {
    entropy: perStep(
      "train/entropy_loss",
      "mean token entropy of the step's micro-batches (logged only when --actor.entropy_coef is set)",
      "absent by default; not per update",
    ),
    clipfrac: perStep(
      "train/ppo_clip_ratio",
      "mean over the step's micro-batches of the fraction of tokens where the clipped surrogate is active",
      "not per update",
    ),
    gradNorm: perStep(
      "train/actor_grad_norm",
      "gradient norm of the LAST optimizer step of the training step",
      "not a mean over the step's optimizer steps: earlier updates' norms are not logged, so zero-gradient updates cannot be listed",
    ),
    ppoKl: perStep("train/ppo_kl", "mean over the step's micro-batches of the policy-ratio log", "positions inside the step are averaged away"),
    klToRef: perStep("train/kl", "KL to the reference model (with the KL loss or reward penalty)", "not ppo_kl"),
    logprobGap: { absent: "train/vllm_kl is a KL estimate between the vLLM and trainer log-probs, not a mean |log-prob difference|" },
    responseLen: perStep("train/rollout/response_length_mean", "mean response length of the step's rollout samples", "not per episode"),
    responseLenMin: { absent: "only the mean response length of the step is logged" },
    responseLenMax: { absent: "only the mean response length of the step is logged" },
    truncated: perStep("train/rollout/truncated_rate", "fraction of the step's samples cut at the maximum length", "not an episode failure rate"),
    rolloutTime: perStep("train/timing/generation", "wall time of the step's generation", "describes one machine and its scheduling"),
    actorTokPerS: { absent: "no actor training throughput is logged" },
    stepTime: perStep("train/timing/step_total", "wall time of the whole training step", "includes generation and experience making"),
    reward: perStep(
      "train/reward",
      "mean over the step's samples of the reward the reward model or --reward.remote_url function returned (status key `reward`)",
      "defined by the run's reward function: not comparable across reward functions; not the shaped return (train/return) nor the group-normalised advantage",
    ),
    zeroStdFrac: { absent: "OpenRLHF logs group_reward_std (a mean of the groups' reward stds), not the fraction of groups without spread" },
    advantageMax: { absent: "OpenRLHF logs no advantage extremes" },
    advantageMin: { absent: "OpenRLHF logs no advantage extremes" },
    tokensSeen: { absent: "OpenRLHF logs no token count" },
  },
  otherMetrics: {},
  keyAliases: {},
  keyFamilies: [],
  flags: OPENRLHF_FLAGS,
  package: "openrlhf",
  meanings: OPENRLHF_MEANINGS,
  timers: {
    isTimer,
    containers: { "train/timing/step_total": ["train/timing/generation", "train/timing/make_experience", "train/timing/ppo_train", "train/timing/broadcast"] },
    stackable: (k) => isTimer(k) && k !== "train/timing/step_total",
    separateTimer: null,
    remainderOf: null,
    // The synchronous trainer sums its phase timers (ppo_trainer.py:545); the async one does not (a meaning above).
    stepSum: {
      total: "train/timing/step_total",
      parts: ["train/timing/generation", "train/timing/make_experience", "train/timing/ppo_train", "train/timing/broadcast"],
    },
    shortName: (k) => k,
    stackCaption: asLoggedStackCaption("training steps"),
  },
  mismatch: OPENRLHF_MISMATCH,
};
