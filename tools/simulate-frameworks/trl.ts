/**
 * TRL GRPOTrainer rows through transformers' `WandbCallback`: `train/global_step` counts optimizer
 * steps and is added to every row; a row every `logging_steps` (GRPO default 10) holding the HF
 * Trainer's `loss` (mean over the window, rounded to 4 decimals), `grad_norm` and `learning_rate`
 * (of the window's LAST step) and GRPO's `_metrics` averaged over the window; `num_tokens` is
 * cumulative (restored from the checkpoint on resume). Keys get the `train/` prefix (`eval_` ->
 * `eval/`). `train/kl` only when beta != 0. At the end of a finished run the Trainer logs
 * `train_runtime`, `train_samples_per_second`, `train_steps_per_second`, `train_loss`, `total_flos`
 * and `epoch`: the callback puts the first five in the run summary only (unprefixed), so the history row holds
 * `train/epoch` and `train/global_step` (plus GRPO metrics of steps after the last logged window).
 * Sources: https://github.com/huggingface/trl/blob/f2cd57710ae345ea6428ae95363267fcf38a3dc8/trl/trainer/grpo_trainer.py
 * (`log`, `_metrics`), https://github.com/huggingface/transformers/blob/main/src/transformers/integrations/integration_utils.py
 * (`WandbCallback.on_log`, `rewrite_logs`).
 */
import { createPrng, deriveSeed, type Prng } from "../simulate-slime/prng";
import { gradNorm, type GenRow, noisy, progress, round, type RoundContext, type RoundRows, values } from "./round-context";

const STEPS_PER_EPOCH = 250;
const SAMPLES_PER_STEP = 64;
const MAX_COMPLETION = 1024;

/** True when optimizer step `step` generates (with num_iterations k, every k-th step; the others reuse the last generation). */
function generates(ctx: RoundContext, step: number): boolean {
  return (step - 1) % ctx.opts.numIterations === 0;
}

/** Keys TRL fills only when it generates (completions, rewards, the sampling correction). */
const GENERATION_KEY = /^(completions\/|rewards\/|reward$|reward_std$|frac_reward_zero_std$|sampling\/)/;

/**
 * GRPO `_metrics` of one optimizer step, in the order TRL fills them (averaged per window when
 * logged); a step reusing the last generation has no completion, reward or sampling keys (TRL 1.16,
 * num_iterations 2, checked on a real run). Every value is drawn either way, so the others do not move.
 */
function grpoStep(ctx: RoundContext, p: Prng, step: number): Array<[string, number]> {
  const all = grpoValues(ctx, p, step);
  return generates(ctx, step) ? all : all.filter(([k]) => !GENERATION_KEY.test(k));
}

function grpoValues(ctx: RoundContext, p: Prng, step: number): Array<[string, number]> {
  const t = progress(step, 300);
  const mean = noisy(p, 300 + 400 * t, 0.06);
  const clipped = Math.min(1, noisy(p, 0.02 + 0.1 * t, 0.3));
  const out: Array<[string, number]> = [
    ["completions/mean_length", mean],
    ["completions/min_length", Math.round(mean * p.uniform(0.2, 0.5))],
    ["completions/max_length", clipped > 0 ? MAX_COMPLETION : Math.round(mean * 1.8)],
    ["completions/clipped_ratio", clipped],
    ["completions/mean_terminated_length", mean * (1 - clipped * 0.8)],
    ["completions/min_terminated_length", Math.round(mean * p.uniform(0.2, 0.5))],
    ["completions/max_terminated_length", Math.round(mean * p.uniform(1.3, 1.7))],
  ];
  let total = 0;
  for (const fn of ctx.opts.rewardFuncs) {
    const m = Math.min(1, noisy(p, 0.2 + 0.5 * t, 0.1));
    total += m;
    out.push([`rewards/${fn}/mean`, m], [`rewards/${fn}/std`, noisy(p, 0.35, 0.1)]);
  }
  out.push(["reward", total], ["reward_std", noisy(p, 0.4, 0.1)], ["frac_reward_zero_std", Math.min(1, noisy(p, 0.2, 0.3))]);
  if (ctx.opts.importanceSampling) {
    out.push(
      ["sampling/sampling_logp_difference/mean", noisy(p, 0.004, 0.2)],
      ["sampling/sampling_logp_difference/max", noisy(p, 1, 0.2)],
      ["sampling/importance_sampling_ratio/min", noisy(p, 0.05, 0.5)],
      ["sampling/importance_sampling_ratio/mean", noisy(p, 0.9, 0.05)],
      ["sampling/importance_sampling_ratio/max", noisy(p, 1.4, 0.1)],
    );
  }
  if (ctx.opts.beta !== 0) out.push(["kl", noisy(p, 0.0005 + 0.003 * t, 0.2)]);
  const low = noisy(p, 0.0001, 0.5);
  const high = noisy(p, 0.0002, 0.5);
  out.push(
    ["entropy", noisy(p, 0.7 - 0.4 * t, 0.05)],
    ["clip_ratio/low_mean", low],
    ["clip_ratio/low_min", low * p.uniform(0.2, 1)],
    ["clip_ratio/high_mean", high],
    ["clip_ratio/high_max", high * p.uniform(1, 3)],
    ["clip_ratio/region_mean", low + high],
    ["step_time", noisy(p, 20 + 10 * t, 0.05)],
  );
  return out;
}

/** Mean of each key over the steps of a window that have it, keys in order of first appearance. */
function windowMeans(window: Array<Array<[string, number]>>): Array<[string, number]> {
  const sums = new Map<string, { s: number; n: number }>();
  for (const w of window) {
    for (const [key, v] of w) {
      const acc = sums.get(key);
      if (acc) {
        acc.s += v;
        acc.n++;
      } else sums.set(key, { s: v, n: 1 });
    }
  }
  return [...sums].map(([key, { s, n }]) => [key, round(s / n, 8)] as [string, number]);
}

/**
 * TRL's profiling rows of one optimizer step: each profiled block logs its own
 * `wandb.log({"profiling/Time taken: GRPOTrainer.<name>": seconds})` when it exits (trl/extras/profiling.py),
 * so a real GRPO run with `report_to wandb` has several rows per step besides the logged windows.
 */
function profilingRows(ctx: RoundContext, step: number, startMs: number, stepTime: number): GenRow[] {
  const p = createPrng(deriveSeed(ctx.seed, `profiling:${step}`));
  const sync = noisy(p, 0.15, 0.1);
  const gen = stepTime * p.uniform(0.5, 0.6);
  const rewards = ctx.opts.rewardFuncs.map((fn) => [fn, noisy(p, 0.3, 0.2)] as [string, number]);
  const calc = rewards.reduce((a, [, d]) => a + d, 0) + noisy(p, 0.01, 0.2);
  const prepare = sync + gen + calc + noisy(p, 0.4, 0.1);
  const logps = stepTime * p.uniform(0.08, 0.12);
  const loss = stepTime * p.uniform(0.1, 0.15);
  const vllm = ctx.opts.generation === "vllm";
  const blocks: Array<[string, number, number]> = vllm ? [["sync_weights", sync, sync]] : [];
  blocks.push([vllm ? "vLLM.generate" : "transformers.generate", gen, sync + gen]);
  // num_iterations > 1: the old policy's log-probs are computed right after generating.
  if (ctx.opts.numIterations > 1) blocks.push(["_get_per_token_logps_and_entropies", logps, sync + gen]);
  let at = sync + gen;
  for (const [fn, d] of rewards) {
    at += d;
    blocks.push([fn, d, at]);
  }
  blocks.push(["_calculate_rewards", calc, sync + gen + calc], ["_prepare_inputs", prepare, prepare]);
  blocks.push(["_get_per_token_logps_and_entropies", logps, prepare + logps], ["compute_loss", loss, prepare + logps + loss]);
  // A step reusing the last generation only prepares its slice of it and trains.
  const kept = generates(ctx, step) ? blocks : blocks.slice(-3);
  return kept.map(([name, d, endS]) => ({
    kind: "profiling",
    step,
    explicitStep: null,
    timeMs: startMs + Math.round(Math.min(endS, stepTime - 0.01) * 1000),
    values: values([[`profiling/Time taken: GRPOTrainer.${name}`, round(d, 6)]]),
  }));
}

const epochAt = (s: number) => round(s / STEPS_PER_EPOCH, 6);

/** num_tokens is counted when generating: a window that only reused a generation logs none. */
const tokensOf = (generated: boolean, tokens: number): Array<[string, number]> => (generated ? [["num_tokens", tokens]] : []);

/** A row as the callback logs it: `train/`-prefixed pairs, then `train/global_step`. */
function callbackRow(kind: GenRow["kind"], step: number, timeMs: number, pairs: Array<[string, number]>): GenRow {
  const prefixed = pairs.map(([k, v]) => [k.startsWith("eval/") ? k : `train/${k}`, v] as [string, number]);
  return { kind, step, explicitStep: null, timeMs, values: values([...prefixed, ["train/global_step", step]]) };
}

/**
 * The eval row at `step` (Trainer `evaluate`, `eval_` keys rewritten to `eval/`), logged when the
 * evaluation ends: the GRPO metrics of the eval generations (no step time, no sampling correction),
 * the eval loss and num_tokens, and the Trainer's runtime and throughput (TRL 1.16, checked on a real run).
 */
function evalRow(ctx: RoundContext, step: number, startMs: number): GenRow {
  const q = createPrng(deriveSeed(ctx.seed, `eval:${step}`));
  const runtime = noisy(q, 40, 0.1);
  const grpo = grpoValues(ctx, q, step).filter(([k]) => k !== "step_time" && !k.startsWith("sampling/"));
  return callbackRow("eval", step, startMs + Math.round(runtime * 1000), [
    ...grpo.map(([k, v]) => [`eval/${k}`, round(v, 8)] as [string, number]),
    ["eval/num_tokens", Math.round(SAMPLES_PER_STEP * (grpo[0][1] + 150))],
    ["eval/loss", round(q.normal(0, 0.01), 6)],
    ["eval/runtime", round(runtime, 4)],
    ["eval/samples_per_second", round(200 / runtime, 3)],
    ["eval/steps_per_second", round(25 / runtime, 3)],
    ["epoch", epochAt(step)],
  ]);
}

/** The end-of-training row of a finished run and the summary-only scalars (see the file comment). */
function finalRow(ctx: RoundContext, timeMs: number, leftover: Array<Array<[string, number]>>, counted: Array<[string, number]>, lossSum: number): RoundRows {
  const runtime = round((timeMs - ctx.initMs) / 1000, 4);
  // speed_metrics uses max_steps and the Trainer divides the loss summed in this process by global_step.
  const scalars: Array<[string, number]> = [
    ["train_runtime", runtime],
    ["train_samples_per_second", round((ctx.lastStep * SAMPLES_PER_STEP) / runtime, 3)],
    ["train_steps_per_second", round(ctx.lastStep / runtime, 3)],
    ["total_flos", ctx.lastStep * 3.5e13],
    ["train_loss", lossSum / ctx.lastStep],
  ];
  const summary: Record<string, number> = {};
  // The steps after the last window: their num_tokens (when one generated) and GRPO means (TRL 1.16, checked on a real run).
  const pairs: Array<[string, number]> = leftover.length > 0 ? [...counted, ...windowMeans(leftover)] : [];
  if (ctx.opts.finalScalarsInHistory) pairs.push(...scalars);
  else for (const [k, v] of scalars) summary[k] = v;
  pairs.push(["epoch", epochAt(ctx.lastStep)]);
  return { rows: [callbackRow("final", ctx.lastStep, timeMs + 1000, pairs)], summary };
}

/** The rows of one TRL round (one W&B run). */
export function trlRound(ctx: RoundContext): RoundRows {
  const rows: GenRow[] = [];
  let timeMs = ctx.initMs + 60_000;
  let tokens = ctx.carry.get(ctx.checkpointStep) ?? 0;
  let window: Array<Array<[string, number]>> = [];
  let windowLoss: number[] = [];
  let lossSum = 0;
  let generated = false;
  for (let step = ctx.checkpointStep + 1; step <= ctx.lastStep; step++) {
    const p = createPrng(deriveSeed(ctx.seed, `step:${step}`));
    const grpo = grpoStep(ctx, p, step);
    const stepTime = grpo[grpo.length - 1][1];
    if (ctx.opts.profiling) rows.push(...profilingRows(ctx, step, timeMs, stepTime));
    timeMs += Math.round(stepTime * 1000);
    const loss = p.normal(0, 0.01);
    const grad = gradNorm(ctx, step, round(noisy(p, 0.05, 0.3), 8));
    if (generates(ctx, step)) {
      tokens += Math.round(SAMPLES_PER_STEP * (grpo[0][1] + 150));
      generated = true;
    }
    ctx.carry.set(step, tokens);
    window.push(grpo);
    windowLoss.push(loss);
    lossSum += loss;
    if (step % ctx.opts.loggingSteps !== 0) continue;
    rows.push(
      callbackRow("train", step, timeMs, [
        ["loss", round(windowLoss.reduce((a, b) => a + b, 0) / windowLoss.length, 4)],
        ["grad_norm", grad],
        ["learning_rate", round(1e-6 * (1 - step / 2000), 12)],
        ...tokensOf(generated, tokens),
        ...windowMeans(window),
        ["epoch", epochAt(step)],
      ]),
    );
    generated = false;
    window = [];
    windowLoss = [];
    if (ctx.opts.evalSteps !== null && step % ctx.opts.evalSteps === 0) {
      rows.push(evalRow(ctx, step, timeMs));
      timeMs = rows[rows.length - 1].timeMs;
    }
  }
  if (ctx.crashed) return { rows, summary: {} };
  const end = finalRow(ctx, timeMs, window, tokensOf(generated, tokens), lossSum);
  return { rows: [...rows, ...end.rows], summary: end.summary };
}
