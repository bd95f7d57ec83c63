/**
 * slime (THUDM/slime): rollout/step and train/step, N optimizer updates per rollout batch, every
 * update its own row. The metrics are the slime metric schema (lib/schema/slime-metrics.ts), which
 * stays the one place where slime's keys and their meaning are written.
 */
import { isPerfTimeKey, isStackableTimer, METRICS, PERF_TIME_CONTAINERS } from "../schema/slime-metrics";
import type { MetricSpec } from "./metric-spec";
import type { FrameworkProfile } from "./framework-profile";

const klLoss: MetricSpec = {
  key: "train/kl_loss",
  label: "KL to reference",
  unit: "nats/token",
  grain: "update",
  is: "KL loss term against the reference model (logged only with --use-kl-loss)",
  isNot: "not ppo_kl (the policy-ratio log of the update)",
};

const stepTime: MetricSpec = {
  key: "perf/step_time",
  label: "step time",
  unit: "s",
  grain: "rollout",
  is: "trainer time of one rollout batch: train_wait + train (perf/total_train_time before 2025-10-30)",
  isNot: "not the rollout manager's generation time, which overlaps train_wait",
  aliases: [{ key: "perf/total_train_time", until: "2025-10-30", note: "the same container under its old name" }],
};

const reward: MetricSpec = {
  key: "rollout/raw_reward",
  label: "reward",
  unit: "reward units",
  grain: "rollout",
  is: "mean over the rollout batch's samples of the reward as the reward model or --custom-rm-path function returned it (the trainer's log_rollout_data row)",
  isNot: "defined by the run's reward function: not comparable across reward functions; not rollout/rewards, which is after GRPO's group normalisation",
};

/** The slime profile. */
export const SLIME_PROFILE: FrameworkProfile = {
  name: "slime",
  label: "slime",
  signature: ["train/step", "rollout/step", "perf/actor_train_tok_per_s", "rollout/response_len/", "train/pg_clipfrac"],
  axis: { kind: "slime" },
  recordNoun: "rollout batches",
  stepAxis:
    "rollout/step = rollout id (rollout_id * N with --wandb-always-use-train-step); train/step = rollout_id * N + step_id; _step counts logging calls of several processes",
  recordsDescription: "rollout batches (distinct rollout/step) of the round",
  updates: { observable: true, note: "one W&B row per optimizer update (train/step)", keyPrefix: "train/" },
  aggregation: "train/* per optimizer update (means over the update's micro-batches); rollout/* and perf/* per rollout batch",
  restart: "a new W&B run (or a run resumed in place) that re-logs rollouts after its checkpoint; the later logging supersedes",
  metrics: {
    entropy: METRICS.entropy,
    clipfrac: METRICS.clipfrac,
    gradNorm: METRICS.gradNorm,
    ppoKl: METRICS.ppoKl,
    klToRef: klLoss,
    logprobGap: METRICS.logprobAbsDiff,
    responseLen: METRICS.responseLen,
    responseLenMin: METRICS.responseLenMin,
    responseLenMax: METRICS.responseLenMax,
    truncated: METRICS.truncatedRatio,
    rolloutTime: METRICS.rolloutTime,
    actorTokPerS: METRICS.actorTokPerS,
    stepTime,
    reward,
  },
  timers: {
    isTimer: isPerfTimeKey,
    containers: PERF_TIME_CONTAINERS,
    stackable: isStackableTimer,
    // The rollout manager logs perf/rollout_time in rows of its own; it overlaps the trainer's wait.
    separateTimer: METRICS.rolloutTime.key,
    remainderOf: "perf/train_time",
    stepSum: { total: "perf/step_time", parts: PERF_TIME_CONTAINERS["perf/step_time"] },
    stackCaption:
      "Mean trainer time per rollout batch, by phase: train_wait (which holds data preprocessing, weight updates and checkpoint saves of the previous batch, and the wait for generation), the timers inside train, and train's untimed rest; a bar adds up to the mean step time",
  },
};
