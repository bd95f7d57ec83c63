import { test } from "node:test";
import assert from "node:assert/strict";
import { crossCheck } from "../../lib/local-logs/cross-check";
import { parseSlimeLog, type LocalLogRecord } from "../../lib/local-logs/parse-slime-log";
import { ids, slimeRun } from "../axes/slime-history";
import { LOG_TEXT, wandbRun } from "./slime-log-fixture";

test("a log with one deliberate mismatch: exact counts, the mismatch, fields only in W&B", () => {
  const run = wandbRun();
  const local = new Map([["run-a", parseSlimeLog(LOG_TEXT, { runId: "run-a" })]]);
  const res = crossCheck([run], local);
  // Fields in both: manager 3+3, trainer rollout 2+2, steps 4*4, trainer perf 2+3, eval 1 = 32.
  assert.equal(res.records, 11);
  assert.equal(res.matchedRecords, 11);
  assert.equal(res.compared, 32);
  assert.equal(res.exact, 31);
  assert.deepEqual(res.mismatches, [
    { runId: "run-a", round: "R0", kind: "step", step: 5, key: "train/loss", wandb: 0.005, local: 0.0051, line: 12 },
  ]);
  assert.deepEqual(res.onlyInWandb, [{ runId: "run-a", round: "R0", kind: "step", step: 4, key: "train/lr-pg_0", line: 11 }]);
  assert.deepEqual(res.onlyInLocal, []);
  assert.deepEqual(res.unmatched, []);
  assert.equal(res.agree, false);
  assert.deepEqual(res.runs, [
    {
      runId: "run-a",
      round: "R0",
      records: 11,
      matchedRecords: 11,
      compared: 32,
      exact: 31,
      mismatches: 1,
      onlyInWandb: 1,
      onlyInLocal: 0,
      unmatchedRecords: 0,
      wandbRowsWithoutLocal: 0,
    },
  ]);
  assert.deepEqual(res.runsWithoutLocal, []);
});

test("without the mismatch the log agrees (nan = nan, inf, np.float64, missing step keys are fine)", () => {
  const fixed = LOG_TEXT.replace("'train/loss': 0.0051", "'train/loss': 0.005");
  const res = crossCheck([wandbRun()], new Map([["run-a", parseSlimeLog(fixed, { runId: "run-a" })]]));
  assert.equal(res.agree, true);
  assert.deepEqual([res.compared, res.exact, res.mismatches.length], [32, 32, 0]);
});

test("records without a W&B row, fields only in the log, unknown runs, runs without a log", () => {
  const rec = (kind: LocalLogRecord["kind"], id: number, values: Record<string, number>, line: number): LocalLogRecord => ({ kind, id, values, line });
  const local = new Map<string, LocalLogRecord[]>([
    [
      "a",
      [
        rec("step", 2, { "train/loss": 0.002, "train/extra": 1, "train/step": 2 }, 1),
        rec("step", 99, { "train/loss": 1 }, 2),
        rec("eval", 1, { "eval/x": 1 }, 3),
        rec("trainer-perf", 1, { "perf/actor_train_time": 5, "perf/actor_train_tok_per_s": 1001 }, 4),
      ],
    ],
    ["ghost", [rec("step", 2, { "train/loss": 1 }, 7)]],
  ]);
  const runs = [slimeRun({ runId: "a", round: "R0", n: 2, rollouts: ids(1, 2) }), slimeRun({ runId: "b", round: "R1", n: 2, rollouts: [3] })];
  const res = crossCheck(runs, local);
  assert.deepEqual(res.onlyInLocal, [{ runId: "a", round: "R0", kind: "step", step: 2, key: "train/extra", line: 1 }]);
  // train/step 2's W&B row also has train/grad_norm and train/entropy_loss, which the record lacks.
  assert.deepEqual(res.onlyInWandb.map((f) => f.key), ["train/grad_norm", "train/entropy_loss"]);
  assert.deepEqual(res.unmatched, [
    { runId: "a", round: "R0", kind: "step", step: 99, line: 2 },
    { runId: "a", round: "R0", kind: "eval", step: 1, line: 3 },
    { runId: "ghost", round: null, kind: "step", step: 2, line: 7 },
  ]);
  assert.deepEqual(
    res.runs.map((r) => [r.runId, r.records, r.matchedRecords, r.compared, r.exact, r.unmatchedRecords, r.wandbRowsWithoutLocal]),
    [
      ["a", 4, 2, 4, 4, 2, 8],
      ["ghost", 1, 0, 0, 0, 1, 0],
    ],
  );
  assert.deepEqual(res.runsWithoutLocal, ["b"]);
  assert.equal(res.agree, false);
});

test("two W&B rows of one kind and step: each local record takes the row sharing most keys", () => {
  const run = slimeRun({ runId: "a", round: "R0", n: 1, rollouts: [0] });
  run.rows.push({ "multi_turn/round_number_mean": 2, "rollout/step": 0, _step: 99 });
  const records: LocalLogRecord[] = [
    { kind: "rollout", id: 0, values: { "multi_turn/round_number_mean": 2 }, line: 1 },
    { kind: "rollout", id: 0, values: { "rollout/log_probs": -0.5, "rollout/rewards": 0 }, line: 2 },
  ];
  const local = new Map([["a", records]]);
  const res = crossCheck([run], local);
  assert.deepEqual([res.compared, res.exact, res.onlyInWandb.length, res.agree], [3, 3, 0, true]);
});

test("an empty comparison does not agree", () => {
  assert.equal(crossCheck([wandbRun()], new Map()).agree, false);
});
