/**
 * OpenRLHF (OpenRLHF/OpenRLHF, `PPOTrainer` and `WandbLogger`): `train/global_step` declared with
 * `define_metric("train/*", step_metric="train/global_step")`, one row of `train/*` keys per training
 * step (rollout batch), `eval/*` rows with `eval/global_step`; `_step` advances per wandb.log call
 * (a samples table is a second call). The grad norm is the last optimizer step's of the batch.
 * Sources: openrlhf/trainer/ray/ppo_actor.py, ppo_trainer.py, utils/logging_utils.py
 * (docs/framework-profiles.md).
 */
import type { MetricSpec } from "./metric-spec";
import { asLoggedStackCaption, stepRecordsDescription, type FrameworkProfile } from "./framework-profile";

const perStep = (key: string, label: string, unit: string, is: string, isNot: string): MetricSpec => ({ key, label, unit, grain: "rollout", is, isNot });
const TIMING = "train/timing/";
const isTimer = (k: string) => k.startsWith(TIMING);

/** The OpenRLHF profile. */
export const OPENRLHF_PROFILE: FrameworkProfile = {
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
  },
  aggregation: "train/* are means over the step's micro-batches, except train/actor_grad_norm and the learning rate: the last optimizer step's value",
  restart: "a new W&B run (reinit) with global_step restored from the checkpoint: it re-logs the steps after the checkpoint (the later run supersedes)",
  metrics: {
    entropy: perStep(
      "train/entropy_loss",
      "entropy",
      "nats/token",
      "mean token entropy of the step's micro-batches (logged only when --actor.entropy_coef is set)",
      "absent by default; not per update",
    ),
    clipfrac: perStep(
      "train/ppo_clip_ratio",
      "clip fraction",
      "fraction of tokens",
      "mean over the step's micro-batches of the fraction of tokens where the clipped surrogate is active",
      "not per update",
    ),
    gradNorm: perStep(
      "train/actor_grad_norm",
      "gradient norm",
      "L2 norm",
      "gradient norm of the LAST optimizer step of the training step",
      "not a mean over the step's optimizer steps: earlier updates' norms are not logged, so zero-gradient updates cannot be listed",
    ),
    ppoKl: perStep(
      "train/ppo_kl",
      "ppo_kl",
      "nats/token",
      "mean over the step's micro-batches of the policy-ratio log",
      "positions inside the step are averaged away",
    ),
    klToRef: perStep("train/kl", "KL to reference", "nats/token", "KL to the reference model (with the KL loss or reward penalty)", "not ppo_kl"),
    logprobGap: { absent: "train/vllm_kl is a KL estimate between the vLLM and trainer log-probs, not a mean |log-prob difference|" },
    responseLen: perStep(
      "train/rollout/response_length_mean",
      "mean response length",
      "tokens",
      "mean response length of the step's rollout samples",
      "not per episode",
    ),
    responseLenMin: { absent: "only the mean response length of the step is logged" },
    responseLenMax: { absent: "only the mean response length of the step is logged" },
    truncated: perStep(
      "train/rollout/truncated_rate",
      "truncated fraction",
      "fraction of samples",
      "fraction of the step's samples cut at the maximum length",
      "not an episode failure rate",
    ),
    rolloutTime: perStep("train/timing/generation", "rollout wall time", "s", "wall time of the step's generation", "describes one machine and its scheduling"),
    actorTokPerS: { absent: "no actor training throughput is logged" },
    stepTime: perStep("train/timing/step_total", "step time", "s", "wall time of the whole training step", "includes generation and experience making"),
    reward: perStep(
      "train/reward",
      "reward",
      "reward units",
      "mean over the step's samples of the reward the reward model or --reward.remote_url function returned (status key `reward`)",
      "defined by the run's reward function: not comparable across reward functions; not the shaped return (train/return) nor the group-normalised advantage",
    ),
  },
  timers: {
    isTimer,
    containers: { "train/timing/step_total": ["train/timing/generation", "train/timing/make_experience", "train/timing/ppo_train", "train/timing/broadcast"] },
    stackable: (k) => isTimer(k) && k !== "train/timing/step_total",
    separateTimer: null,
    remainderOf: null,
    stepSum: null,
    stackCaption: asLoggedStackCaption("training steps"),
  },
};
