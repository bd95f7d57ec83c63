/**
 * verl (volcengine/verl, `RayPPOTrainer.fit`): one W&B row per training step, logged with
 * `step=global_steps` (so `_step` is the global step) and `training/global_step`; a val-before-train
 * row at the starting step with val metrics only; `val-core/*`, `val-aux/*` merged into every
 * test_freq-th step's row. Actor metrics are means over the step's mini-batch updates, so single
 * optimizer updates are not observable. Sources: verl ray_trainer.py, dp_actor.py, metric_utils.py
 * (docs/framework-profiles.md).
 */
import type { MetricSpec } from "./metric-spec";
import { asLoggedStackCaption, stepRecordsDescription, type FrameworkProfile } from "./framework-profile";

const STEP = "training steps";
const perStep = (key: string, label: string, unit: string, is: string, isNot: string): MetricSpec => ({ key, label, unit, grain: "rollout", is, isNot });
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

/** The verl profile. */
export const VERL_PROFILE: FrameworkProfile = {
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
  },
  aggregation: "actor/* are means over the step's mini-batches (ppo_epochs x train_batch_size / ppo_mini_batch_size optimizer steps, 4 by default)",
  restart:
    "a new W&B run that continues global_steps from its checkpoint: it re-logs the steps after the checkpoint (the later run supersedes) and logs a val-before-train row at the checkpoint step",
  metrics: {
    entropy: perStep(
      "actor/entropy",
      "entropy",
      "nats/token",
      "mean token entropy of the step's batch under the policy before the update: verl 0.9.1 computes actor/entropy in the old-log-prob pass",
      "not the entropy during or after the update (that is actor/entropy_loss, logged when the update computes entropy); not per optimizer update; not slime's per-update entropy_loss",
    ),
    clipfrac: perStep(
      "actor/pg_clipfrac",
      "clip fraction",
      "fraction of tokens",
      "mean over the step's mini-batches of the fraction of tokens where the clipped surrogate is active",
      "not per update; the dual-clip lower fraction is actor/pg_clipfrac_lower",
    ),
    gradNorm: perStep(
      "actor/grad_norm",
      "gradient norm",
      "L2 norm",
      "mean over the step's mini-batch optimizer steps of the pre-clip gradient norm",
      "not a single update's norm: an exact 0 in one mini-batch is averaged away, so zero-gradient updates cannot be listed",
    ),
    ppoKl: perStep(
      "actor/ppo_kl",
      "ppo_kl",
      "nats/token",
      "mean over the step's mini-batches of old_logp - new_logp",
      "positions inside the step are averaged away: the ~0 of a batch's first update cannot be checked",
    ),
    klToRef: perStep("actor/kl_loss", "KL to reference", "nats/token", "KL loss against the reference model (only with use_kl_loss)", "not ppo_kl"),
    logprobGap: {
      absent: "verl logs training/rollout_probs_diff_* (a difference of probabilities) and rollout_corr/* (KL-type measures), not a mean |log-prob difference|",
    },
    responseLen: perStep("response_length/mean", "mean response length", "tokens", "mean response length of the step's batch", "not per episode"),
    responseLenMin: perStep("response_length/min", "min response length", "tokens", "shortest response of the step's batch", "not per episode"),
    responseLenMax: perStep("response_length/max", "max response length", "tokens", "longest response of the step's batch", "not per episode"),
    truncated: perStep(
      "response_length/clip_ratio",
      "truncated fraction",
      "fraction of samples",
      "fraction of the step's responses that reached the maximum response length",
      "not an episode failure rate",
    ),
    rolloutTime: perStep("timing_s/gen", "rollout wall time", "s", "wall time of the step's generation phase", "describes one machine and its scheduling"),
    actorTokPerS: { absent: "perf/throughput is tokens per GPU-second of the whole step, not actor training throughput" },
    stepTime: perStep("timing_s/step", "step time", "s", "wall time of the whole training step", "includes generation, reward and all training phases"),
    reward: perStep(
      "critic/score/mean",
      "reward",
      "reward units",
      "mean over the step's sequences of the sequence score (token_level_scores summed), as the reward function or model returned it (compute_data_metrics)",
      "defined by the run's reward function: not comparable across reward functions; not critic/rewards/mean, which has the in-reward KL penalty subtracted",
    ),
  },
  timers: {
    isTimer,
    containers: { "timing_s/step": STEP_PHASES },
    // Only the step's phases add up to a bar no longer than the step.
    stackable: (k) => STEP_PHASES.includes(k),
    separateTimer: null,
    remainderOf: null,
    stepSum: null,
    stackCaption: asLoggedStackCaption(STEP),
  },
};
