import { test } from "node:test";
import assert from "node:assert/strict";
import { inferAxisMapping } from "../../lib/align/slime/infer-axis-mapping";
import { ids, managerRow, runOf, slimeRows, slimeRun, trainerPerfRow, trainerRolloutRow, updateRow } from "./slime-history";

test("N and r0 for N = 1, 2, 4 and rollout ids from 0, 1 and 7", () => {
  for (const n of [1, 2, 4]) {
    for (const first of [0, 1, 7]) {
      const runs = [
        slimeRun({ runId: "a", round: "R0", n, rollouts: ids(first, first + 4) }),
        slimeRun({ runId: "b", round: "R1", n, rollouts: ids(first + 5, first + 9) }),
      ];
      const m = inferAxisMapping(runs);
      assert.equal(m.n, n, `n for N=${n}, r0=${first}`);
      assert.equal(m.r0, first, `r0 for N=${n}, r0=${first}`);
    }
  }
});

test("formulas are written with the inferred numbers", () => {
  const m = inferAxisMapping([slimeRun({ runId: "a", round: "R0", n: 2, rollouts: ids(1, 20) })]);
  assert.deepEqual(m, {
    n: 2,
    r0: 1,
    formulas: {
      update: "update = train/step - 2*1 + 1",
      rollout: "rollout = floor(train/step / 2)",
      updateInRollout: "update_in_rollout = train/step mod 2",
    },
    runs: [
      {
        runId: "a",
        round: "R0",
        n: 2,
        alwaysUseTrainStep: false,
        flagEvidence:
          "rollout/step = rollout_id: 0 order contradiction(s) and 0 gap(s) over 40 updates and 20 rollout ids; the other reading is impossible (values are not multiples of N)",
        firstRollout: 1,
        updateBase: 0,
        formula: "update = train/step - 2*1 + 0 + 1",
      },
    ],
  });
});

test("N is found without trainer rows from key sets alone, also with a missing update", () => {
  const rows = [];
  for (const r of ids(1, 6)) {
    rows.push(managerRow(r));
    for (let k = 0; k < 4; k++) if (r * 4 + k !== 13) rows.push(updateRow(r * 4 + k));
  }
  const m = inferAxisMapping([runOf("a", "R0", rows)]);
  assert.equal(m.n, 4);
  assert.equal(m.r0, 1);
});

test("a trainer that stopped early: row order still gives N = 2", () => {
  // Rollouts 0..9 generated, only 0..4 trained: from key sets alone N = 1 would fit exactly.
  const rows = slimeRows({ runId: "a", round: "R0", n: 2, rollouts: ids(0, 4) });
  for (const r of ids(5, 9)) rows.push(managerRow(r));
  assert.equal(inferAxisMapping([runOf("a", "R0", rows)]).n, 2);
});

test("asynchronous interleaving of manager rows does not disturb inference", () => {
  // The manager logs rollout r+1 while the trainer trains r.
  const rows = [managerRow(1)];
  for (const r of ids(1, 5)) {
    rows.push(trainerRolloutRow(r));
    rows.push(updateRow(3 * r));
    if (r < 5) rows.push(managerRow(r + 1));
    rows.push(updateRow(3 * r + 1), updateRow(3 * r + 2), trainerPerfRow(r));
  }
  const m = inferAxisMapping([runOf("a", "R0", rows)]);
  assert.equal(m.n, 3);
  assert.equal(m.r0, 1);
});

test("N changing within a run is a clear error naming run, round, train/step and _step", () => {
  // Rollouts 0..3 with N = 2 (train/step 0..7), then rollouts 4..7 with N = 4 (train/step 16..31).
  const rows = [...slimeRows({ runId: "a", round: "R0", n: 2, rollouts: ids(0, 3) }), ...slimeRows({ runId: "a", round: "R0", n: 4, rollouts: ids(4, 7) })];
  // Rows: per rollout 2 + N + 1; train/step 2 is the first update of rollout 1, at _step 7.
  assert.throws(() => inferAxisMapping([runOf("zz9", "R3", rows)]), {
    message:
      "N (updates per rollout batch) changes within run zz9 (round R3): train/step 2 (_step 7) was logged between the trainer rows of rollout 1, which fits N = 2, but the best reading, N = 4 with rollout/step = rollout_id, puts it in rollout 0; slime's train/step = rollout_id * N + step_id is then not one axis",
  });
});

test("a forced N that contradicts the trainer row order is refused the same way", () => {
  const run = slimeRun({ runId: "a", round: "R0", n: 2, rollouts: ids(1, 3) });
  assert.throws(
    () => inferAxisMapping([run], { n: 3 }),
    /changes within run a \(round R0\): train\/step 2 \(_step 2\).*rollout 1, which fits N = 2, but the best reading, N = 3 with rollout\/step = rollout_id, puts it in rollout 0/,
  );
});

test("N differing between runs (global_batch_size changed between rounds): N per run, display updates in lineage order", () => {
  const runs = [slimeRun({ runId: "a", round: "R0", n: 2, rollouts: ids(1, 10) }), slimeRun({ runId: "b", round: "R1", n: 4, rollouts: ids(11, 12) })];
  const m = inferAxisMapping(runs);
  assert.equal(m.n, 4, "the largest N");
  assert.deepEqual(
    m.runs.map((r) => [r.n, r.firstRollout, r.updateBase, r.formula]),
    [
      [2, 1, 0, "update = train/step - 2*1 + 0 + 1"],
      [4, 11, 20, "update = train/step - 4*11 + 20 + 1"],
    ],
  );
  assert.match(m.formulas.update, /per run/);
});

test("option and data errors", () => {
  const run = slimeRun({ runId: "a", round: "R0", n: 2, rollouts: ids(1, 3) });
  assert.throws(() => inferAxisMapping([run], { n: 0 }), { message: "invalid n: 0" });
  assert.throws(() => inferAxisMapping([run], { n: 1.5 }), { message: "invalid n: 1.5" });
  assert.equal(inferAxisMapping([run], { n: 2 }).n, 2);
  assert.throws(() => inferAxisMapping([runOf("a", "R0", [managerRow(1), managerRow(2)])]), /cannot infer N .*pass the n option/);
  assert.throws(() => inferAxisMapping([]), /cannot infer the axes/);
  assert.throws(() => inferAxisMapping([runOf("a", "R0", [managerRow(4)])], { n: 2 }), /cannot decide how rollout\/step was logged/);
  assert.equal(inferAxisMapping([runOf("a", "R0", [managerRow(4)])], { n: 2, alwaysUseTrainStep: false }).r0, 4);
  const bad = runOf("a", "R0", [managerRow(1), { "train/loss": 1, "train/step": 2.5 }]);
  assert.throws(() => inferAxisMapping([bad]), {
    message: "run a (round R0): train/step = 2.5 at _step 1 is not a non-negative integer",
  });
});
