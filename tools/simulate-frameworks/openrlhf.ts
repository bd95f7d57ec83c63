/**
 * OpenRLHF rows (`WandbLogger` in openrlhf/utils/logging_utils.py, metrics from ppo_trainer.py and
 * ray/ppo_actor.py): `_step` advances per `wandb.log` call, the step axis is `train/global_step`
 * (define_metric). Per training step: optionally the samples table first (a separate `wandb.log`
 * of a wandb.Table, non-numeric: its frozen row holds bookkeeping keys only), then the metrics row
 * (`train/<k>` for each metric, `train/global_step` last); `train/actor_grad_norm` is the LAST
 * optimizer step's grad norm of the batch; `train/entropy_loss` only with `--actor.entropy_coef`.
 * Eval rows `eval/<dataset>_pass1` + `eval/global_step` every `eval_steps`. A restart is a new run
 * (`reinit=True`) whose global_step continues from the checkpoint.
 * Sources: https://github.com/OpenRLHF/OpenRLHF/blob/3c3be6234e0cb353e76bb8019947db9dfe99fca7/openrlhf/utils/logging_utils.py
 * and .../openrlhf/trainer/ppo_trainer.py, .../openrlhf/trainer/ray/ppo_actor.py at the same commit.
 */
import { createPrng, deriveSeed } from "../simulate-slime/prng";
import { gradNorm, type GenRow, noisy, progress, round, type RoundContext, type RoundRows, values } from "./round-context";

/** The metrics row of one training step (keys as `log_train` writes them). */
function metricsRow(ctx: RoundContext, step: number, timeMs: number): GenRow {
  const p = createPrng(deriveSeed(ctx.seed, `step:${step}`));
  const t = progress(step);
  const generation = noisy(p, 60 + 40 * t, 0.05);
  const makeExperience = noisy(p, 15, 0.05);
  const ppoTrain = noisy(p, 45, 0.05);
  const broadcast = noisy(p, 4, 0.1);
  const stepS = generation + makeExperience + ppoTrain + broadcast + p.uniform(0.2, 0.8);
  const respMean = round(noisy(p, 350 + 450 * t, 0.05), 4);
  const reward = round(noisy(p, 0.2 + 0.5 * t, 0.08));
  const pairs: Array<[string, number]> = [
    ["policy_loss", round(p.normal(0, 0.02))],
    ["actor_grad_norm", gradNorm(ctx, step, round(noisy(p, 0.3, 0.25)))],
    ["ppo_clip_ratio", round(noisy(p, 0.003 + 0.004 * t, 0.2))],
    ["ppo_kl", round(noisy(p, 0.0004, 0.4))],
    ["vllm_kl", round(noisy(p, 0.001, 0.3))],
    ["kl", round(noisy(p, 0.0005 + 0.004 * t, 0.2))],
  ];
  if (ctx.opts.entropyCoef !== null) pairs.push(["entropy_loss", round(noisy(p, 0.8 - 0.4 * t, 0.04))]);
  pairs.push(
    ["reward", reward],
    ["return", round(reward - noisy(p, 0.002, 0.5))],
    ["response_length", round(respMean * (1 + 0.01 * p.normal()), 4)],
    ["total_length", round(respMean + noisy(p, 200, 0.03), 4)],
    ["actor_lr", 5e-7],
    ["rollout/response_length_mean", respMean],
    ["rollout/truncated_rate", round(noisy(p, 0.01 + 0.08 * t, 0.3))],
    ["timing/generation", round(generation)],
    ["timing/make_experience", round(makeExperience)],
    ["timing/ppo_train", round(ppoTrain)],
    ["timing/broadcast", round(broadcast)],
    ["timing/step_total", round(stepS)],
    ["global_step", step],
  );
  const row: GenRow = {
    kind: "train",
    step,
    explicitStep: null,
    timeMs: timeMs + Math.round(stepS * 1000),
    values: values(pairs.map(([k, v]) => [`train/${k}`, v])),
  };
  return row;
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
      // log_train logs the table before the metrics (both at the end of the step).
      const table = { _type: "table-file" as const, ncols: 3, nrows: tableRows, path: `media/table/train/generated_samples_${step}.table.json` };
      rows.push({ kind: "samples", step, explicitStep: null, timeMs: timeMs - 5, values: [{ key: "train/generated_samples", value: table }] });
    }
    rows.push(row);
    if (ctx.opts.evalSteps !== null && ctx.opts.evalSteps > 0 && step % ctx.opts.evalSteps === 0) {
      const p = createPrng(deriveSeed(ctx.seed, `eval:${step}`));
      timeMs += Math.round(noisy(p, 30, 0.1) * 1000);
      const pairs: Array<[string, number]> = ctx.opts.datasets.map((ds) => [
        `eval/${ds}_pass1`,
        round(Math.min(1, noisy(p, 0.3 + 0.4 * progress(step), 0.05)), 4),
      ]);
      pairs.push(["eval/global_step", step]);
      rows.push({ kind: "eval", step, explicitStep: null, timeMs, values: values(pairs) });
    }
  }
  return { rows, summary: {} };
}
