/**
 * The OpenRLHF simulator's options against REAL OpenRLHF 0.11.2 runs (test/fixtures/real-runs/openrlhf/:
 * plain, killed, resumed): the kind of each row in order (samples table, metrics, eval), the step_sync
 * stamps, the key set of each row (the .wandb history), the key order of each logged dict
 * (own-record.jsonl) and a resumed run's first rows. Values are synthetic and not compared (step stamps
 * are). The fixture's eval data sources and the reward function's `extra_logs` key are passed as options
 * (`datasets: ["arith", "copy"]`, `extraLogs: ["label_hit"]`), so names are compared as they are.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";

import type { HistoryRow } from "../../lib/types";
import { readWandbFile } from "../../lib/wandb-file/read-wandb-file";
import { simulateFramework } from "../../tools/simulate-frameworks/simulate";
import { metricKeys } from "../fixtures/metric-keys";
import type { FrameworkOptions, FwRun } from "../../tools/simulate-frameworks/types";

const ROOT = path.resolve(__dirname, "../fixtures/real-runs/openrlhf");
const SKIP = fs.existsSync(ROOT) ? false : `real OpenRLHF fixtures absent (${ROOT})`;

/** Simulator keys the real runs lack and real keys the simulator lacks: none. */
const EXPECTED_DIFFERENCES: { simOnly: string[]; realOnly: string[] } = { simOnly: [], realOnly: [] };

/**
 * The actor's status keys: ppo_actor.py averages its micro-batch dicts over `set().union(...)`, so their
 * order in the logged dict is Python's set order (the fixtures run with PYTHONHASHSEED=0); compared as a set.
 */
const STATUS_END = "kl";

/** The .wandb history rows of a real case. */
async function realHistory(name: string): Promise<HistoryRow[]> {
  const dir = path.join(ROOT, name);
  const file = fs.readdirSync(dir).find((f) => f.endsWith(".wandb"))!;
  return (await readWandbFile(path.join(dir, file))).rows;
}

/**
 * The dicts OpenRLHF handed `log_train` / `log_eval`, as the logger turns them into `wandb.log` calls:
 * `generated_samples` becomes the table call before the metrics, the rest gets the `train/` or `eval/`
 * prefix and `global_step` last.
 */
function ownCalls(name: string): string[][] {
  const text = fs.readFileSync(path.join(ROOT, name, "own-record.jsonl"), "utf8");
  const out: string[][] = [];
  for (const line of text.split("\n").filter(Boolean)) {
    const keys = Object.keys((JSON.parse(line) as { data: Record<string, unknown> }).data);
    const isEval = keys.every((k) => k.startsWith("eval_"));
    if (keys.includes("generated_samples")) out.push(["train/generated_samples"]);
    const prefix = isEval ? "eval/" : "train/";
    out.push([...keys.filter((k) => k !== "generated_samples"), "global_step"].map((k) => prefix + k));
  }
  return out;
}

/** The simulator with the fixtures' flags and names; no planted anomalies. */
function sim(opts: Partial<FrameworkOptions> & { rounds: FrameworkOptions["rounds"] }): FwRun[] {
  return simulateFramework({
    framework: "openrlhf",
    datasets: ["arith", "copy"],
    extraLogs: ["label_hit"],
    evalSteps: 2,
    evalSamplesPerPrompt: 2,
    samplesTable: true,
    stepSync: true,
    anomalies: [],
    ...opts,
  }).runs;
}

/** Row kind by keys, with the step stamp: "table@1" (a samples-table row holds only its stamped step), "train@2", "eval@2". */
function kind(row: HistoryRow): string {
  if ("eval/global_step" in row) return `eval@${row["eval/global_step"]} epoch ${row["eval/epoch"]}`;
  return `${metricKeys(row).length === 1 ? "table" : "train"}@${row["train/global_step"]}`;
}
/** Per row: its kind and sorted metric keys. */
const shape = (rows: HistoryRow[]) => rows.map((r) => ({ kind: kind(r), keys: metricKeys(r).sort() }));
/** A call's keys with the actor's status part (up to `train/kl`) sorted in place. */
function ordered(calls: string[][]): string[][] {
  return calls.map((keys) => {
    const end = keys.indexOf(`train/${STATUS_END}`);
    return end < 0 ? keys : [...keys.slice(0, end + 1).sort(), ...keys.slice(end + 1)];
  });
}
/** The simulator's `wandb.log` calls (before step_sync stamps, like the own record). */
const simCalls = (run: FwRun) =>
  ordered(run.rows.map((r) => r.values.map((v) => v.key).filter((k) => !(r.kind !== "train" && /^(train\/global_step|eval\/epoch)$/.test(k)))));

/** Keys of one side missing on the other, over all rows compared. */
function differences(real: HistoryRow[], simRows: HistoryRow[]): { simOnly: string[]; realOnly: string[] } {
  const r = new Set(real.flatMap(metricKeys));
  const s = new Set(simRows.flatMap(metricKeys));
  return { simOnly: [...s].filter((k) => !r.has(k)).sort(), realOnly: [...r].filter((k) => !s.has(k)).sort() };
}

test("plain (samplesTable, stepSync, evalSteps 2, entropyCoef 0): table, metrics, eval per step, the same stamps, keys and dict order", {
  skip: SKIP,
}, async () => {
  const real = await realHistory("plain");
  const [run] = sim({ rounds: [{ steps: 5 }], entropyCoef: 0 });
  assert.deepEqual(shape(run.history), shape(real));
  assert.deepEqual(real.map(kind), [
    "table@0",
    "train@1",
    "table@1",
    "train@2",
    "eval@2 epoch 0",
    "table@2",
    "train@3",
    "table@3",
    "train@4",
    "eval@4 epoch 0",
    "table@4",
    "train@5",
  ]);
  assert.deepEqual(simCalls(run), ordered(ownCalls("plain")));
  assert.ok("train/entropy_loss" in real[1] && "train/entropy_loss" in run.history[1]);
  assert.deepEqual(differences(real, run.history), EXPECTED_DIFFERENCES);
});

test("evalSteps + datasets + evalSamplesPerPrompt: eval/eval_<ds>_pass2 and _pass1 per source, then the overall keys", { skip: SKIP }, async () => {
  const real = (await realHistory("plain")).filter((r) => "eval/global_step" in r);
  const [run] = sim({ rounds: [{ steps: 5 }], entropyCoef: 0 });
  const simEval = run.history.filter((r) => "eval/global_step" in r);
  assert.deepEqual(
    simEval.map(metricKeys).map((k) => k.sort()),
    real.map(metricKeys).map((k) => k.sort()),
  );
  assert.deepEqual(metricKeys(real[0]).sort(), [
    "eval/epoch",
    "eval/eval_arith_pass1",
    "eval/eval_arith_pass2",
    "eval/eval_arith_response_length_mean",
    "eval/eval_arith_truncated_rate",
    "eval/eval_copy_pass1",
    "eval/eval_copy_pass2",
    "eval/eval_copy_response_length_mean",
    "eval/eval_copy_truncated_rate",
    "eval/eval_num_samples",
    "eval/eval_response_length_mean",
    "eval/eval_truncated_rate",
    "eval/global_step",
  ]);
  // n = 1 has pass1 only (OpenRLHF writes pass{n} and pass1 into the same key).
  const [one] = sim({ rounds: [{ steps: 2 }], evalSamplesPerPrompt: 1, datasets: ["arith"], stepSync: false });
  assert.deepEqual(
    one.rows.filter((r) => r.kind === "eval")[0].values.map((v) => v.key),
    [
      "eval/eval_arith_pass1",
      "eval/eval_arith_response_length_mean",
      "eval/eval_arith_truncated_rate",
      "eval/eval_response_length_mean",
      "eval/eval_truncated_rate",
      "eval/eval_num_samples",
      "eval/global_step",
    ],
  );
});

test("entropyCoef null (killed, no --actor.entropy_coef): no train/entropy_loss; a crashed round logs its steps and nothing after", {
  skip: SKIP,
}, async () => {
  const real = await realHistory("killed");
  const [run] = sim({ rounds: [{ steps: 3, state: "crashed" }] });
  assert.deepEqual(shape(run.history), shape(real));
  assert.deepEqual(simCalls(run), ordered(ownCalls("killed")));
  for (const rows of [real, run.history]) assert.ok(rows.every((r) => !("train/entropy_loss" in r)));
  assert.deepEqual(differences(real, run.history), {
    simOnly: EXPECTED_DIFFERENCES.simOnly,
    realOnly: EXPECTED_DIFFERENCES.realOnly.filter((k) => k !== "train/entropy_loss"),
  });
});

test("a resumed run (a new W&B run from the killed run's global_step 2): its first row is the table stamped 0, then step 3", { skip: SKIP }, async () => {
  const real = await realHistory("resumed");
  const [, run] = sim({ rounds: [{ steps: 3, state: "crashed" }, { steps: 3 }], restartOverlap: 1 });
  assert.equal(run.checkpointStep, 2);
  assert.deepEqual(shape(run.history), shape(real));
  assert.deepEqual(real.map(kind), ["table@0", "train@3", "table@3", "train@4", "eval@4 epoch 0", "table@4", "train@5"]);
  assert.deepEqual(simCalls(run), ordered(ownCalls("resumed")));
});

test("samplesTable false / stepSync false: the real table rows and stamps are what those options leave out", { skip: SKIP }, async () => {
  const real = await realHistory("plain");
  const [plain] = sim({ rounds: [{ steps: 5 }], entropyCoef: 0, samplesTable: false, stepSync: false });
  assert.deepEqual(
    shape(plain.history).map((r) => r.keys),
    shape(real)
      .filter((r) => !r.kind.startsWith("table"))
      .map((r) => r.keys.filter((k) => k !== "eval/epoch")),
  );
  const [unsynced] = sim({ rounds: [{ steps: 5 }], entropyCoef: 0, stepSync: false });
  assert.deepEqual(
    unsynced.history.filter((r) => metricKeys(r).length === 0).map((r) => r._step),
    real.filter((r) => metricKeys(r).length === 1).map((r) => r._step),
  );
});
