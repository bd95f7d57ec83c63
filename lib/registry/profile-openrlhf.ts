/**
 * OpenRLHF (OpenRLHF/OpenRLHF, `PPOTrainer` and `WandbLogger`): `train/global_step` declared with
 * `define_metric("train/*", step_metric="train/global_step")`, one row of `train/*` keys per training
 * step (rollout batch), `eval/*` rows with `eval/global_step`; `_step` advances per wandb.log call
 * (a samples table is a second call). The grad norm is the last optimizer step's of the batch.
 * Sources: openrlhf/trainer/ray/ppo_actor.py, ppo_trainer.py, utils/logging_utils.py
 * (docs/framework-profiles.md).
 */
import type { ConceptMetric } from "./metric-spec";
import type { SemanticFlag } from "./semantic-flags";
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
  meanings: [],
  timers: {
    isTimer,
    containers: { "train/timing/step_total": ["train/timing/generation", "train/timing/make_experience", "train/timing/ppo_train", "train/timing/broadcast"] },
    stackable: (k) => isTimer(k) && k !== "train/timing/step_total",
    separateTimer: null,
    remainderOf: null,
    stepSum: null,
    shortName: (k) => k,
    stackCaption: asLoggedStackCaption("training steps"),
  },
  mismatch: OPENRLHF_MISMATCH,
};
