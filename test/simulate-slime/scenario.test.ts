/**
 * The scenario simulator produces each real-slime trait it claims, on tiny scenarios checked by hand
 * (docs/slime-logging.md), and its ground truth agrees with the rows it wrote.
 */
import assert from "node:assert/strict";
import { test } from "node:test";

import { parseFrozenRow, serializeFrozenRow } from "../../lib/values/frozen-row";
import type { HistoryRow } from "../../lib/types";
import { simulateScenario, scenarioRunHistories, type Scenario, type ScenarioRun } from "../../tools/simulate-slime/scenario";
import { isBookkeepingKey, metricKeys } from "../fixtures/metric-keys";

const kinds = (run: ScenarioRun) => run.rows.map((x) => x.kind);
const rowsOf = (run: ScenarioRun, kind: string) => run.rows.filter((x) => x.kind === kind);
const hist = (run: ScenarioRun, kind: string) => rowsOf(run, kind).map((x) => run.history[x.historyStep]);
const col = (rows: HistoryRow[], key: string) => rows.map((r) => r[key]);
const range = (lo: number, hi: number) => Array.from({ length: hi - lo + 1 }, (_, i) => lo + i);
const hasKey = (rows: HistoryRow[], key: string) => rows.some((r) => r[key] !== undefined);

test("pure: the same options give the same scenario, another seed other values", () => {
  const opts = { n: 2, critic: true, evalInterval: 2, rounds: [{ rollouts: 3 }, { rollouts: 3 }], restartOverlap: 1 };
  assert.deepEqual(simulateScenario(opts), simulateScenario(opts));
  const a = simulateScenario({ ...opts, seed: 1 }).runs[0].history[1];
  const b = simulateScenario({ ...opts, seed: 2 }).runs[0].history[1];
  assert.notEqual(a["perf/rollout_time"], b["perf/rollout_time"]);
});

test("history rows are in frozen form: _step = index, keys sorted, _runtime and _timestamp present", () => {
  const s = simulateScenario({ n: 2, rounds: [{ rollouts: 3 }] });
  const run = s.runs[0];
  assert.deepEqual(col(run.history, "_step"), range(0, run.history.length - 1));
  for (const r of run.history) {
    assert.deepEqual(parseFrozenRow(serializeFrozenRow(r)), r);
    assert.deepEqual(Object.keys(r), Object.keys(r).slice().sort());
    assert.ok(r._runtime > 0 && r._timestamp > 1.7e9);
  }
  // Sync order per rollout: manager, trainer rollout, N steps, trainer perf.
  assert.deepEqual(kinds(run).slice(0, 5), ["rollout-manager", "trainer-rollout", "optimizer-update", "optimizer-update", "trainer-perf"]);
  const [h] = scenarioRunHistories(s);
  assert.equal(h.runId, run.runId);
  assert.equal(h.state, "finished");
  assert.equal(h.rows, run.history);
});

test("alwaysUseTrainStep with N = 3: rollout/step and eval/step are rollout_id * 3, train/step never on those rows", () => {
  const s = simulateScenario({ n: 3, alwaysUseTrainStep: true, evalInterval: 1, logMultiTurn: true, logPassrate: true, rounds: [{ rollouts: 6 }] });
  const run = s.runs[0];
  const m4 = run.rows.find((x) => x.kind === "rollout-manager" && x.rolloutId === 4)!;
  const row = run.history[m4.historyStep];
  assert.equal(row["rollout/step"], 12);
  assert.equal(row["train/step"], undefined);
  for (const kind of ["rollout-manager", "trainer-rollout", "multi-turn", "passrate", "trainer-perf"]) {
    assert.deepEqual(col(hist(run, kind), "rollout/step"), [0, 3, 6, 9, 12, 15], kind);
    assert.ok(!hasKey(hist(run, kind), "train/step"), `${kind} has no train/step`);
  }
  assert.deepEqual(col(hist(run, "eval"), "eval/step"), [0, 0, 3, 6, 9, 12, 15]);
  assert.ok(!hasKey(hist(run, "eval"), "train/step"));
  assert.deepEqual(col(hist(run, "optimizer-update"), "train/step"), range(0, 17));
  // The first update of a batch has the batch's rollout/step as train/step.
  assert.equal(run.history[rowsOf(run, "optimizer-update")[12].historyStep]["train/step"], 12);
  assert.equal(s.truth.runs[0].flags.alwaysUseTrainStep, true);
  assert.equal(run.config.wandb_always_use_train_step, true);
  // Without the flag: the raw rollout id.
  const plain = simulateScenario({ n: 3, rounds: [{ rollouts: 6 }] }).runs[0];
  assert.deepEqual(col(hist(plain, "rollout-manager"), "rollout/step"), range(0, 5));
});

test("alwaysUseTrainStep floors like slime when global_batch_size does not divide the batch", () => {
  // 4 * 8 = 32 samples, N = 3 -> gbs 10; rollout 5 logs 5 * 32 // 10 = 16, not 15.
  const run = simulateScenario({ n: 3, rolloutBatchSize: 4, alwaysUseTrainStep: true, rounds: [{ rollouts: 6 }] }).runs[0];
  assert.equal(run.config.global_batch_size, 10);
  assert.deepEqual(col(hist(run, "rollout-manager"), "rollout/step"), [0, 3, 6, 9, 12, 16]);
  assert.deepEqual(col(hist(run, "optimizer-update"), "train/step").slice(15), [15, 16, 17]);
});

test("critic: one train/critic-* row per actor train/step, same train/step, before or after the actor's row", () => {
  const s = simulateScenario({ n: 2, critic: true, rounds: [{ rollouts: 8 }] });
  const run = s.runs[0];
  const actor = rowsOf(run, "optimizer-update");
  const critic = rowsOf(run, "critic-update");
  assert.deepEqual(
    critic.map((x) => x.trainStep),
    actor.map((x) => x.trainStep),
  );
  let before = 0;
  let after = 0;
  for (const c of critic) {
    const r = run.history[c.historyStep];
    const keys = metricKeys(r);
    assert.ok(
      keys.every((k) => k === "train/step" || k.startsWith("train/critic-")),
      keys.join(","),
    );
    assert.ok(keys.includes("train/critic-value_loss") && keys.includes("train/critic-lr-pg_1"));
    assert.equal(r["train/critic-step"], undefined);
    const a = actor.find((x) => x.trainStep === c.trainStep)!;
    if (c.historyStep < a.historyStep) before++;
    else after++;
  }
  assert.ok(before > 0 && after > 0, `critic rows before ${before}, after ${after}`);
  for (const u of s.truth.updates) {
    assert.ok(u.criticValues !== null && u.criticValues["train/critic-value_loss"] !== undefined);
    assert.equal(u.values["train/critic-value_loss"], undefined);
  }
  // PPO: values on the trainer rollout row, no zero_std counts on the manager row.
  assert.ok(hasKey(hist(run, "trainer-rollout"), "rollout/values"));
  assert.ok(!hist(run, "rollout-manager").some((r) => Object.keys(r).some((k) => k.includes("zero_std"))));
});

test("numCriticOnlySteps = 2: rollouts 0 and 1 have critic rows only", () => {
  const s = simulateScenario({ n: 2, critic: true, numCriticOnlySteps: 2, rounds: [{ rollouts: 4 }] });
  const run = s.runs[0];
  for (const rid of [0, 1]) {
    const mine = run.rows.filter((x) => x.rolloutId === rid).map((x) => x.kind);
    assert.deepEqual(mine.slice().sort(), ["critic-update", "critic-update", "rollout-manager"], `rollout ${rid}`);
  }
  assert.deepEqual(
    rowsOf(run, "optimizer-update").map((x) => x.trainStep),
    [4, 5, 6, 7],
  );
  assert.deepEqual(col(hist(run, "trainer-perf"), "rollout/step"), [2, 3]);
  assert.deepEqual(s.truth.runs[0].criticOnlyRollouts, [0, 1]);
  assert.deepEqual(
    s.truth.criticOnlySteps.map((c) => c.trainStep),
    [0, 1, 2, 3],
  );
  assert.deepEqual(
    s.truth.updates.map((u) => u.trainStep),
    [4, 5, 6, 7],
  );
  assert.throws(() => simulateScenario({ numCriticOnlySteps: 1 }), /invalid numCriticOnlySteps: 1/);
});

test("async: the manager row of rollout r+1 comes before the trainer rows of r, and there is no pre-training eval", () => {
  const run = simulateScenario({ n: 2, async: true, evalInterval: 1, rounds: [{ rollouts: 3 }] }).runs[0];
  const seq = run.rows.map((x) => `${x.kind}:${x.rolloutId}`);
  assert.deepEqual(seq, [
    "rollout-manager:0",
    "rollout-manager:1",
    "trainer-rollout:0",
    "optimizer-update:0",
    "optimizer-update:0",
    "trainer-perf:0",
    "eval:0",
    "rollout-manager:2",
    "trainer-rollout:1",
    "optimizer-update:1",
    "optimizer-update:1",
    "trainer-perf:1",
    "eval:1",
    "trainer-rollout:2",
    "optimizer-update:2",
    "optimizer-update:2",
    "trainer-perf:2",
    "eval:2",
  ]);
});

test("evalInterval: pre-training eval at the first rollout id, periodic after r when (r+1) % interval == 0", () => {
  const one = simulateScenario({ n: 2, evalInterval: 1, rounds: [{ rollouts: 3 }] });
  assert.deepEqual(col(hist(one.runs[0], "eval"), "eval/step"), [0, 0, 1, 2]);
  assert.deepEqual(
    one.truth.evals.map((e) => `${e.kind}:${e.evalStep}`),
    ["pre-train:0", "periodic:0", "periodic:1", "periodic:2"],
  );
  assert.equal(one.runs[0].rows[0].kind, "eval");
  const two = simulateScenario({ n: 2, evalInterval: 2, firstRolloutId: 3, rounds: [{ rollouts: 6 }] }).runs[0];
  assert.deepEqual(col(hist(two, "eval"), "eval/step"), [3, 3, 5, 7]);
  const zeroOnly = simulateScenario({ n: 2, evalInterval: 2, preTrainEvalOnlyAtZero: true, rounds: [{ rollouts: 2 }, { rollouts: 2 }] });
  assert.deepEqual(
    zeroOnly.truth.evals.map((e) => `${e.round} ${e.kind}:${e.evalStep}`),
    ["R0 pre-train:0", "R0 periodic:1", "R1 periodic:3"],
  );
  const skip = simulateScenario({ n: 2, evalInterval: 2, skipEvalBeforeTrain: true, rounds: [{ rollouts: 6 }] }).runs[0];
  assert.deepEqual(col(hist(skip, "eval"), "eval/step"), [1, 3, 5]);
  // An eval row: eval/<d>, eval/<d>/..., eval/<d>-truncated_ratio, eval/step; nothing of a rollout record.
  const e = hist(skip, "eval")[0];
  assert.ok(e["eval/aime"] !== undefined && e["eval/aime-truncated_ratio"] !== undefined && e["eval/aime/response_len/mean"] !== undefined);
  assert.ok(!Object.keys(e).some((k) => k.startsWith("rollout/") || k.startsWith("perf/")));
});

test("n per round: N = 2 then N = 3 (global_batch_size 24 then 16); display updates by lineage order", () => {
  const s = simulateScenario({
    rounds: [
      { rollouts: 3, n: 2 },
      { rollouts: 3, n: 3 },
    ],
  });
  assert.deepEqual(
    s.runs.map((r) => [r.n, r.config.global_batch_size]),
    [
      [2, 24],
      [3, 16],
    ],
  );
  assert.deepEqual(col(hist(s.runs[0], "optimizer-update"), "train/step"), range(0, 5));
  assert.deepEqual(col(hist(s.runs[1], "optimizer-update"), "train/step"), range(9, 17));
  assert.deepEqual(col(hist(s.runs[1], "optimizer-update"), "train/global_batch_size"), Array(9).fill(16));
  assert.equal(s.truth.displayRule, "lineage-order");
  assert.deepEqual(
    s.truth.updates.map((u) => u.displayUpdate),
    range(1, 15),
  );
  assert.deepEqual(
    s.truth.runs.map((r) => r.n),
    [2, 3],
  );
  // One N everywhere: the formula train/step - N * r0 + 1.
  const same = simulateScenario({ n: 2, firstRolloutId: 5, rounds: [{ rollouts: 2 }, { rollouts: 2 }] });
  assert.equal(same.truth.displayRule, "formula");
  assert.deepEqual(
    same.truth.updates.map((u) => [u.trainStep, u.displayUpdate]),
    [
      [10, 1],
      [11, 2],
      [12, 3],
      [13, 4],
      [14, 5],
      [15, 6],
      [16, 7],
      [17, 8],
    ],
  );
});

/** Row of a run by kind and rollout id. */
const find = (run: ScenarioRun, kind: string, rid: number) => run.history[run.rows.find((x) => x.kind === kind && x.rolloutId === rid)!.historyStep];

test("restartOverlap: the later round re-logs rollout ids with different values and supersedes the earlier round's", () => {
  const s = simulateScenario({ n: 2, restartOverlap: 2, rounds: [{ rollouts: 6 }, { rollouts: 4 }] });
  const [r0, r1] = s.runs;
  assert.deepEqual(col(hist(r0, "rollout-manager"), "rollout/step"), range(0, 5));
  assert.deepEqual(col(hist(r1, "rollout-manager"), "rollout/step"), range(4, 7));
  for (const rid of [4, 5]) {
    assert.notEqual(find(r0, "rollout-manager", rid)["perf/rollout_time"], find(r1, "rollout-manager", rid)["perf/rollout_time"]);
    assert.notEqual(find(r0, "trainer-perf", rid)["perf/actor_train_time"], find(r1, "trainer-perf", rid)["perf/actor_train_time"]);
  }
  const t0 = s.truth.runs[0];
  assert.deepEqual(t0.supersededRollouts, [4, 5]);
  assert.deepEqual(t0.supersededTrainSteps, [8, 9, 10, 11]);
  assert.deepEqual(t0.ownedRollouts, [0, 1, 2, 3]);
  assert.equal(t0.ownedUpdates, 8);
  assert.deepEqual(s.truth.runs[1].ownedRollouts, [4, 5, 6, 7]);
  assert.deepEqual(s.truth.runs[1].supersededRollouts, []);
  assert.ok(s.truth.superseded.every((x) => x.runId === r0.runId && x.supersededBy.runId === r1.runId));
  // The surviving values are the later round's.
  const u8 = s.truth.updates.find((u) => u.trainStep === 8)!;
  assert.equal(u8.runId, r1.runId);
  const r1Row = r1.history[u8.historyStep];
  assert.equal(u8.values["train/grad_norm"], r1Row["train/grad_norm"]);
  assert.deepEqual(
    s.truth.updates.map((u) => u.trainStep),
    range(0, 15),
  );
  assert.deepEqual(
    s.truth.updates.map((u) => u.displayUpdate),
    range(1, 16),
  );
});

test("crash: the round ends with a manager row and no trainer rows of that rollout; run state crashed", () => {
  const s = simulateScenario({ n: 2, rounds: [{ rollouts: 3, crash: true }] });
  const run = s.runs[0];
  assert.equal(run.state, "crashed");
  assert.equal(run.rows[run.rows.length - 1].kind, "rollout-manager");
  assert.deepEqual(
    run.rows.filter((x) => x.rolloutId === 2).map((x) => x.kind),
    ["rollout-manager"],
  );
  assert.deepEqual(s.truth.runs[0].crashedRollouts, [2]);
  const last = s.truth.rollouts[s.truth.rollouts.length - 1];
  assert.equal(last.crashed, true);
  assert.equal(last.values["perf/rollout_time"], find(run, "rollout-manager", 2)["perf/rollout_time"]);
  assert.equal(scenarioRunHistories(s)[0].state, "crashed");
});

test("resumeInPlace: one run re-logs rollouts after a crash, _step and _runtime continuing; the re-logged records win", () => {
  const s = simulateScenario({ n: 2, rounds: [{ rollouts: 6, resumeInPlace: { crashAfter: 3, relog: 1 } }] });
  const run = s.runs[0];
  assert.equal(s.runs.length, 1);
  assert.deepEqual(col(hist(run, "rollout-manager"), "rollout/step"), [0, 1, 2, 3, 2, 3, 4, 5]);
  assert.deepEqual(col(hist(run, "optimizer-update"), "train/step"), [0, 1, 2, 3, 4, 5, 4, 5, 6, 7, 8, 9, 10, 11]);
  assert.deepEqual(col(run.history, "_step"), range(0, run.history.length - 1));
  const rt = col(run.history, "_runtime");
  for (let i = 1; i < rt.length; i++) assert.ok(rt[i] > rt[i - 1], `_runtime increases at _step ${i}`);
  const t = s.truth.runs[0];
  assert.deepEqual(t.supersededRollouts, [2, 3]);
  assert.deepEqual(t.supersededTrainSteps, [4, 5]);
  assert.deepEqual(t.crashedRollouts, [3]);
  assert.deepEqual(t.ownedRollouts, [0, 1, 2, 3, 4, 5]);
  const sup2 = s.truth.superseded.find((x) => x.kind === "rollout" && x.rolloutId === 2)!;
  const survivor2 = s.truth.rollouts.find((x) => x.rolloutId === 2)!;
  assert.ok(Math.max(...sup2.historySteps) < Math.min(...survivor2.historySteps));
  assert.equal(survivor2.crashed, false);
  assert.equal(run.state, "finished");
});

test("interleaveWriters: _step interleaves writers, each writer keeps its own order", () => {
  const run = simulateScenario({ n: 2, critic: true, interleaveWriters: true, rounds: [{ rollouts: 8 }] }).runs[0];
  const printed = run.printedRows.map((x) => x.historyStep);
  assert.notDeepEqual(printed, range(0, printed.length - 1), "some rows change place");
  for (const w of ["manager", "actor", "critic"]) {
    const steps = run.printedRows.filter((x) => x.writer === w).map((x) => x.historyStep);
    assert.deepEqual(
      steps,
      steps.slice().sort((a, b) => a - b),
      `${w} keeps its order`,
    );
  }
  assert.deepEqual(col(run.history, "_step"), range(0, run.history.length - 1));
});

test("profiles: each era's keys (2025-10, 2025-12, 2026-05, 2026-08)", () => {
  const keysOf = (s: Scenario) => new Set(s.runs[0].history.flatMap((r) => Object.keys(r)));
  const opts = { n: 2, specDecoding: true, rounds: [{ rollouts: 2 }] };
  const k10 = keysOf(simulateScenario({ ...opts, profile: "2025-10" }));
  assert.ok(k10.has("perf/total_train_time") && !k10.has("perf/step_time"));
  assert.ok(k10.has("train/train_rollout_logprob_diff") && !k10.has("train/train_rollout_logprob_abs_diff"));
  for (const k of ["rollout/response_len/mean", "rollout/truncated_ratio", "train/global_batch_size", "perf/effective_tokens_per_gpu_per_sec"])
    assert.ok(!k10.has(k), k);
  const k12 = keysOf(simulateScenario({ ...opts, profile: "2025-12" }));
  assert.ok(k12.has("rollout/rollout/spec_accept_rate") && k12.has("rollout/rollout/spec_accept_length") && !k12.has("rollout/spec_accept_rate"));
  assert.ok(k12.has("rollout/response_len/median") && !k12.has("rollout/response_len/max") && k12.has("perf/step_time"));
  const k05 = keysOf(simulateScenario({ ...opts, profile: "2026-05" }));
  for (const k of ["rollout/prefix_cache_hit_rate", "rollout/avg_cached_tokens_per_sample", "train/global_batch_size", "rollout/spec_accept_rate"])
    assert.ok(k05.has(k), k);
  for (const k of ["rollout/partition", "perf/request/e2e_latency/mean", "perf/decode/throughput/mean"]) assert.ok(!k05.has(k), k);
  const k08 = keysOf(simulateScenario({ ...opts, profile: "2026-08" }));
  for (const k of [
    "rollout/partition",
    "perf/request/e2e_latency/mean",
    "perf/request/queue_time/max",
    "perf/decode/throughput/min",
    "train/lr-pg_0",
    "train/lr-pg_1",
    "perf/sleep_time",
    "perf/wake_up_time",
  ])
    assert.ok(k08.has(k), k);
  assert.throws(() => simulateScenario({ profile: "2024-01" as never }), /invalid profile: 2024-01/);
});

test("2025-10 logs the signed logprob diff: some values are negative", () => {
  const run = simulateScenario({ profile: "2025-10", n: 2, rounds: [{ rollouts: 6 }] }).runs[0];
  assert.ok(col(hist(run, "optimizer-update"), "train/train_rollout_logprob_diff").some((v) => v < 0));
});

test("kl_coef 0: no ref model keys and rollout/kl = 0.0; kl_coef > 0: ref keys and a non-zero kl", () => {
  const none = simulateScenario({ n: 2, rounds: [{ rollouts: 2 }] }).runs[0];
  assert.deepEqual(col(hist(none, "trainer-rollout"), "rollout/kl"), [0, 0]);
  for (const k of ["rollout/ref_log_probs", "perf/ref_log_probs_time", "perf/ref_log_probs_tflops"]) assert.ok(!hasKey(none.history, k), k);
  const ref = simulateScenario({ n: 2, klCoef: 0.001, rounds: [{ rollouts: 2 }] }).runs[0];
  for (const k of ["rollout/ref_log_probs", "perf/ref_log_probs_time", "perf/ref_log_probs_tflops"]) assert.ok(hasKey(ref.history, k), k);
  assert.ok(col(hist(ref, "trainer-rollout"), "rollout/kl").every((v) => v > 0));
});

test("save_model_time lands on the perf row after a save: rollouts 4 and 8 for save_interval 4", () => {
  const run = simulateScenario({ n: 1, saveInterval: 4, rounds: [{ rollouts: 10 }] }).runs[0];
  const withSave = hist(run, "trainer-perf").filter((r) => r["perf/save_model_time"] !== undefined);
  assert.deepEqual(col(withSave, "rollout/step"), [4, 8]);
});

test("plain floats for truncated_ratio and repetition_frac, np.float64 only on passrate", () => {
  const run = simulateScenario({ n: 2, logPassrate: true, rounds: [{ rollouts: 2 }] }).runs[0];
  for (const x of run.rows) {
    for (const v of x.values) {
      if (v.kind === "np.float64") assert.ok(v.key.startsWith("passrate/") || v.key.includes("-pass@"), v.key);
    }
  }
});

/** The truth's records point at rows holding exactly their values; every row is owned, superseded, an eval or critic-only. */
function checkTruthAgainstRows(s: Scenario): void {
  const byId = new Map(s.runs.map((r) => [r.runId, r]));
  const accounted = new Set<string>();
  const mark = (runId: string, step: number) => {
    assert.ok(!accounted.has(`${runId}/${step}`), `${runId} _step ${step} accounted twice`);
    accounted.add(`${runId}/${step}`);
  };
  for (const u of s.truth.updates) {
    const row = byId.get(u.runId)!.history[u.historyStep];
    assert.equal(row["train/step"], u.trainStep);
    for (const [k, v] of Object.entries(u.values)) assert.ok(Object.is(row[k], v), `${u.runId} ${u.trainStep} ${k}`);
    mark(u.runId, u.historyStep);
    if (u.criticHistoryStep !== null) {
      const crow = byId.get(u.runId)!.history[u.criticHistoryStep];
      assert.equal(crow["train/step"], u.trainStep);
      for (const [k, v] of Object.entries(u.criticValues!)) assert.ok(Object.is(crow[k], v), `${u.runId} critic ${u.trainStep} ${k}`);
      mark(u.runId, u.criticHistoryStep);
    }
  }
  for (const r of s.truth.rollouts) {
    const run = byId.get(r.runId)!;
    const merged: Record<string, number> = {};
    for (const st of r.historySteps) for (const [k, v] of Object.entries(run.history[st])) if (!isBookkeepingKey(k) && k !== "rollout/step") merged[k] = v;
    assert.deepEqual(merged, r.values, `${r.runId} rollout ${r.rolloutId}`);
    for (const st of r.historySteps) assert.equal(run.history[st]["rollout/step"], r.loggedRolloutStep);
    for (const st of r.historySteps) mark(r.runId, st);
  }
  for (const c of s.truth.criticOnlySteps) mark(c.runId, c.historyStep);
  for (const e of s.truth.evals) {
    assert.equal(byId.get(e.runId)!.history[e.historyStep]["eval/step"], e.evalStep);
    mark(e.runId, e.historyStep);
  }
  for (const x of s.truth.superseded) for (const st of x.historySteps) mark(x.runId, st);
  assert.equal(
    accounted.size,
    s.runs.reduce((a, r) => a + r.history.length, 0),
    "every row accounted for",
  );
  // Every rollout id from the first to the last appears once among the surviving records.
  const rids = s.truth.rollouts.map((r) => r.rolloutId);
  assert.deepEqual(rids, range(rids[0], rids[0] + rids.length - 1));
}

test("truth accounts for every row, for each profile with async, critic and interleaved writers", () => {
  for (const profile of ["2025-10", "2025-12", "2026-05", "2026-08"] as const) {
    const s = simulateScenario({
      profile,
      seed: 3,
      n: 2,
      async: true,
      critic: true,
      numCriticOnlySteps: 2,
      evalInterval: 1,
      interleaveWriters: true,
      logMultiTurn: true,
      logPassrate: true,
      restartOverlap: 1,
      rounds: [
        { rollouts: 4, resumeInPlace: { crashAfter: 2, relog: 2 } },
        { rollouts: 3, crash: true },
        { rollouts: 3, n: 4 },
      ],
    });
    checkTruthAgainstRows(s);
  }
});

test("truth agrees with the rows it describes, across every flag at once", () => {
  const s = simulateScenario({
    n: 3,
    alwaysUseTrainStep: true,
    critic: true,
    numCriticOnlySteps: 1,
    evalInterval: 2,
    restartOverlap: 2,
    rounds: [
      { rollouts: 5, crash: true },
      { rollouts: 5, n: 2, resumeInPlace: { crashAfter: 2, relog: 1 } },
      { rollouts: 3, n: 2 },
    ],
  });
  checkTruthAgainstRows(s);
  // With N changed between rounds train/step repeats across runs (R0's rollout 2 ends at 8, R1's rollout 3
  // starts at 3 * 2 = 6), so only (run, train/step) is unique and the lineage is ordered by rollout id.
  assert.deepEqual(
    s.truth.updates.map((u) => u.trainStep),
    [3, 4, 5, 6, 7, 8, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17],
  );
  assert.equal(new Set(s.truth.updates.map((u) => `${u.runId}/${u.trainStep}`)).size, s.truth.updates.length);
  // Round by round, hand-derived: R0 logs 0..4 (N 3, 4 crashed), R1 starts at 3 (overlap 2) with N 2 and resumes
  // in place after 2 complete rollouts (3, 4) and crashed 5, from 4; R2 starts at 6 (overlap 2 from R1's last 7).
  assert.deepEqual(
    s.truth.runs.map((r) => r.ownedRollouts),
    [
      [0, 1, 2],
      [3, 4, 5],
      [6, 7, 8],
    ],
  );
  assert.deepEqual(
    s.truth.runs.map((r) => r.supersededRollouts),
    [[3, 4], [4, 5, 6, 7], []],
  );
  assert.deepEqual(
    s.truth.runs.map((r) => r.crashedRollouts),
    [[4], [5], []],
  );
  assert.deepEqual(s.truth.runs[0].criticOnlyRollouts, [0]);
  assert.equal(s.truth.displayRule, "lineage-order");
  assert.deepEqual(
    s.truth.updates.map((u) => u.displayUpdate),
    range(1, s.truth.updates.length),
  );
  // R0: rollouts 1, 2 (N 3) = 6 updates; R1: 3, 4, 5 (N 2) = 6; R2: 6, 7, 8 = 6.
  assert.deepEqual(
    s.truth.runs.map((r) => r.ownedUpdates),
    [6, 6, 6],
  );
});
