/**
 * Checks the bundled sample in data/ from the frozen files alone, against the reference analysis
 * (docs/reference-analysis.md). The reference values are typed in here as printed in that
 * document, not read back from the generator.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import * as path from "node:path";
import { before, test } from "node:test";

import { loadArchive } from "../../lib/archive/load-archive";
import type { Archive, HistoryRow, RunHistory } from "../../lib/types";

const DATA = path.resolve(__dirname, "../../data");

/** docs/reference-analysis.md, policy table and response/throughput table, as printed. */
const REFERENCE = [
  { round: "R0", entropy: "0.18025", clip: "0.00123", grad: "2.18", tokPerS: "13538.13", respLen: "288", truncPct: "11.8", rolloutTime: "234" },
  { round: "R1", entropy: "0.15557", clip: "0.00058", grad: "2.16", tokPerS: "13502.78", respLen: "269", truncPct: "20.4", rolloutTime: "245" },
  { round: "R2", entropy: "0.14212", clip: "0.00056", grad: "1.38", tokPerS: "13468.47", respLen: "205", truncPct: "22.3", rolloutTime: "224" },
  { round: "R3", entropy: "0.13258", clip: "0.00038", grad: "1.14", tokPerS: "13527.11", respLen: "247", truncPct: "15.8", rolloutTime: "209" },
];
const ZERO_GRAD_UPDATES = [66, 70, 82, 116, 140, 142, 156, 160];
const REAL_RUN_IDS = ["8ov14yyc", "chjizc8u", "7vhbv5j0", "y4xk6byf"];

let archive: Archive;
before(async () => {
  archive = await loadArchive(path.join(DATA, "wandb"));
});

const isUpdate = (r: HistoryRow) => r["train/step"] !== undefined;
const isManager = (r: HistoryRow) => r["perf/rollout_time"] !== undefined;
const isTrainerRollout = (r: HistoryRow) => r["rollout/log_probs"] !== undefined;
const isTrainerPerf = (r: HistoryRow) => r["perf/actor_train_time"] !== undefined;
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const col = (rows: HistoryRow[], key: string) => rows.map((r) => r[key]);
const range = (lo: number, hi: number) => Array.from({ length: hi - lo + 1 }, (_, i) => lo + i);

/** Asserts that `value` prints as `printed` at the printed precision (and is not on a rounding edge). */
function assertPrinted(value: number, printed: string, what: string): void {
  const decimals = printed.includes(".") ? printed.split(".")[1].length : 0;
  assert.equal(value.toFixed(decimals), printed, `${what}: ${value}`);
  assert.ok(Math.abs(value - Number(printed)) < 0.5 * 10 ** -decimals, `${what}: ${value} is within half a unit of ${printed}`);
}

test("runs.json and manifest: four finished runs with synthetic ids, 100 events each", () => {
  const runsFile = JSON.parse(readFileSync(path.join(DATA, "runs.json"), "utf8"));
  assert.equal(runsFile.entity, "sample-entity");
  assert.equal(runsFile.project, "slime-grpo-sample");
  assert.deepEqual(
    runsFile.runs.map((r: { round: string }) => r.round),
    ["R0", "R1", "R2", "R3"],
  );
  assert.deepEqual(
    runsFile.runs.map((r: { runId: string }) => r.runId),
    archive.runs.map((r) => r.runId),
  );
  for (const run of archive.manifest.runs) {
    assert.match(run.runId, /^sim-r[0-3]-[a-z0-9]{4}$/);
    assert.ok(!REAL_RUN_IDS.includes(run.runId));
    assert.equal(run.state, "finished");
    assert.equal(run.historyEvents, 100);
    assert.equal(run.lastStep, 99);
    assert.equal(run.entity, "sample-entity");
    assert.equal(run.project, "slime-grpo-sample");
  }
  for (const run of archive.runs) {
    assert.equal(run.rows.length, 100);
    assert.deepEqual(col(run.rows, "_step"), range(0, 99));
  }
});

test("every batch writes manager, trainer-rollout, 2 updates, trainer-perf rows, in that order", () => {
  for (const run of archive.runs) {
    for (let b = 0; b < 20; b++) {
      const rows = run.rows.slice(5 * b, 5 * b + 5);
      assert.ok(isManager(rows[0]) && isTrainerRollout(rows[1]) && isUpdate(rows[2]) && isUpdate(rows[3]) && isTrainerPerf(rows[4]), `${run.runId} batch ${b}`);
      const rid = rows[0]["rollout/step"];
      assert.equal(rows[1]["rollout/step"], rid);
      assert.equal(rows[4]["rollout/step"], rid);
      assert.deepEqual([rows[2]["train/step"], rows[3]["train/step"]], [2 * rid, 2 * rid + 1]);
      // Manager and trainer perf rows carry disjoint perf/* keys.
      const managerPerf = Object.keys(rows[0]).filter((k) => k.startsWith("perf/"));
      assert.ok(managerPerf.every((k) => rows[4][k] === undefined));
    }
  }
});

test("rollout/step covers 1..80 and train/step 2..161, each exactly once per row kind, round r owning its block", () => {
  const all = (pick: (r: HistoryRow) => boolean, key: string) => archive.runs.flatMap((run) => col(run.rows.filter(pick), key));
  for (const pick of [isManager, isTrainerRollout, isTrainerPerf]) assert.deepEqual(all(pick, "rollout/step"), range(1, 80));
  assert.deepEqual(all(isUpdate, "train/step"), range(2, 161));
  archive.runs.forEach((run, r) => {
    assert.deepEqual(col(run.rows.filter(isManager), "rollout/step"), range(20 * r + 1, 20 * r + 20));
    assert.deepEqual(
      col(run.rows.filter(isUpdate), "train/step").map((s) => s - 1),
      range(40 * r + 1, 40 * r + 40),
    );
  });
});

test("round means equal the reference tables at the printed precision", () => {
  archive.runs.forEach((run: RunHistory, r) => {
    const ref = REFERENCE[r];
    assert.equal(run.round, ref.round);
    const upd = run.rows.filter(isUpdate);
    const batches = run.rows.filter(isManager);
    const perf = run.rows.filter(isTrainerPerf);
    assert.equal(upd.length, 40);
    assert.equal(batches.length, 20);
    assertPrinted(mean(col(upd, "train/entropy_loss")), ref.entropy, `${ref.round} entropy`);
    assertPrinted(mean(col(upd, "train/pg_clipfrac")), ref.clip, `${ref.round} clip fraction`);
    assertPrinted(mean(col(upd, "train/grad_norm")), ref.grad, `${ref.round} gradient norm`);
    assertPrinted(mean(col(perf, "perf/actor_train_tok_per_s")), ref.tokPerS, `${ref.round} actor tokens/s`);
    assertPrinted(mean(col(batches, "rollout/response_len/mean")), ref.respLen, `${ref.round} response length`);
    assertPrinted(100 * mean(col(batches, "rollout/truncated_ratio")), ref.truncPct, `${ref.round} truncated %`);
    assertPrinted(mean(col(batches, "perf/rollout_time")), ref.rolloutTime, `${ref.round} rollout time`);
  });
});

test("gradient norm is exactly 0 on updates 66, 70, 82, 116, 140, 142, 156, 160 and nowhere else", () => {
  const zero = archive.runs.flatMap((run) => run.rows.filter((r) => isUpdate(r) && r["train/grad_norm"] === 0).map((r) => r["train/step"] - 1));
  assert.deepEqual(zero, ZERO_GRAD_UPDATES);
  // Those batches have at least the 4 equal-reward groups of one update.
  for (const run of archive.runs) {
    for (const upd of run.rows.filter((r) => isUpdate(r) && r["train/grad_norm"] === 0)) {
      const rid = Math.floor(upd["train/step"] / 2);
      const manager = run.rows.find((r) => isManager(r) && r["rollout/step"] === rid)!;
      const groups = Object.keys(manager)
        .filter((k) => k.startsWith("rollout/zero_std/count_"))
        .reduce((a, k) => a + manager[k], 0);
      assert.ok(groups >= 4, `rollout ${rid}: ${groups} zero-std groups`);
      assert.equal(upd["train/pg_clipfrac"], 0);
      assert.equal(upd["train/pg_loss"], 0);
    }
  }
});

test("ppo_kl is ~0 on the first update of each batch and non-zero on the second", () => {
  for (const run of archive.runs) {
    for (const upd of run.rows.filter(isUpdate)) {
      const kl = upd["train/ppo_kl"];
      if (upd["train/step"] % 2 === 0) assert.ok(Math.abs(kl) < 1e-9, `train/step ${upd["train/step"]}: ${kl}`);
      else assert.ok(Math.abs(kl) > 1e-7, `train/step ${upd["train/step"]}: ${kl}`);
    }
  }
});

test("log-prob gap stays near 0.01 and entropy drifts down", () => {
  const roundEntropy: number[] = [];
  for (const run of archive.runs) {
    const upd = run.rows.filter(isUpdate);
    for (const gap of col(upd, "train/train_rollout_logprob_abs_diff")) assert.ok(gap > 0.005 && gap < 0.015, `gap ${gap}`);
    const e = col(upd, "train/entropy_loss");
    assert.ok(mean(e.slice(0, 10)) > mean(e.slice(30)), `${run.round} entropy first vs last 10 updates`);
    roundEntropy.push(mean(e));
  }
  for (let i = 1; i < roundEntropy.length; i++) assert.ok(roundEntropy[i] < roundEntropy[i - 1]);
});

test("values are physical and a NaN survives the W&B round trip", () => {
  let nan = 0;
  for (const run of archive.runs) {
    let prev = -Infinity;
    for (const row of run.rows) {
      assert.ok(row._timestamp > prev && row._runtime > 0);
      prev = row._timestamp;
      for (const [k, v] of Object.entries(row)) {
        if (Number.isNaN(v)) {
          nan++;
          assert.equal(k, "rollout/kl");
          continue;
        }
        if (/ratio|frac|clipfrac|raw_reward|truncated$/.test(k)) assert.ok(v >= 0 && v <= 1, `${k} ${v}`);
        if (/_time$|tok_per_s|tflops|response_len|lengths|grad_norm|entropy_loss/.test(k)) assert.ok(v >= 0, `${k} ${v}`);
        if (k.startsWith("rollout/response_len/") && k !== "rollout/response_len/mean" && k !== "rollout/response_len/median") assert.ok(Number.isInteger(v));
      }
    }
  }
  assert.equal(nan, 1);
});
