/**
 * OpenRLHF rows as OpenRLHF 0.11.2 logs them (`WandbLogger` in openrlhf/utils/logging_utils.py, metrics from
 * trainer/ppo_trainer.py and trainer/ray/ppo_actor.py): `_step` advances per `wandb.log` call, the step axis
 * is `train/global_step` (define_metric). Per training step: optionally the samples table first (a separate
 * `wandb.log` of a wandb.Table, non-numeric: its frozen row holds bookkeeping keys only, plus the stamped
 * `train/global_step` with step_sync), then the metrics row: the actor's status (policy loss, KL, clip ratio,
 * lr, the LAST optimizer step's grad norm, the experience info: reward, score, return, lengths, truncation,
 * group reward std, the reward function's `extra_logs`; `entropy_loss` only with `--actor.entropy_coef`),
 * then `timing/*` and `rollout/*`, `train/global_step` last; each as `train/<k>`. Eval rows (`eval/eval_<ds>_pass<n>`,
 * `..._pass1`, per-data-source and overall length/truncation, `eval/eval_num_samples`, `eval/global_step`)
 * after the metrics row every `eval_steps`. A restart is a new run (`reinit=True`) whose global_step
 * continues from the checkpoint. Key sets and row order are checked against real 0.11.2 runs
 * (test/simulate-frameworks/real-traits-openrlhf.test.ts).
 */
import { createPrng, deriveSeed, type Prng } from "../simulate-slime/prng";
import { gradNorm, type GenRow, noisy, progress, round, type RoundContext, type RoundRows, values } from "./round-context";

/** The metrics row of one training step (keys as `log_train` writes them). */
function metricsRow(ctx: RoundContext, step: number, timeMs: number): GenRow {
  const p = createPrng(deriveSeed(ctx.seed, `step:${step}`));
  const t = progress(step);
  const generation = noisy(p, 60 + 40 * t, 0.05);
  const makeExperience = noisy(p, 15, 0.05);
  const ppoTrain = noisy(p, 45, 0.05);
  const broadcast = noisy(p, 4, 0.1);
  const stepS = generation + makeExperience + ppoTrain + broadcast;
  const respMean = round(noisy(p, 350 + 450 * t, 0.05), 4);
  const reward = round(noisy(p, 0.2 + 0.5 * t, 0.08));
  const truncated = round(noisy(p, 0.01 + 0.08 * t, 0.3));
  // The actor's status: ppo_actor.py averages its per-micro-batch dicts over `set().union(*keys)`, so
  // their order is Python's set order; this is the order of the real runs (PYTHONHASHSEED=0).
  const pairs: Array<[string, number]> = [
    ["return", round(reward - noisy(p, 0.002, 0.5))],
    ["truncated", truncated],
    ["ppo_kl", round(noisy(p, 0.0004, 0.4))],
    ["group_reward_std", round(noisy(p, 0.3, 0.1))],
    ["actor_lr", 5e-7],
    ["reward", reward],
    ["ppo_clip_ratio", round(noisy(p, 0.003 + 0.004 * t, 0.2))],
  ];
  if (ctx.opts.entropyCoef !== null) pairs.push(["entropy_loss", round(noisy(p, 0.8 - 0.4 * t, 0.04))]);
  pairs.push(
    ["total_length", round(respMean + noisy(p, 200, 0.03), 4)],
    ["score", reward],
    ["response_length", round(respMean * (1 + 0.01 * p.normal()), 4)],
    ["response_clip_ratio", truncated],
    ["actor_grad_norm", gradNorm(ctx, step, round(noisy(p, 0.3, 0.25)))],
  );
  for (const k of ctx.opts.extraLogs) pairs.push([k, round(p.uniform(0, 1))]);
  pairs.push(
    ["policy_loss", round(p.normal(0, 0.02))],
    ["logprobs_diff", round(p.normal(0, 0.01))],
    ["kl", round(noisy(p, 0.0005 + 0.004 * t, 0.2))],
    ["timing/make_experience", round(makeExperience)],
    ["timing/ppo_train", round(ppoTrain)],
    ["timing/broadcast", round(broadcast)],
    ["rollout/reward_mean", reward],
    ["rollout/reward_std", round(noisy(p, 0.4, 0.1))],
    ["rollout/response_length_mean", respMean],
    ["rollout/truncated_rate", truncated],
    ["rollout/num_samples", 256],
    ["timing/generation", round(generation)],
    ["timing/step_total", round(stepS)],
    ["global_step", step],
  );
  const row: GenRow = {
    kind: "train",
    step,
    explicitStep: null,
    timeMs: timeMs + Math.round((stepS + p.uniform(0.2, 0.8)) * 1000),
    values: values(pairs.map(([k, v]) => [`train/${k}`, v])),
  };
  return row;
}

/** The eval row (`compute_eval_metrics` through `log_eval`): per data source pass@n and pass@1, length, truncation; then overall. */
function evalPairs(ctx: RoundContext, p: Prng, step: number): Array<[string, number]> {
  const n = ctx.opts.evalSamplesPerPrompt;
  const out: Array<[string, number]> = [];
  for (const ds of ctx.opts.datasets) {
    const pass1 = round(Math.min(1, noisy(p, 0.3 + 0.4 * progress(step), 0.05)), 4);
    if (n > 1) out.push([`eval/eval_${ds}_pass${n}`, round(Math.min(1, pass1 + p.uniform(0.05, 0.2)), 4)]);
    out.push(
      [`eval/eval_${ds}_pass1`, pass1],
      [`eval/eval_${ds}_response_length_mean`, round(noisy(p, 400 + 300 * progress(step), 0.05), 4)],
      [`eval/eval_${ds}_truncated_rate`, round(noisy(p, 0.05, 0.3), 4)],
    );
  }
  out.push(
    ["eval/eval_response_length_mean", round(noisy(p, 400 + 300 * progress(step), 0.05), 4)],
    ["eval/eval_truncated_rate", round(noisy(p, 0.05, 0.3), 4)],
    ["eval/eval_num_samples", 128 * n],
    ["eval/global_step", step],
  );
  return out;
}

/** The rows of one OpenRLHF round (one W&B run). */
export function openrlhfRound(ctx: RoundContext): RoundRows {
  const rows: GenRow[] = [];
  let timeMs = ctx.initMs + 45_000;
  let tableRows = 0;
  for (let step = ctx.checkpointStep + 1; step <= ctx.lastStep; step++) {
    const row = metricsRow(ctx, step, timeMs);
    timeMs = row.timeMs;
    if (ctx.opts.samplesTable) {
      tableRows++;
      // log_train logs the table before the metrics (both at the end of the step): the step's first wandb.log.
      const table = { _type: "table-file" as const, ncols: 3, nrows: tableRows, path: `media/table/train/generated_samples_${step}.table.json` };
      rows.push({ kind: "samples", step, explicitStep: null, timeMs: timeMs - 5, values: [{ key: "train/generated_samples", value: table }] });
    }
    rows.push(row);
    if (ctx.opts.evalSteps !== null && ctx.opts.evalSteps > 0 && step % ctx.opts.evalSteps === 0) {
      const p = createPrng(deriveSeed(ctx.seed, `eval:${step}`));
      timeMs += Math.round(noisy(p, 30, 0.1) * 1000);
      rows.push({ kind: "eval", step, explicitStep: null, timeMs, values: values(evalPairs(ctx, p, step)) });
    }
  }
  return { rows, summary: {} };
}
