/**
 * The TRL simulator's options against REAL TRL 1.16 runs (test/fixtures/real-runs/trl/, written by
 * GRPOTrainer with transformers.generate and wandb 0.31): key sets per row kind, which keys appear on
 * which rows, the profiling blocks and their order per optimizer step, the step_sync stamps, and what
 * the last rows hold. Values are synthetic and not compared. Not checked here: `generation: "vllm"`
 * and `importanceSampling` (vLLM needs a GPU), `finalScalarsInHistory` (older transformers).
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";

import type { HistoryRow } from "../../lib/types";
import { readWandbFile } from "../../lib/wandb-file/read-wandb-file";
import { simulateFramework } from "../../tools/simulate-frameworks/simulate";
import { metricKeys } from "../fixtures/metric-keys";
import type { FrameworkOptions } from "../../tools/simulate-frameworks/types";

const ROOT = path.resolve(__dirname, "../fixtures/real-runs/trl");
const SKIP = fs.existsSync(ROOT) ? false : `real TRL fixtures absent (${ROOT})`;
const PROFILING = "profiling/Time taken: GRPOTrainer.";

/** The rows of a real fixture case's first log. */
async function realRows(name: string): Promise<HistoryRow[]> {
  const dir = path.join(ROOT, name);
  const file = fs.readdirSync(dir).find((f) => f.startsWith("R0-") && f.endsWith(".wandb"))!;
  return (await readWandbFile(path.join(dir, file))).rows;
}

/** The simulator's rows for the real run's options: its reward functions, no vLLM, no anomalies. */
function simRows(opts: Partial<FrameworkOptions> & { steps: number }): HistoryRow[] {
  const { steps, ...rest } = opts;
  const sim = simulateFramework({
    framework: "trl",
    rounds: [{ steps }],
    loggingSteps: 1,
    evalSteps: null,
    beta: 0,
    rewardFuncs: ["reward_vowels", "reward_short"],
    importanceSampling: false,
    generation: "transformers",
    profiling: true,
    stepSync: true,
    anomalies: [],
    ...rest,
  });
  return sim.runs[0].history;
}

const isProfiling = (row: HistoryRow) => metricKeys(row).every((k) => k.startsWith("profiling/") || k === "train/global_step");
const isTrain = (row: HistoryRow) => "train/loss" in row || "train/entropy" in row;
const isEval = (row: HistoryRow) => metricKeys(row).some((k) => k.startsWith("eval/"));

/** Sorted union of the key sets of the rows that pass `keep`. */
function keySet(rows: HistoryRow[], keep: (r: HistoryRow) => boolean): string[] {
  return [...new Set(rows.filter(keep).flatMap(metricKeys))].sort();
}

/** Per logged training row: the profiling blocks before it, in order, as "block@stamped step". */
function blocksPerStep(rows: HistoryRow[]): string[][] {
  const out: string[][] = [];
  let cur: string[] = [];
  for (const row of rows) {
    if (isProfiling(row)) {
      const k = metricKeys(row).find((x) => x.startsWith("profiling/"))!;
      cur.push(`${k.slice(PROFILING.length)}@${row["train/global_step"]}`);
    } else if (isTrain(row)) {
      out.push(cur);
      cur = [];
    }
  }
  return out;
}

test("profiling + stepSync (logging_steps 1): the same blocks in the same order before each training row, stamped with the last logged step (0 before the first)", {
  skip: SKIP,
}, async () => {
  const real = blocksPerStep(await realRows("grpo-log1"));
  assert.deepEqual(real[0], [
    "transformers.generate@0",
    "reward_vowels@0",
    "reward_short@0",
    "_calculate_rewards@0",
    "_prepare_inputs@0",
    "_get_per_token_logps_and_entropies@0",
    "compute_loss@0",
  ]);
  assert.deepEqual(blocksPerStep(simRows({ steps: 6 })), real);
});

test("numIterations 2: a step reusing the last generation profiles only _prepare_inputs, the log-probs and the loss; a generating step computes the old log-probs after generating", {
  skip: SKIP,
}, async () => {
  const real = blocksPerStep(await realRows("grpo-log1-iter2"));
  assert.deepEqual(real[1], ["_prepare_inputs@1", "_get_per_token_logps_and_entropies@1", "compute_loss@1"]);
  assert.deepEqual(blocksPerStep(simRows({ steps: 6, numIterations: 2 })), real);
});

test("numIterations 2: completion, reward and num_tokens keys only on the rows of generating steps", { skip: SKIP }, async () => {
  const train = (rows: HistoryRow[]) => rows.filter(isTrain).map((r) => metricKeys(r).sort());
  const real = train(await realRows("grpo-log1-iter2"));
  assert.ok(!real[1].includes("train/completions/mean_length") && !real[1].includes("train/num_tokens") && !real[1].includes("train/reward"));
  assert.ok(real[0].includes("train/completions/mean_length") && real[0].includes("train/num_tokens"));
  assert.deepEqual(train(simRows({ steps: 6, numIterations: 2 })), real);
});

test("training rows: the same key set (beta 0 without train/kl; beta > 0 adds exactly train/kl)", { skip: SKIP }, async () => {
  const real0 = keySet(await realRows("grpo-log1"), isTrain);
  assert.deepEqual(keySet(simRows({ steps: 6 }), isTrain), real0);
  const realBeta = keySet(await realRows("grpo-log3-accum2-iter2-beta-eval"), isTrain);
  assert.deepEqual(
    realBeta.filter((k) => !real0.includes(k)),
    ["train/kl"],
  );
  assert.deepEqual(keySet(simRows({ steps: 7, loggingSteps: 3, numIterations: 2, beta: 0.04 }), isTrain), realBeta);
});

test("evalSteps: eval rows hold the GRPO metrics of the eval generations, loss, num_tokens, runtime and throughput, and train/epoch", {
  skip: SKIP,
}, async () => {
  const real = keySet(await realRows("grpo-log3-accum2-iter2-beta-eval"), isEval);
  assert.ok(real.includes("eval/completions/mean_length") && real.includes("eval/kl") && !real.includes("eval/step_time"));
  assert.deepEqual(keySet(simRows({ steps: 6, loggingSteps: 3, numIterations: 2, beta: 0.04, evalSteps: 3 }), isEval), real);
});

test("max_steps not a multiple of logging_steps: the last row holds the means of the steps after the last window, without loss, grad_norm, learning rate or run totals", {
  skip: SKIP,
}, async () => {
  const realRowsLog4 = await realRows("grpo-log4-max6");
  const last = (rows: HistoryRow[]) => metricKeys(rows.filter((r) => !isProfiling(r)).at(-1)!).sort();
  const real = last(realRowsLog4);
  assert.ok(real.includes("train/entropy") && !real.includes("train/loss") && !real.includes("train/grad_norm") && !real.includes("train/train_runtime"));
  assert.deepEqual(last(simRows({ steps: 6, loggingSteps: 4 })), real);
  // With logging_steps 1 there is no such window: the last row is train/epoch and train/global_step alone.
  assert.deepEqual(last(await realRows("grpo-log1")), ["train/epoch", "train/global_step"]);
  assert.deepEqual(last(simRows({ steps: 6 })), ["train/epoch", "train/global_step"]);
});
