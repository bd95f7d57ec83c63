/**
 * Hand-checked traits of the framework simulator on tiny scenarios: step axes, val/eval rows, keys
 * present only under their option, restarts (re-logged steps with new values, listed as superseded),
 * the planted NaN / 0 grad norms, and the truth's means recomputed by hand.
 */
import assert from "node:assert/strict";
import { test } from "node:test";

import { simulateFramework } from "../../tools/simulate-frameworks/simulate";
import type { HistoryRow } from "../../lib/types";
import { BOOKKEEPING_KEYS, metricKeys } from "../fixtures/metric-keys";

const keysOf = (h: HistoryRow) => Object.keys(h).sort();
const dataKeys = (h: HistoryRow) => metricKeys(h).sort();
const isVal = (k: string) => k.startsWith("val-core/") || k.startsWith("val-aux/");

test("same seed, same simulation; another seed, other values", () => {
  const a = simulateFramework({ framework: "verl", seed: 3 });
  assert.deepEqual(simulateFramework({ framework: "verl", seed: 3 }), a);
  const b = simulateFramework({ framework: "verl", seed: 4 });
  assert.notEqual(b.runs[0].history[1]["actor/entropy"], a.runs[0].history[1]["actor/entropy"]);
});

test("verl: _step is the global step; the val-before-train row holds val keys only; val merged every test_freq-th step and at the last", () => {
  const s = simulateFramework({ framework: "verl", rounds: [{ steps: 7 }], testFreq: 3 });
  const h = s.runs[0].history;
  assert.equal(h.length, 8);
  assert.deepEqual(
    h.map((r) => r._step),
    [0, 1, 2, 3, 4, 5, 6, 7],
  );
  assert.ok(dataKeys(h[0]).length > 0 && dataKeys(h[0]).every(isVal), "row 0: val keys only");
  assert.ok(!("training/global_step" in h[0]));
  for (const r of h.slice(1)) assert.equal(r._step, r["training/global_step"]);
  // Steps 3 and 6 (test_freq 3) and 7 (last step of a finished run) carry val keys and timing_s/testing.
  assert.deepEqual(
    h
      .slice(1)
      .filter((r) => dataKeys(r).some(isVal))
      .map((r) => r._step),
    [3, 6, 7],
  );
  assert.deepEqual(
    h.filter((r) => "timing_s/testing" in r).map((r) => r._step),
    [3, 6, 7],
  );
  assert.ok("val-core/gsm8k/reward/mean@2" in h[3] && "actor/entropy" in h[3]);
  assert.equal(h[1]["training/epoch"], 0);
  assert.ok("timing_s/ref" in h[1] && "actor/kl_loss" in h[1]);
  const noRef = simulateFramework({ framework: "verl", rounds: [{ steps: 2 }], refPolicy: false, valBeforeTrain: false }).runs[0].history;
  assert.equal(noRef.length, 2);
  assert.ok(!("timing_s/ref" in noRef[0]) && !("actor/kl_loss" in noRef[0]) && !("timing_per_token_ms/ref" in noRef[0]));
});

test("verl restart: a new run with its val row at the checkpoint step re-logs the steps after it with other values; the truth lists them as superseded", () => {
  const s = simulateFramework({ framework: "verl", rounds: [{ steps: 6, state: "crashed" }, { steps: 4 }], restartOverlap: 2, testFreq: 100 });
  const [r0, r1] = s.runs;
  assert.notEqual(r0.runId, r1.runId);
  assert.equal(r1.checkpointStep, 4);
  assert.deepEqual(
    r1.history.map((r) => r._step),
    [4, 5, 6, 7, 8],
  );
  assert.ok(dataKeys(r1.history[0]).every(isVal));
  const old5 = r0.history.find((r) => r._step === 5)!;
  const new5 = r1.history[1];
  assert.equal(new5["training/global_step"], 5);
  assert.notEqual(new5["actor/entropy"], old5["actor/entropy"]);
  assert.notEqual(new5["timing_s/gen"], old5["timing_s/gen"]);
  const [t0, t1] = s.truth.runs;
  assert.deepEqual(t0.trainingSteps, [1, 2, 3, 4, 5, 6]);
  assert.deepEqual(t0.ownedSteps, [1, 2, 3, 4]);
  assert.deepEqual(t0.supersededSteps, [5, 6]);
  assert.deepEqual(t1.ownedSteps, [5, 6, 7, 8]);
  assert.deepEqual(t1.supersededSteps, []);
  assert.deepEqual(s.truth.lineageSteps, [1, 2, 3, 4, 5, 6, 7, 8]);
  assert.deepEqual([t0.historyRows, t0.trainingRows, t0.ownedRows, t1.historyRows, t1.ownedRows], [7, 6, 4, 5, 4]);
  // A crashed run gets no final validation; a finished one does at its last step only (test_freq 100).
  assert.ok(!dataKeys(r0.history[6]).some(isVal));
  assert.ok(dataKeys(r1.history[4]).some(isVal));
  assert.equal(r0.state, "crashed");
});

test("verl: the planted NaN and exact-0 grad norms; the truth's means recomputed by hand (NaN left out and counted)", () => {
  const s = simulateFramework({
    framework: "verl",
    rounds: [{ steps: 3 }, { steps: 2 }],
    restartOverlap: 1,
    anomalies: [
      { round: 0, step: 2, kind: "nan" },
      { round: 0, step: 1, kind: "zero" },
    ],
  });
  const h0 = s.runs[0].history;
  assert.equal(h0[1]["actor/grad_norm"], 0);
  assert.ok(Number.isNaN(h0[2]["actor/grad_norm"]));
  const t0 = s.truth.runs[0];
  // Round 0 owns steps 1 and 2 (round 1 resumes from step 2): grad norm 0 and NaN -> mean 0 over 1 value, 1 NaN.
  assert.deepEqual(t0.ownedSteps, [1, 2]);
  assert.deepEqual(t0.means["actor/grad_norm"], { mean: 0, n: 1, nan: 1 });
  assert.equal(t0.means["actor/entropy"].mean, (h0[1]["actor/entropy"] + h0[2]["actor/entropy"]) / 2);
  assert.equal(t0.means["response_length/clip_ratio"].n, 2);
  const h1 = s.runs[1].history;
  const t1 = s.truth.runs[1];
  assert.deepEqual(
    h1.map((r) => r._step),
    [2, 3, 4],
  );
  assert.deepEqual(t1.ownedSteps, [3, 4]);
  assert.equal(t1.means["timing_s/gen"].mean, (h1[1]["timing_s/gen"] + h1[2]["timing_s/gen"]) / 2);
  assert.deepEqual(t1.means["actor/grad_norm"], { mean: (h1[1]["actor/grad_norm"] + h1[2]["actor/grad_norm"]) / 2, n: 2, nan: 0 });
});

test("openrlhf: _step counts calls, train/global_step is the step; entropy_loss absent by default; eval rows every eval_steps", () => {
  const s = simulateFramework({ framework: "openrlhf", rounds: [{ steps: 4 }], evalSteps: 2 });
  const h = s.runs[0].history;
  assert.deepEqual(
    h.map((r) => r._step),
    [0, 1, 2, 3, 4, 5],
  );
  assert.deepEqual(
    h.map((r) => r["train/global_step"] ?? `eval ${r["eval/global_step"]}`),
    [1, 2, "eval 2", 3, 4, "eval 4"],
  );
  assert.deepEqual(dataKeys(h[2]), [
    "eval/eval_gsm8k_pass1",
    "eval/eval_gsm8k_pass4",
    "eval/eval_gsm8k_response_length_mean",
    "eval/eval_gsm8k_truncated_rate",
    "eval/eval_num_samples",
    "eval/eval_response_length_mean",
    "eval/eval_truncated_rate",
    "eval/global_step",
  ]);
  for (const r of h) assert.ok(!("train/entropy_loss" in r));
  assert.ok("train/actor_grad_norm" in h[0] && "train/rollout/truncated_rate" in h[0] && "train/timing/step_total" in h[0]);
  const withEntropy = simulateFramework({ framework: "openrlhf", rounds: [{ steps: 1 }], entropyCoef: 0.001 }).runs[0].history;
  assert.ok("train/entropy_loss" in withEntropy[0]);
});

test("openrlhf: a samples table before each metrics row freezes to bookkeeping keys only; a restart continues global_step from the checkpoint", () => {
  const s = simulateFramework({ framework: "openrlhf", rounds: [{ steps: 3 }, { steps: 2 }], restartOverlap: 1, samplesTable: true, evalSteps: null });
  const h0 = s.runs[0].history;
  assert.deepEqual(
    h0.map((r) => r._step),
    [0, 1, 2, 3, 4, 5],
  );
  for (const i of [0, 2, 4]) assert.deepEqual(keysOf(h0[i]), BOOKKEEPING_KEYS);
  assert.deepEqual(
    [1, 3, 5].map((i) => h0[i]["train/global_step"]),
    [1, 2, 3],
  );
  assert.deepEqual(
    s.runs[0].rows[0].values.map((v) => v.key),
    ["train/generated_samples"],
  );
  const h1 = s.runs[1].history;
  assert.equal(h1[1]["train/global_step"], 3);
  assert.notEqual(h1[1]["train/ppo_kl"], h0[5]["train/ppo_kl"]);
  assert.deepEqual(s.truth.runs[0].supersededSteps, [3]);
  assert.deepEqual(s.truth.runs[0].ownedSteps, [1, 2]);
  assert.deepEqual([s.truth.runs[0].historyRows, s.truth.runs[0].trainingRows], [6, 3]);
  const m = s.truth.runs[1].means;
  assert.equal(m["train/response_length"].mean, (h1[1]["train/response_length"] + h1[3]["train/response_length"]) / 2);
  assert.equal(m["train/rollout/response_length_mean"].mean, (h1[1]["train/rollout/response_length_mean"] + h1[3]["train/rollout/response_length_mean"]) / 2);
  assert.notEqual(m["train/response_length"].mean, m["train/rollout/response_length_mean"].mean);
});

test("trl: rows only every logging_steps, train/kl absent with beta 0, the final row and the summary-only end-of-training scalars", () => {
  const s = simulateFramework({ framework: "trl", rounds: [{ steps: 9 }], loggingSteps: 3, anomalies: [] });
  const h = s.runs[0].history;
  assert.deepEqual(
    h.map((r) => r["train/global_step"]),
    [3, 6, 9, 9],
  );
  assert.deepEqual(
    h.map((r) => r._step),
    [0, 1, 2, 3],
  );
  for (const r of h) assert.ok(!("train/kl" in r));
  assert.ok("train/entropy" in h[0] && "train/clip_ratio/region_mean" in h[0] && "train/completions/clipped_ratio" in h[0]);
  assert.ok("train/rewards/accuracy_reward/mean" in h[0] && "train/sampling/importance_sampling_ratio/mean" in h[0]);
  assert.ok(h[1]["train/num_tokens"] > h[0]["train/num_tokens"], "num_tokens is cumulative");
  assert.deepEqual(dataKeys(h[3]), ["train/epoch", "train/global_step"]);
  assert.deepEqual(Object.keys(s.runs[0].summary), ["train_runtime", "train_samples_per_second", "train_steps_per_second", "total_flos", "train_loss"]);
  const inHistory = simulateFramework({ framework: "trl", rounds: [{ steps: 9 }], loggingSteps: 3, finalScalarsInHistory: true, beta: 0.04 });
  const last = inHistory.runs[0].history[3];
  assert.deepEqual(dataKeys(last), [
    "train/epoch",
    "train/global_step",
    "train/total_flos",
    "train/train_loss",
    "train/train_runtime",
    "train/train_samples_per_second",
    "train/train_steps_per_second",
  ]);
  assert.deepEqual(inHistory.runs[0].summary, {});
  assert.ok("train/kl" in inHistory.runs[0].history[0]);
  const crashed = simulateFramework({ framework: "trl", rounds: [{ steps: 9, state: "crashed" }], loggingSteps: 3 });
  assert.deepEqual(
    crashed.runs[0].history.map((r) => r["train/global_step"]),
    [3, 6, 9],
  );
});

test("trl: a window's means, the last step's grad norm, steps after the last window in the final row, and a resume", () => {
  const s = simulateFramework({
    framework: "trl",
    rounds: [{ steps: 5 }, { steps: 5 }],
    loggingSteps: 2,
    restartOverlap: 2,
    anomalies: [{ round: 0, step: 4, kind: "nan" }],
  });
  const [r0, r1] = s.runs;
  assert.deepEqual(
    r0.history.map((r) => r["train/global_step"]),
    [2, 4, 5],
  );
  assert.ok(Number.isNaN(r0.history[1]["train/grad_norm"]));
  // The final row carries the GRPO metrics of step 5 (after the last logged window) but no loss.
  assert.ok("train/entropy" in r0.history[2] && !("train/loss" in r0.history[2]));
  // Round 1 resumes from step 3: its first row (step 4) averages steps 4 only; then 6, 8, and the final row at 8.
  assert.equal(r1.checkpointStep, 3);
  assert.deepEqual(
    r1.history.map((r) => r["train/global_step"]),
    [4, 6, 8, 8],
  );
  assert.ok(r1.history[0]["train/num_tokens"] > r0.history[0]["train/num_tokens"]);
  assert.ok(r1.history[0]["train/num_tokens"] < r0.history[1]["train/num_tokens"] * 2);
  const [t0, t1] = s.truth.runs;
  assert.deepEqual(t0.ownedSteps, [2]);
  assert.deepEqual(t0.supersededSteps, [4]);
  assert.deepEqual(t1.ownedSteps, [4, 6, 8]);
  assert.deepEqual(t0.means["train/grad_norm"], { mean: r0.history[0]["train/grad_norm"], n: 1, nan: 0 });
  const e = r1.history.slice(0, 3).map((r) => r["train/entropy"]);
  assert.equal(t1.means["train/entropy"].mean, (e[0] + e[1] + e[2]) / 3);
  assert.equal(t1.ownedRows, 3);
  assert.equal(t1.historyRows, 4);
});

test("trl profiling rows: one wandb.log per profiled block and step, each holding one key; step_sync adds the last train/global_step", () => {
  const opts = { framework: "trl" as const, rounds: [{ steps: 4 }], loggingSteps: 2, rewardFuncs: ["_reward"], anomalies: [] };
  const plain = simulateFramework(opts);
  const prof = simulateFramework({ ...opts, profiling: true });
  const h = prof.runs[0].history;
  // 7 blocks per step (sync_weights, vLLM.generate, _reward, _calculate_rewards, _prepare_inputs, logps, compute_loss) + 2 logged windows + the final row.
  assert.equal(h.length, 4 * 7 + 3);
  assert.deepEqual(dataKeys(h[0]), ["profiling/Time taken: GRPOTrainer.sync_weights"]);
  assert.deepEqual(dataKeys(h[6]), ["profiling/Time taken: GRPOTrainer.compute_loss"]);
  assert.equal(h[14]["train/global_step"], 2);
  // The profiling rows draw from their own streams: the training rows' values do not change.
  const train = (x: HistoryRow[]) => x.filter((r) => "train/loss" in r).map((r) => r["train/entropy"]);
  assert.deepEqual(train(h), train(plain.runs[0].history));
  assert.equal(prof.truth.runs[0].historyRows, 31);
  assert.equal(prof.truth.runs[0].trainingRows, 2);
  const synced = simulateFramework({ ...opts, profiling: true, stepSync: true }).runs[0].history;
  // Steps 1-2's blocks come before any train/global_step was logged (0); step 3's carry the last one (2).
  assert.deepEqual(
    synced.slice(0, 14).map((r) => r["train/global_step"]),
    new Array(14).fill(0),
  );
  assert.deepEqual(
    synced.slice(15, 22).map((r) => r["train/global_step"]),
    [2, 2, 2, 2, 2, 2, 2],
  );
});

test("openrlhf step_sync: a samples-table row gets the previous step's train/global_step (0 at first), an eval row eval/epoch 0", () => {
  const s = simulateFramework({ framework: "openrlhf", rounds: [{ steps: 3 }], samplesTable: true, stepSync: true, evalSteps: 2 });
  const h = s.runs[0].history;
  assert.deepEqual(dataKeys(h[0]), ["train/global_step"]);
  assert.deepEqual(dataKeys(h[2]), ["train/global_step"]);
  assert.deepEqual(
    h.map((r) => r["train/global_step"]),
    [0, 1, 1, 2, undefined, 2, 3],
  );
  assert.deepEqual(dataKeys(h[4]), [
    "eval/epoch",
    "eval/eval_gsm8k_pass1",
    "eval/eval_gsm8k_pass4",
    "eval/eval_gsm8k_response_length_mean",
    "eval/eval_gsm8k_truncated_rate",
    "eval/eval_num_samples",
    "eval/eval_response_length_mean",
    "eval/eval_truncated_rate",
    "eval/global_step",
  ]);
  assert.equal(h[4]["eval/epoch"], 0);
  const verl = simulateFramework({ framework: "verl", rounds: [{ steps: 2 }], stepSync: true });
  assert.deepEqual(verl.runs[0].history, simulateFramework({ framework: "verl", rounds: [{ steps: 2 }] }).runs[0].history);
});

test("invalid options are refused naming the option and value", () => {
  assert.throws(() => simulateFramework({ framework: "slime" as never }), /invalid framework: "slime"/);
  assert.throws(() => simulateFramework({ framework: "verl", rounds: [] }), /invalid rounds: \[\]/);
  assert.throws(() => simulateFramework({ framework: "verl", rounds: [{ steps: 0 }] }), /invalid rounds/);
  assert.throws(() => simulateFramework({ framework: "verl", restartOverlap: -1 }), /invalid restartOverlap: -1/);
  assert.throws(() => simulateFramework({ framework: "verl", rounds: [{ steps: 3 }, { steps: 3 }], restartOverlap: 4 }), /invalid restartOverlap: 4/);
  assert.throws(() => simulateFramework({ framework: "trl", loggingSteps: 0 }), /invalid loggingSteps: 0/);
});
