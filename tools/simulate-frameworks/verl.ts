/**
 * verl rows as verl 0.9.1's V0 trainer logs them (`RayPPOTrainer.fit`, verl/trainer/ppo/ray_trainer.py):
 * one `wandb.log(metrics, step=global_steps)` per training step, so `_step` is the global step;
 * `training/global_step` in every step row; a val-before-train row at the starting step (val keys only);
 * val keys merged into every `test_freq`-th step row and into the last step of a finished run. A restart
 * is a new W&B run whose val-before-train row sits at the checkpoint step and whose step rows continue
 * from there. The key set and the order of the metrics dict follow the real verl 0.9.1 runs in
 * test/fixtures/real-runs/verl/ (checked by test/simulate-frameworks/real-traits-verl.test.ts): balance-batch
 * `global_seqlen/*`, the old-log-prob pass, rollout-vs-actor debug metrics (`training/rollout_*`,
 * `rollout_corr/*`: the agent loop returns rollout log-probs by default), the actor update (`actor/perf/*`,
 * `perf/mfu/actor`), `compute_data_metrics`, the timers (agent-loop timings inside `timing_s/`),
 * `compute_timing_metrics` and `compute_throughout_metrics`. The reference-policy keys (`actor/kl_loss`,
 * `actor/kl_coef`, `timing_s/ref`) follow verl's source (workers/utils/losses.py); no real run has them.
 */
import { createPrng, deriveSeed, type Prng } from "../simulate-slime/prng";
import { gradNorm, type GenRow, noisy, progress, round, type RoundContext, type RoundRows, values } from "./round-context";
import type { FwValue } from "./types";

const BATCH = 256; // responses per step (train_batch_size 64 prompts x n 4)
const MAX_RESPONSE = 1024;
const MAX_PROMPT = 512;
const STEPS_PER_EPOCH = 50;
/** Validation samples per prompt (`val_kwargs.n`): the `@2` of the val keys. */
const VAL_N = 2;

/**
 * The val keys of one validation (`_val_metrics_update` over `process_validation_metrics`, n=2): per data
 * source, per variable (`reward`, then the reward function's extra-info keys), mean/std and bootstrap
 * best/worst; the core variable (`acc` if the reward function returns it, else `reward`) has its mean and
 * best in `val-core`, everything else is `val-aux`; then `val-aux/num_turns/*`.
 */
function valValues(p: Prng, step: number, datasets: string[], extraInfo: string[]): FwValue[] {
  const out: Array<[string, number]> = [];
  const vars = ["reward", ...extraInfo];
  const core = vars.includes("acc") ? "acc" : "reward";
  for (const ds of datasets) {
    for (const v of vars) {
      const mean = Math.min(1, round(noisy(p, 0.3 + 0.4 * progress(step), 0.05), 4));
      const metrics: Array<[string, number]> = [
        [`mean@${VAL_N}`, mean],
        [`std@${VAL_N}`, round(p.uniform(0.1, 0.3), 4)],
        [`best@${VAL_N}/mean`, Math.min(1, round(mean + p.uniform(0.05, 0.15), 4))],
        [`best@${VAL_N}/std`, round(p.uniform(0.01, 0.05), 4)],
        [`worst@${VAL_N}/mean`, Math.max(0, round(mean - p.uniform(0.05, 0.15), 4))],
        [`worst@${VAL_N}/std`, round(p.uniform(0.01, 0.05), 4)],
      ];
      for (const [m, x] of metrics) {
        const sec = v === core && (m.startsWith("mean") || m.startsWith("best")) ? "val-core" : "val-aux";
        out.push([`${sec}/${ds}/${v}/${m}`, x]);
      }
    }
  }
  out.push(["val-aux/num_turns/min", 2], ["val-aux/num_turns/max", 2], ["val-aux/num_turns/mean", 2]);
  return values(out);
}

/** min/mean/max of a batch statistic, in verl's order (mean, max, min). */
function mmm(p: Prng, prefix: string, mean: number, spread: number): Array<[string, number]> {
  return [
    [`${prefix}/mean`, round(mean)],
    [`${prefix}/max`, round(mean + spread * p.uniform(1, 2))],
    [`${prefix}/min`, round(mean - spread * p.uniform(1, 2))],
  ];
}

/** min/max/mean (the agent loop's and `num_turns` order). */
function minMaxMean(p: Prng, prefix: string, mean: number, spread: number): Array<[string, number]> {
  return [
    [`${prefix}/min`, round(Math.max(0, mean - spread * p.uniform(0.5, 1)))],
    [`${prefix}/max`, round(mean + spread * p.uniform(0.5, 1))],
    [`${prefix}/mean`, round(mean)],
  ];
}

/** The agent loop's timings (`timing_s/agent_loop/*`, merged into verl's timers by `generate_sequences`). */
function agentLoopTimings(p: Prng, gen: number): Array<[string, number]> {
  const slowest = gen * p.uniform(0.8, 0.95);
  return [
    ...minMaxMean(p, "agent_loop/num_preempted", 0, 0),
    ...minMaxMean(p, "agent_loop/generate_sequences", gen * 0.6, gen * 0.2),
    ...minMaxMean(p, "agent_loop/tool_calls", 0, 0),
    ...minMaxMean(p, "agent_loop/compute_score", 0.002, 0.001),
    ["agent_loop/slowest/generate_sequences", round(slowest)],
    ["agent_loop/slowest/tool_calls", 0],
    ["agent_loop/slowest/compute_score", round(p.uniform(0.001, 0.004))],
    ["agent_loop/slowest/num_preempted", 0],
    ["agent_loop/slowest/prompt_length", p.int(100, MAX_PROMPT)],
    ["agent_loop/slowest/response_length", MAX_RESPONSE],
  ];
}

/**
 * verl's timers in the order they finish (`timing_s/<name>`), per-token times (`compute_timing_metrics`:
 * `gen` over response tokens, `ref`/`adv`/`update_actor` over all tokens; verl iterates a Python set there,
 * this is the order the real runs show) and the `perf/*` throughput keys.
 */
function timingPairs(timers: Array<[string, number]>, stepS: number, tokens: number, respTokens: number): Array<[string, number]> {
  const out: Array<[string, number]> = timers.map(([name, sec]) => [`timing_s/${name}`, round(sec)]);
  const sec = new Map(timers);
  for (const name of ["update_actor", "gen", "ref", "adv"]) {
    const t = sec.get(name);
    if (t !== undefined) out.push([`timing_per_token_ms/${name}`, round((t * 1000) / (name === "gen" ? respTokens : tokens), 8)]);
  }
  out.push(["perf/total_num_tokens", tokens], ["perf/time_per_step", round(stepS)], ["perf/throughput", round(tokens / stepS / 8, 4)]);
  return out;
}

/** The metrics dict of one training step, in the order verl fills it. */
function stepValues(ctx: RoundContext, p: Prng, step: number, withVal: boolean, withSave: boolean): { vals: FwValue[]; stepS: number } {
  const t = progress(step);
  const respMean = round(noisy(p, 300 + 400 * t, 0.05), 4);
  const promptMean = round(noisy(p, 180, 0.03), 4);
  const tokens = Math.round(BATCH * (respMean + promptMean));
  const score = Math.min(1, round(noisy(p, 0.25 + 0.5 * t, 0.08), 6));
  const gen = noisy(p, 40 + 30 * t, 0.05);
  const reward = noisy(p, 1.5, 0.1);
  const oldLogProb = noisy(p, 12, 0.05);
  const ref = ctx.opts.refPolicy ? noisy(p, 11, 0.05) : 0;
  const adv = noisy(p, 0.3, 0.1);
  const updateActor = noisy(p, 35 + 10 * t, 0.05);
  const save = withSave ? noisy(p, 20, 0.1) : 0;
  const updateWeights = noisy(p, 3, 0.1);
  const testing = withVal ? noisy(p, 25, 0.1) : 0;
  const stepS = gen + reward + oldLogProb + ref + adv + updateActor + save + updateWeights + p.uniform(0.5, 1);
  const seqMean = Math.round((tokens / BATCH) * 64);
  const pairs: Array<[string, number]> = [
    ["global_seqlen/min", Math.round(seqMean * 0.9)],
    ["global_seqlen/max", Math.round(seqMean * 1.1)],
    ["global_seqlen/minmax_diff", Math.round(seqMean * 0.2)],
    ["global_seqlen/balanced_min", seqMean],
    ["global_seqlen/balanced_max", seqMean + 1],
    ["global_seqlen/mean", seqMean],
    ["actor/entropy", round(noisy(p, 0.9 - 0.5 * t, 0.04))],
    ["perf/mfu/actor_infer", round(noisy(p, 0.3, 0.1))],
    ["training/rollout_probs_diff_valid", 1],
    ["training/rollout_probs_diff_max", round(noisy(p, 0.4, 0.2))],
    ["training/rollout_probs_diff_mean", round(noisy(p, 0.002, 0.2))],
    ["training/rollout_probs_diff_std", round(noisy(p, 0.01, 0.2))],
    ["training/rollout_actor_probs_pearson_corr", round(Math.min(1, noisy(p, 0.998, 0.001)))],
  ];
  const kl = noisy(p, 0.0005, 0.3);
  pairs.push(
    ["rollout_corr/training_ppl", round(noisy(p, 1.8, 0.05))],
    ["rollout_corr/training_log_ppl", round(noisy(p, 0.6, 0.05))],
    ["rollout_corr/kl", round(kl)],
    ["rollout_corr/k3_kl", round(kl * 0.9)],
    ["rollout_corr/rollout_ppl", round(noisy(p, 1.8, 0.05))],
    ["rollout_corr/rollout_log_ppl", round(noisy(p, 0.6, 0.05))],
    ["rollout_corr/log_ppl_diff", round(p.normal(0, 0.001))],
    ["rollout_corr/log_ppl_abs_diff", round(noisy(p, 0.002, 0.2))],
    ["rollout_corr/log_ppl_diff_max", round(noisy(p, 0.01, 0.2))],
    ["rollout_corr/log_ppl_diff_min", round(-noisy(p, 0.01, 0.2))],
    ["rollout_corr/ppl_ratio", round(noisy(p, 1, 0.002))],
    ["rollout_corr/chi2_token", round(noisy(p, 0.001, 0.3))],
    ["rollout_corr/chi2_seq", round(noisy(p, 0.01, 0.3))],
    ["actor/pg_clipfrac", round(noisy(p, 0.002 + 0.004 * t, 0.2))],
    ["actor/ppo_kl", round(noisy(p, 0.0003, 0.5))],
    ["actor/pg_clipfrac_lower", round(noisy(p, 0.0001, 0.5))],
    ["actor/pg_loss", round(p.normal(0, 0.01))],
  );
  if (ctx.opts.refPolicy) pairs.push(["actor/kl_loss", round(noisy(p, 0.001 * (1 + 5 * t), 0.2))], ["actor/kl_coef", 0.001]);
  pairs.push(
    ["actor/loss", round(p.normal(0, 0.01))],
    ["actor/grad_norm", gradNorm(ctx, step, round(noisy(p, 0.25, 0.2)))],
    ["actor/perf/max_memory_allocated_gb", round(noisy(p, 38, 0.01), 4)],
    ["actor/perf/max_memory_reserved_gb", round(noisy(p, 44, 0.01), 4)],
    ["actor/perf/cpu_memory_used_gb", round(noisy(p, 120, 0.02), 4)],
    ["actor/lr", 1e-6],
    ["perf/mfu/actor", round(noisy(p, 0.35, 0.1))],
  );
  const vals = values(pairs);
  if (withVal) vals.push(...valValues(p, step, ctx.opts.datasets, ctx.opts.rewardExtraInfo));
  const clip = round(noisy(p, 0.02 + 0.1 * t, 0.3), 6);
  const minResp = p.int(3, 40);
  const rest: Array<[string, number]> = [
    ["training/global_step", step],
    ["training/epoch", Math.floor((step - 1) / STEPS_PER_EPOCH)],
    ...mmm(p, "critic/score", score, 0.3),
    ...mmm(p, "critic/rewards", score, 0.3),
    ...mmm(p, "critic/advantages", round(p.normal(0, 0.005)), 1),
    ...mmm(p, "critic/returns", round(p.normal(0, 0.005)), 1),
    ["response_length/mean", respMean],
    ["response_length/max", MAX_RESPONSE],
    ["response_length/min", minResp],
    ["response_length/clip_ratio", clip],
    ["response_length_non_aborted/mean", respMean],
    ["response_length_non_aborted/max", MAX_RESPONSE],
    ["response_length_non_aborted/min", minResp],
    ["response_length_non_aborted/clip_ratio", clip],
    ["response/aborted_ratio", 0],
    ["prompt_length/mean", promptMean],
    ["prompt_length/max", p.int(300, MAX_PROMPT)],
    ["prompt_length/min", p.int(40, 90)],
    ["prompt_length/clip_ratio", 0],
    ["num_turns/min", 2],
    ["num_turns/max", 2],
    ["num_turns/mean", 2],
  ];
  const timers: Array<[string, number]> = [
    ["start_profile", round(p.uniform(0, 0.0001), 8)],
    ...agentLoopTimings(p, gen),
    ["gen", gen],
    ["reward", reward],
    ["old_log_prob", oldLogProb],
  ];
  if (ctx.opts.refPolicy) timers.push(["ref", ref]);
  timers.push(["adv", adv], ["update_actor", updateActor]);
  if (withSave) timers.push(["save_checkpoint", save]);
  timers.push(["update_weights", updateWeights], ["step", stepS]);
  if (withVal) timers.push(["testing", testing]);
  timers.push(["stop_profile", round(p.uniform(0, 0.0001), 8)]);
  rest.push(...timingPairs(timers, stepS, tokens, BATCH * respMean));
  vals.push(...values(rest));
  return { vals, stepS: stepS + testing };
}

/** The rows of one verl round (one W&B run). */
export function verlRound(ctx: RoundContext): RoundRows {
  const rows: GenRow[] = [];
  let timeMs = ctx.initMs + 30_000;
  const rng = (label: string) => createPrng(deriveSeed(ctx.seed, label));
  if (ctx.opts.valBeforeTrain) {
    const p = rng(`val:${ctx.checkpointStep}`);
    timeMs += Math.round(noisy(p, 25, 0.1) * 1000);
    const vals = valValues(p, ctx.checkpointStep, ctx.opts.datasets, ctx.opts.rewardExtraInfo);
    rows.push({ kind: "val", step: ctx.checkpointStep, explicitStep: ctx.checkpointStep, timeMs, values: vals });
  }
  for (let step = ctx.checkpointStep + 1; step <= ctx.lastStep; step++) {
    const last = step === ctx.lastStep && !ctx.crashed;
    const withVal = ctx.opts.testFreq > 0 && (step % ctx.opts.testFreq === 0 || last);
    const withSave = ctx.opts.saveFreq > 0 && (step % ctx.opts.saveFreq === 0 || last);
    const { vals, stepS } = stepValues(ctx, rng(`step:${step}`), step, withVal, withSave);
    timeMs += Math.round(stepS * 1000);
    rows.push({ kind: "train", step, explicitStep: step, timeMs, values: vals });
  }
  return { rows, summary: {} };
}
