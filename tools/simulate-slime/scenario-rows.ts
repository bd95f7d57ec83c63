/**
 * The dicts of one rollout batch as a given slime state logs them (keys, order, Python types), for
 * the scenario simulator (scenario.ts). Values are plausible but not calibrated: scenarios test
 * structure (steps, rows, flags, restarts), the bundled sample tests numbers. Key order follows
 * docs/slime-logging.md, "Rows per rollout batch"; the step key is added by the caller.
 */
import type { SlimeVersionSpec } from "./profiles";
import type { Prng } from "./prng";
import type { PyValueKind } from "./python-repr";
import { buildRow, type LoggedValue, RowBuilder, updateRowShape } from "./slime-rows";

/** What the row builders need to know about the job. */
export interface BatchContext {
  profile: SlimeVersionSpec;
  /** Samples per rollout batch (rollout_batch_size * n_samples_per_prompt). */
  samples: number;
  /** Optimizer updates per rollout (N). */
  n: number;
  globalBatchSize: number;
  klCoef: number;
  useKlLoss: boolean;
  critic: boolean;
  colocate: boolean;
  specDecoding: boolean;
  evalDatasets: readonly string[];
  nSamplesPerPrompt: number;
}

const STATS = ["mean", "median", "max", "min"] as const;

/** Sample-level metrics shared by the manager row and, under `eval/<d>/`, eval rows (rollout_metrics.py:44-56). */
function sampleMetrics(d: RowBuilder, prefix: string, ctx: BatchContext, prng: Prng): void {
  const mean = prng.uniform(180, 420);
  const stat: Record<string, [number, PyValueKind]> = {
    mean: [mean, "float"],
    median: [Math.round(mean * prng.uniform(0.7, 0.95)) + 0.5 * prng.int(0, 1), "float"],
    max: [Math.round(mean * prng.uniform(3, 6)), "int"],
    min: [prng.int(8, 40), "int"],
  };
  for (const s of ctx.profile.responseLenStats) d.add(`${prefix}response_len/${s}`, stat[s][0], stat[s][1]);
  // The double prefix of 2025-11-13..2026-01-04 is documented for the rollout row only; eval rows of
  // that era are left without spec keys rather than guessed.
  const spec = prefix === "rollout/" ? ctx.profile.specPrefix : ctx.profile.specPrefix === "rollout/" ? prefix : null;
  if (ctx.specDecoding && spec !== null) {
    d.add(`${spec}spec_accept_rate`, prng.uniform(0.55, 0.8));
    d.add(`${spec}spec_accept_length`, prng.uniform(2.2, 3.4));
  }
  if (ctx.profile.prefixCache) {
    d.add(`${prefix}prefix_cache_hit_rate`, prng.uniform(0.3, 0.7));
    d.add(`${prefix}avg_cached_tokens_per_sample`, prng.uniform(600, 1800));
  }
  if (ctx.profile.repetitionAndTruncated) {
    d.add(`${prefix}repetition_frac`, prng.chance(0.8) ? 0 : 1 / ctx.samples);
    d.add(`${prefix}truncated_ratio`, prng.int(0, Math.floor(ctx.samples / 4)) / ctx.samples);
  }
}

/** Rollout-manager row (rollout_metrics.py:256-271): filter drops, sample metrics, perf. */
export function managerDict(ctx: BatchContext, prng: Prng): LoggedValue[] {
  const d = new RowBuilder();
  // The dynamic-sampling filter and zero_std counts belong to GRPO groups; a critic's PPO run has neither.
  const drop = ctx.critic ? 0 : prng.int(0, 3);
  if (drop > 0) d.add("rollout/dynamic_filter/drop_zero_std_0.0", drop, "int");
  // zero_std counts sit between response_len/* and the other sample metrics.
  const sm = new RowBuilder();
  sampleMetrics(sm, "rollout/", ctx, prng);
  const isLen = (v: LoggedValue) => v.key.startsWith("rollout/response_len/");
  d.values.push(...sm.values.filter(isLen));
  if (!ctx.critic) {
    d.add("rollout/zero_std/count_0.0", prng.int(0, 3), "int");
    if (prng.chance(0.5)) d.add("rollout/zero_std/count_1.0", prng.int(1, 2), "int");
  }
  d.values.push(...sm.values.filter((v) => !isLen(v)));
  const rolloutTime = prng.uniform(150, 320);
  const tokens = ctx.samples * prng.uniform(250, 400);
  d.add("perf/rollout_time", rolloutTime);
  d.add("perf/tokens_per_gpu_per_sec", tokens / rolloutTime / 8);
  d.add("perf/longest_sample_tokens_per_sec", prng.uniform(8, 30));
  if (ctx.profile.effectivePerf) {
    d.add("perf/effective_tokens_per_gpu_per_sec", (0.8 * tokens) / rolloutTime / 8);
    d.add("perf/longest_effective_sample_tokens_per_sec", prng.uniform(6, 25));
  }
  if (ctx.profile.requestPerf) {
    for (const what of ["request/e2e_latency", "request/queue_time", "decode/throughput"]) {
      const base = what === "decode/throughput" ? prng.uniform(40, 90) : prng.uniform(0.5, 60);
      const v = { mean: base, median: base * 0.9, max: base * prng.uniform(2, 4), min: base * prng.uniform(0.05, 0.3) };
      for (const s of STATS) d.add(`perf/${what}/${s}`, v[s]);
    }
  }
  return d.values;
}

/** Trainer rollout row (train_metric_utils.py:142-221), HEAD order; `rollout/kl` is 0.0 without a ref model. */
export function trainerRolloutDict(ctx: BatchContext, prng: Prng): LoggedValue[] {
  const d = new RowBuilder();
  const withRef = ctx.klCoef !== 0 || ctx.useKlLoss;
  const logProbs = -prng.uniform(0.1, 0.3);
  const kl = withRef ? prng.uniform(5e-4, 3e-3) : 0;
  const adv = prng.normal(0, 1e-8);
  if (ctx.profile.partition) d.add("rollout/partition", (ctx.samples - 1) / 2);
  d.add("rollout/response_lengths", prng.uniform(300, 700));
  d.add("rollout/rewards", prng.normal(0, 1e-8));
  d.add("rollout/truncated", prng.int(0, Math.floor(ctx.samples / 4)) / ctx.samples);
  d.add("rollout/rollout_log_probs", logProbs + prng.normal(0, 0.002));
  d.add("rollout/raw_reward", prng.int(0, ctx.samples) / ctx.samples);
  d.add("rollout/total_lengths", prng.uniform(2000, 2800));
  if (withRef) d.add("rollout/ref_log_probs", logProbs - kl);
  d.add("rollout/log_probs", logProbs);
  if (ctx.critic) d.add("rollout/values", prng.normal(0.3, 0.1));
  d.add("rollout/kl", kl);
  d.add("rollout/advantages", ctx.critic ? prng.normal(0, 0.05) : adv);
  d.add("rollout/returns", ctx.critic ? prng.uniform(0.1, 0.6) : adv);
  return d.values;
}

/** `--log-multi-turn` row (train_metric_utils.py:301-337), numpy scalars. */
export function multiTurnDict(prng: Prng): LoggedValue[] {
  const d = new RowBuilder();
  const raw = prng.uniform(400, 900);
  d.add("multi_turn/raw_response_length/response_length_mean", raw, "np.float64");
  d.add("multi_turn/raw_response_length/response_length_max", Math.round(raw * 3), "np.float64");
  d.add("multi_turn/raw_response_length/response_length_min", prng.int(20, 80), "np.float64");
  d.add("multi_turn/raw_response_length/response_length_clip_ratio", prng.int(0, 8) / 64, "np.float64");
  const wo = raw * prng.uniform(0.5, 0.8);
  d.add("multi_turn/wo_obs_response_length/response_length_mean", wo, "np.float64");
  d.add("multi_turn/wo_obs_response_length/response_length_max", Math.round(wo * 3), "np.float64");
  d.add("multi_turn/wo_obs_response_length/response_length_min", prng.int(10, 40), "np.float64");
  d.add("multi_turn/multi_turn_metric/round_number_mean", prng.uniform(1.5, 4), "np.float64");
  d.add("multi_turn/multi_turn_metric/round_number_max", prng.int(5, 8), "np.float64");
  d.add("multi_turn/multi_turn_metric/round_number_min", 1, "np.float64");
  return d.values;
}

/** `--log-passrate` row: `passrate/pass@k` for k = 1, 2, 4, ... <= n_samples_per_prompt (np.float64). */
export function passrateDict(ctx: BatchContext, prng: Prng, prefix = "passrate/pass@"): LoggedValue[] {
  const d = new RowBuilder();
  let p = prng.uniform(0.2, 0.5);
  for (let k = 1; k <= ctx.nSamplesPerPrompt; k *= 2) {
    d.add(`${prefix}${k}`, p, "np.float64");
    p = Math.min(1, p + (1 - p) * prng.uniform(0.2, 0.4));
  }
  return d.values;
}

/** One actor step row (model.py:873-918) without `train/step`; step 0 of a rollout has ppo_kl ~0. */
export function actorStepDict(ctx: BatchContext, prng: Prng, stepId: number): LoggedValue[] {
  const first = stepId === 0;
  const pg = prng.normal(0, 0.004);
  const kl = ctx.useKlLoss ? prng.uniform(1e-4, 1e-3) : null;
  const shape = updateRowShape({
    logprobDiffKey: ctx.profile.logprobDiffKey,
    klLoss: kl !== null,
    lrGroups: 2,
    globalBatchSize: ctx.profile.globalBatchSize,
    stepKey: false,
  });
  // Drawn in the row's key order.
  const values: Record<string, number> = {
    "train/loss": pg + (kl ?? 0) * 0.001,
    "train/pg_loss": pg,
    "train/entropy_loss": prng.uniform(0.12, 0.3),
    "train/pg_clipfrac": first ? 0 : prng.uniform(1e-4, 3e-3),
    "train/ppo_kl": first ? (prng.chance(0.5) ? 0 : prng.int(-6, 6) * 2 ** -33 || 2 ** -34) : prng.uniform(5e-5, 5e-4),
    [ctx.profile.logprobDiffKey]: ctx.profile.logprobDiffKey.endsWith("_abs_diff") ? prng.uniform(0.007, 0.013) : prng.normal(0, 0.002),
    "train/kl_loss": kl ?? 0,
    "train/grad_norm": prng.uniform(0.5, 3.5),
    "train/lr-pg_0": 1e-6,
    "train/lr-pg_1": 1e-6,
    "train/global_batch_size": ctx.globalBatchSize,
  };
  return buildRow(shape, values);
}

/** One critic step row: the same site with role tag `critic-` (no `train/critic-step`: the critic logs `train/step`). */
export function criticStepDict(ctx: BatchContext, prng: Prng): LoggedValue[] {
  const d = new RowBuilder();
  d.add("train/critic-value_loss", prng.uniform(0.01, 0.2));
  d.add("train/critic-value_clipfrac", prng.uniform(0, 0.05));
  d.add("train/critic-grad_norm", prng.uniform(0.2, 2));
  d.add("train/critic-lr-pg_0", 5e-6);
  d.add("train/critic-lr-pg_1", 5e-6);
  if (ctx.profile.globalBatchSize) d.add("train/critic-global_batch_size", ctx.globalBatchSize, "int");
  return d.values;
}

/** Timer values of one trainer perf row, before the row is written. */
export interface PerfTimes {
  /** Time of the save after the previous rollout, or null when none reached this row. */
  saveModel: number | null;
  updateWeights: number;
}

/** Trainer perf row (train_metric_utils.py:358-405): timers in first-end order, then throughput keys. */
export function trainerPerfDict(ctx: BatchContext, prng: Prng, times: PerfTimes): LoggedValue[] {
  const d = new RowBuilder();
  const withRef = ctx.klCoef !== 0 || ctx.useKlLoss;
  if (ctx.colocate) d.add("perf/sleep_time", prng.uniform(2, 6));
  if (times.saveModel !== null) d.add("perf/save_model_time", times.saveModel);
  d.add("perf/update_weights_time", times.updateWeights);
  if (ctx.colocate) d.add("perf/wake_up_time", prng.uniform(1, 4));
  const pre = prng.uniform(0.5, 2);
  d.add("perf/data_preprocess_time", pre);
  const wait = prng.uniform(150, 330);
  d.add("perf/train_wait_time", wait);
  const ref = withRef ? prng.uniform(6, 12) : 0;
  if (withRef) d.add("perf/ref_log_probs_time", ref);
  const lp = prng.uniform(6, 12);
  d.add("perf/log_probs_time", lp);
  const actor = prng.uniform(25, 60);
  d.add("perf/actor_train_time", actor);
  const train = ref + lp + actor + prng.uniform(0.5, 2);
  d.add("perf/train_time", train);
  d.add("perf/log_probs_tflops", prng.uniform(80, 120));
  if (withRef) d.add("perf/ref_log_probs_tflops", prng.uniform(80, 120));
  d.add("perf/actor_train_tflops", prng.uniform(100, 160));
  d.add("perf/actor_train_tok_per_s", prng.uniform(11000, 15000));
  d.add(ctx.profile.stepTimeKey, wait + train);
  d.add("perf/wait_time_ratio", wait / (wait + train));
  return d.values;
}

/** Eval row (rollout_metrics.py:223-253), per dataset: `eval/<d>`, [`eval/<d>/` + sample metrics], `eval/<d>-truncated_ratio`. */
export function evalDict(ctx: BatchContext, prng: Prng): LoggedValue[] {
  const d = new RowBuilder();
  for (const ds of ctx.evalDatasets) {
    d.add(`eval/${ds}`, prng.uniform(0.2, 0.6));
    if (ctx.profile.evalSampleMetrics) sampleMetrics(d, `eval/${ds}/`, ctx, prng);
    d.add(`eval/${ds}-truncated_ratio`, prng.int(0, 4) / 32);
  }
  return d.values;
}
