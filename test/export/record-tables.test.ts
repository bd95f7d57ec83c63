import { test } from "node:test";
import assert from "node:assert/strict";

import { csvText, tableRows } from "../../lib/export/csv-text";
import { rolloutsTable, updatesTable } from "../../lib/export/record-tables";
import { buildAligned } from "../diagnostics/aligned-builder";

// Two rounds, N = 2, r0 = 1. Keys chosen to test code-unit order ("B" < "_" < "b"), families and gaps.
const aligned = buildAligned([
  {
    round: "R0",
    batches: [
      {
        rollout: { "rollout/step": 1, "perf/b": 1e-7, "perf/B": 2, "multi_turn/x": 9 },
        updates: [
          { "train/z": 1, "train/step": 2 },
          { "train/z": NaN, "train/a_b": 3, "train/step": 3 },
        ],
      },
    ],
  },
  {
    round: "R1",
    batches: [{ rollout: { "rollout/step": 2, "rollout/a": Infinity }, updates: [{ "train/step": 4, "train/aB": -Infinity }] }],
  },
]);

test("rollouts.csv: round,run_id,rollout then every key of the records (multi_turn/* too, never dropped) in code-unit order", () => {
  const t = rolloutsTable(aligned);
  assert.equal(t.name, "rollouts.csv");
  assert.deepEqual(t.columns, ["round", "run_id", "rollout", "multi_turn/x", "perf/B", "perf/b", "rollout/a", "rollout/step"]);
  assert.equal(csvText(t), "round,run_id,rollout,multi_turn/x,perf/B,perf/b,rollout/a,rollout/step\n" + "R0,syn-r0,1,9,2,1e-7,,1\n" + "R1,syn-r1,2,,,,Inf,2\n");
});

test("updates.csv: axis columns then every train/* key in code-unit order; a key not logged is empty", () => {
  const t = updatesTable(aligned);
  assert.equal(t.name, "updates.csv");
  assert.deepEqual(t.columns, ["round", "run_id", "update", "train_step", "rollout", "update_in_rollout", "train/aB", "train/a_b", "train/step", "train/z"]);
  assert.equal(
    csvText(t),
    "round,run_id,update,train_step,rollout,update_in_rollout,train/aB,train/a_b,train/step,train/z\n" +
      "R0,syn-r0,1,2,1,0,,,2,1\n" +
      "R0,syn-r0,2,3,1,1,,3,3,NaN\n" +
      "R1,syn-r1,3,4,2,0,-Inf,,4,\n",
  );
});

test("rows are sorted by rollout / update even when the records are not", () => {
  const shuffled = { ...aligned, rollouts: [...aligned.rollouts].reverse(), updates: [...aligned.updates].reverse() };
  assert.deepEqual(
    tableRows(rolloutsTable(shuffled)).map((r) => r[2]),
    [1, 2],
  );
  assert.deepEqual(
    tableRows(updatesTable(shuffled)).map((r) => r[2]),
    [1, 2, 3],
  );
});

test("no records: header of the axis columns only", () => {
  const empty = buildAligned([{ round: "R0", batches: [] }]);
  assert.equal(csvText(rolloutsTable(empty)), "round,run_id,rollout\n");
  assert.equal(csvText(updatesTable(empty)), "round,run_id,update,train_step,rollout,update_in_rollout\n");
});

test("plain-object records do not pack for the CSV worker (formatted on the calling thread)", () => {
  assert.equal(rolloutsTable(aligned).pack!(), null);
  assert.equal(updatesTable(aligned).pack!(), null);
});
