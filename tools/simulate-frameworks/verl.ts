/**
 * verl rows (`RayPPOTrainer.fit`, volcengine/verl ray_trainer.py): one `wandb.log(metrics,
 * step=global_steps)` per training step, so `_step` is the global step; `training/global_step` in
 * every step row; a val-before-train row at the starting step (val keys only); val keys merged into
 * every `test_freq`-th step row and into the last step of a finished run. A restart is a new W&B run
 * whose val-before-train row sits at the checkpoint step and whose step rows continue from there.
 * Sources: https://github.com/volcengine/verl/blob/b178a3cd56f58b2d502255daba591e92833930a7/verl/trainer/ppo/ray_trainer.py
 * and metric_utils.py in the same folder (keys of `compute_data_metrics`, `compute_timing_metrics`).
 */
import { createPrng, deriveSeed, type Prng } from "../simulate-slime/prng";
import { gradNorm, type GenRow, noisy, progress, round, type RoundContext, type RoundRows, values } from "./round-context";
import type { FwValue } from "./types";

const BATCH = 256; // responses per step (train_batch_size 64 prompts x n 4)
const MAX_RESPONSE = 1024;
const MAX_PROMPT = 512;
const STEPS_PER_EPOCH = 50;

/** The val keys of one validation with n=2 samples per prompt (verl `process_validation_metrics` naming). */
function valValues(p: Prng, step: number, datasets: string[]): FwValue[] {
  const out: Array<[string, number]> = [];
  for (const ds of datasets) {
    const acc = Math.min(1, round(noisy(p, 0.3 + 0.4 * progress(step), 0.05), 4));
    out.push(
      [`val-aux/${ds}/reward/mean@1`, acc],
      [`val-core/${ds}/reward/mean@2`, round(noisy(p, acc, 0.02), 4)],
      [`val-aux/${ds}/reward/std@2`, round(p.uniform(0.1, 0.3), 4)],
      [`val-core/${ds}/reward/best@2/mean`, Math.min(1, round(acc + p.uniform(0.05, 0.15), 4))],
      [`val-core/${ds}/reward/best@2/std`, round(p.uniform(0.01, 0.05), 4)],
      [`val-aux/${ds}/reward/worst@2/mean`, Math.max(0, round(acc - p.uniform(0.05, 0.15), 4))],
      [`val-aux/${ds}/reward/worst@2/std`, round(p.uniform(0.01, 0.05), 4)],
    );
  }
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

/**
 * verl's timers (`timing_s/<name>`, then `timing_s/step`), per-token times (`gen` over response tokens,
 * `ref`/`adv`/`update_actor` over all tokens, as `compute_timing_metrics`) and `perf/*` throughput keys.
 */
function timingPairs(timers: Array<[string, number]>, stepS: number, tokens: number, respTokens: number): Array<[string, number]> {
  const out: Array<[string, number]> = timers.map(([name, sec]) => [`timing_s/${name}`, round(sec)]);
  out.push(["timing_s/step", round(stepS)]);
  for (const [name, sec] of timers) {
    if (name === "gen") out.push(["timing_per_token_ms/gen", round((sec * 1000) / respTokens, 8)]);
    else if (name === "ref" || name === "adv" || name === "update_actor") out.push([`timing_per_token_ms/${name}`, round((sec * 1000) / tokens, 8)]);
  }
  out.push(["perf/total_num_tokens", tokens], ["perf/time_per_step", round(stepS)], ["perf/throughput", round(tokens / stepS / 8, 4)]);
  return out;
}

/** The metrics dict of one training step, in the order verl fills it. */
function stepValues(ctx: RoundContext, p: Prng, step: number, withVal: boolean): { vals: FwValue[]; stepS: number } {
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
  const updateWeights = noisy(p, 3, 0.1);
  const testing = withVal ? noisy(p, 25, 0.1) : 0;
  const stepS = gen + reward + oldLogProb + ref + adv + updateActor + updateWeights + testing + p.uniform(0.5, 1);
  const pairs: Array<[string, number]> = [
    ["actor/entropy", round(noisy(p, 0.9 - 0.5 * t, 0.04))],
    ["actor/pg_loss", round(p.normal(0, 0.01))],
    ["actor/pg_clipfrac", round(noisy(p, 0.002 + 0.004 * t, 0.2))],
    ["actor/ppo_kl", round(noisy(p, 0.0003, 0.5))],
    ["actor/pg_clipfrac_lower", round(noisy(p, 0.0001, 0.5))],
    ["actor/grad_norm", gradNorm(ctx, step, round(noisy(p, 0.25, 0.2)))],
  ];
  if (ctx.opts.refPolicy) pairs.push(["actor/kl_loss", round(noisy(p, 0.001 * (1 + 5 * t), 0.2))], ["actor/kl_coef", 0.001]);
  pairs.push(
    ["perf/max_memory_allocated_gb", round(noisy(p, 38, 0.01), 4)],
    ["actor/lr", 1e-6],
    ["training/global_step", step],
    ["training/epoch", Math.floor((step - 1) / STEPS_PER_EPOCH)],
    ...mmm(p, "critic/score", score, 0.3),
    ...mmm(p, "critic/rewards", score, 0.3),
    ...mmm(p, "critic/advantages", round(p.normal(0, 0.005)), 1),
    ...mmm(p, "critic/returns", round(p.normal(0, 0.005)), 1),
  );
  pairs.push(
    ["response_length/mean", respMean],
    ["response_length/max", MAX_RESPONSE],
    ["response_length/min", p.int(3, 40)],
    ["response_length/clip_ratio", round(noisy(p, 0.02 + 0.1 * t, 0.3), 6)],
    ["prompt_length/mean", promptMean],
    ["prompt_length/max", p.int(300, MAX_PROMPT)],
    ["prompt_length/min", p.int(40, 90)],
    ["prompt_length/clip_ratio", 0],
  );
  const timers: Array<[string, number]> = [
    ["gen", gen],
    ["reward", reward],
    ["old_log_prob", oldLogProb],
  ];
  if (ctx.opts.refPolicy) timers.push(["ref", ref]);
  timers.push(["adv", adv], ["update_actor", updateActor], ["update_weights", updateWeights]);
  if (withVal) timers.push(["testing", testing]);
  pairs.push(...timingPairs(timers, stepS, tokens, BATCH * respMean));
  const vals = values(pairs);
  if (withVal) vals.push(...valValues(p, step, ctx.opts.datasets));
  return { vals, stepS };
}

/** The rows of one verl round (one W&B run). */
export function verlRound(ctx: RoundContext): RoundRows {
  const rows: GenRow[] = [];
  let timeMs = ctx.initMs + 30_000;
  const rng = (label: string) => createPrng(deriveSeed(ctx.seed, label));
  if (ctx.opts.valBeforeTrain) {
    const p = rng(`val:${ctx.checkpointStep}`);
    timeMs += Math.round(noisy(p, 25, 0.1) * 1000);
    rows.push({ kind: "val", step: ctx.checkpointStep, explicitStep: ctx.checkpointStep, timeMs, values: valValues(p, ctx.checkpointStep, ctx.opts.datasets) });
  }
  for (let step = ctx.checkpointStep + 1; step <= ctx.lastStep; step++) {
    const last = step === ctx.lastStep && !ctx.crashed;
    const withVal = ctx.opts.testFreq > 0 && (step % ctx.opts.testFreq === 0 || last);
    const { vals, stepS } = stepValues(ctx, rng(`step:${step}`), step, withVal);
    timeMs += Math.round(stepS * 1000);
    rows.push({ kind: "train", step, explicitStep: step, timeMs, values: vals });
  }
  return { rows, summary: {} };
}
