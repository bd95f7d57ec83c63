import { test } from "node:test";
import assert from "node:assert/strict";
import { alignRuns } from "../../lib/align/align-runs";
import type { HistoryRow, Reporter } from "../../lib/types";
import { ids, managerRow, runOf, slimeRows, slimeRun, trainerPerfRow, trainerRolloutRow, updateRow } from "./slime-history";

function recorder(): Reporter & { infos: string[]; warns: string[] } {
  const infos: string[] = [];
  const warns: string[] = [];
  return { infos, warns, info: (m) => infos.push(m), warn: (m) => warns.push(m) };
}

test("two rounds, N = 2, rollout ids from 1: update numbers, rollouts and coverage", () => {
  const aligned = alignRuns([
    slimeRun({ runId: "a", round: "R0", n: 2, rollouts: ids(1, 3) }),
    slimeRun({ runId: "b", round: "R1", n: 2, rollouts: ids(4, 6) }),
  ]);
  assert.equal(aligned.mapping.n, 2);
  assert.equal(aligned.mapping.r0, 1);
  assert.deepEqual(aligned.rounds, ["R0", "R1"]);
  assert.deepEqual(aligned.runs, [
    { runId: "a", round: "R0", state: "finished", historyEvents: 15 },
    { runId: "b", round: "R1", state: "finished", historyEvents: 15 },
  ]);
  assert.deepEqual(
    aligned.updates.map((u) => u.trainStep),
    ids(2, 13),
  );
  assert.deepEqual(
    aligned.updates.map((u) => u.update),
    ids(1, 12),
  );
  assert.deepEqual(
    aligned.updates.map((u) => u.rollout),
    [1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6],
  );
  assert.deepEqual(
    aligned.updates.map((u) => u.updateInRollout),
    [0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1],
  );
  assert.deepEqual(
    aligned.updates.map((u) => u.round),
    ["R0", "R0", "R0", "R0", "R0", "R0", "R1", "R1", "R1", "R1", "R1", "R1"],
  );
  // First update of run b: rollout 4, rows RM(_0) TR(_1) U8(_2).
  assert.deepEqual(aligned.updates[6], {
    runId: "b",
    round: "R1",
    trainStep: 8,
    update: 7,
    rollout: 4,
    updateInRollout: 0,
    historyStep: 2,
    values: { "train/loss": 0.008, "train/grad_norm": 9, "train/entropy_loss": 0.2, "train/step": 8 },
  });
  assert.deepEqual(
    aligned.rollouts.map((r) => r.rollout),
    ids(1, 6),
  );
  // Rollout 2 of run a: rows _5 (manager), _6 (trainer rollout), _9 (trainer perf) merged.
  assert.deepEqual(aligned.rollouts[1], {
    runId: "a",
    round: "R0",
    rollout: 2,
    historySteps: [5, 6, 9],
    values: {
      "rollout/response_len/mean": 102,
      "rollout/truncated_ratio": 0.02,
      "perf/rollout_time": 12,
      "rollout/step": 2,
      "rollout/log_probs": -0.52,
      "rollout/rewards": 0.2,
      "perf/actor_train_time": 5,
      "perf/actor_train_tok_per_s": 1002,
    },
  });
  assert.deepEqual(aligned.evals, []);
  assert.deepEqual(aligned.issues, []);
  const zero = { "rollout-manager": 3, "trainer-rollout": 3, "optimizer-update": 6, "critic-update": 0, "trainer-perf": 3, eval: 0, other: 0 };
  assert.deepEqual(aligned.coverage, [
    {
      runId: "a",
      round: "R0",
      historyEvents: 15,
      rollouts: 3,
      updates: 6,
      firstRollout: 1,
      lastRollout: 3,
      firstUpdate: 1,
      lastUpdate: 6,
      ok: true,
      rowKinds: zero,
    },
    {
      runId: "b",
      round: "R1",
      historyEvents: 15,
      rollouts: 3,
      updates: 6,
      firstRollout: 4,
      lastRollout: 6,
      firstUpdate: 7,
      lastUpdate: 12,
      ok: true,
      rowKinds: zero,
    },
  ]);
});

test("N = 1 with rollout ids from 0", () => {
  const a = alignRuns([slimeRun({ runId: "a", round: "R0", n: 1, rollouts: ids(0, 2) }), slimeRun({ runId: "b", round: "R1", n: 1, rollouts: ids(3, 4) })]);
  assert.deepEqual([a.mapping.n, a.mapping.r0], [1, 0]);
  assert.deepEqual(
    a.updates.map((u) => [u.trainStep, u.update, u.rollout, u.updateInRollout]),
    [
      [0, 1, 0, 0],
      [1, 2, 1, 0],
      [2, 3, 2, 0],
      [3, 4, 3, 0],
      [4, 5, 4, 0],
    ],
  );
  assert.deepEqual(
    a.coverage.map((c) => [c.firstUpdate, c.lastUpdate, c.ok]),
    [
      [1, 3, true],
      [4, 5, true],
    ],
  );
});

test("N = 4 with rollout ids from 0 and from 1", () => {
  const a0 = alignRuns([slimeRun({ runId: "a", round: "R0", n: 4, rollouts: ids(0, 1) })]);
  assert.deepEqual(
    a0.updates.map((u) => u.update),
    ids(1, 8),
  );
  assert.deepEqual(
    a0.updates.map((u) => u.rollout),
    [0, 0, 0, 0, 1, 1, 1, 1],
  );
  assert.deepEqual(
    a0.updates.map((u) => u.updateInRollout),
    [0, 1, 2, 3, 0, 1, 2, 3],
  );
  const a1 = alignRuns([slimeRun({ runId: "a", round: "R0", n: 4, rollouts: [1, 2] }), slimeRun({ runId: "b", round: "R1", n: 4, rollouts: [3] })]);
  assert.equal(a1.mapping.formulas.update, "update = train/step - 4*1 + 1");
  assert.deepEqual(
    a1.updates.map((u) => u.trainStep),
    ids(4, 15),
  );
  assert.deepEqual(
    a1.updates.map((u) => u.update),
    ids(1, 12),
  );
  assert.deepEqual(
    a1.coverage.map((c) => [c.firstUpdate, c.lastUpdate]),
    [
      [1, 8],
      [9, 12],
    ],
  );
  assert.deepEqual(a1.issues, []);
});

test("a missing update is reported with train/step, update number and rollout", () => {
  const a = alignRuns([
    slimeRun({ runId: "a", round: "R0", n: 2, rollouts: ids(1, 3), dropSteps: [5] }),
    slimeRun({ runId: "b", round: "R1", n: 2, rollouts: ids(4, 6) }),
  ]);
  assert.deepEqual(a.issues, [
    { runId: "a", round: "R0", kind: "missing-update", step: 5, key: null, message: "run a (round R0): rollout 2 lacks train/step 5 (update 4)" },
  ]);
  assert.deepEqual(
    a.updates.map((u) => u.update),
    [1, 2, 3, 5, 6, 7, 8, 9, 10, 11, 12],
  );
  assert.deepEqual(
    a.coverage.map((c) => [c.updates, c.ok]),
    [
      [5, false],
      [6, true],
    ],
  );
});

test("an update the trainer logged twice: the later one supersedes, listed, not a duplicate", () => {
  const rows = slimeRows({ runId: "a", round: "R0", n: 2, rollouts: ids(1, 3) });
  rows.splice(4, 0, { ...updateRow(3), "train/loss": 0.5 }); // after the original train/step 3 (_step 3)
  const a = alignRuns([runOf("a", "R0", rows)]);
  assert.deepEqual(a.issues, []);
  assert.deepEqual(
    a.updates.map((u) => u.trainStep),
    [2, 3, 4, 5, 6, 7],
  );
  assert.equal(a.updates[1].historyStep, 4, "the later row survives");
  assert.equal(a.updates[1].values["train/loss"], 0.5);
  assert.deepEqual(
    a.superseded.map((x) => [x.runId, x.byRunId, x.rollouts, x.updates, x.trainSteps, x.rows]),
    [["a", "a", [], [2], [3], 1]],
  );
  assert.equal(a.coverage[0].updates, 6);
});

test("a gap between rounds", () => {
  const a = alignRuns([slimeRun({ runId: "a", round: "R0", n: 2, rollouts: ids(1, 3) }), slimeRun({ runId: "b", round: "R1", n: 2, rollouts: ids(6, 7) })]);
  assert.deepEqual(a.issues, [
    {
      runId: "b",
      round: "R1",
      kind: "gap-between-rounds",
      step: 4,
      key: null,
      message: "run b (round R1): rollouts 4..5 missing between round R0 (run a), which ends at rollout 3, and this round, which starts at rollout 6",
    },
  ]);
  assert.deepEqual(
    a.coverage.map((c) => c.ok),
    [true, false],
  );
  assert.deepEqual(
    a.updates.map((u) => u.update),
    [1, 2, 3, 4, 5, 6, 11, 12, 13, 14],
  );
});

test("a relaunch that repeats rollout 3: the later round supersedes rollout 3 and its updates", () => {
  const a = alignRuns([slimeRun({ runId: "a", round: "R0", n: 2, rollouts: ids(1, 3) }), slimeRun({ runId: "b", round: "R1", n: 2, rollouts: ids(3, 5) })]);
  assert.deepEqual(a.issues, []);
  assert.deepEqual(
    a.rollouts.map((r) => [r.round, r.rollout]),
    [
      ["R0", 1],
      ["R0", 2],
      ["R1", 3],
      ["R1", 4],
      ["R1", 5],
    ],
  );
  assert.deepEqual(
    a.updates.map((u) => [u.round, u.update]),
    [
      ["R0", 1],
      ["R0", 2],
      ["R0", 3],
      ["R0", 4],
      ["R1", 5],
      ["R1", 6],
      ["R1", 7],
      ["R1", 8],
      ["R1", 9],
      ["R1", 10],
    ],
  );
  assert.deepEqual(a.superseded, [
    {
      runId: "a",
      round: "R0",
      byRunId: "b",
      byRound: "R1",
      rollouts: [3],
      updates: [5, 6],
      trainSteps: [6, 7],
      evals: 0,
      evalRollouts: [],
      rows: 5,
      message:
        "run a (round R0): 5 row(s) superseded, replaced by round R1 (run b), which starts at rollout 3: rollout 3, updates 5..6; excluded from every record, mean and export",
    },
  ]);
  assert.deepEqual(
    a.coverage.map((c) => [c.rollouts, c.updates, c.firstRollout, c.lastRollout, c.ok]),
    [
      [2, 4, 1, 2, true],
      [3, 6, 3, 5, true],
    ],
  );
});

test("eval rows become eval records, including a pre-training eval at eval/step 0", () => {
  const rows: HistoryRow[] = [{ "eval/aime": 0.1, "eval/step": 0 }, ...slimeRows({ runId: "a", round: "R0", n: 2, rollouts: ids(1, 2) })];
  rows.push({ "eval/aime": 0.25, "eval/aime-truncated_ratio": 0.05, "eval/step": 2 });
  const a = alignRuns([runOf("a", "R0", rows)]);
  assert.deepEqual(a.evals, [
    { runId: "a", round: "R0", evalStep: 0, rollout: 0, historyStep: 0, values: { "eval/aime": 0.1, "eval/step": 0 } },
    { runId: "a", round: "R0", evalStep: 2, rollout: 2, historyStep: 11, values: { "eval/aime": 0.25, "eval/aime-truncated_ratio": 0.05, "eval/step": 2 } },
  ]);
  assert.equal(a.mapping.r0, 1, "eval/step 0 is not a rollout");
  assert.deepEqual(a.issues, []);
});

test("critic rows merge into the actor's update of the same train/step, before or after it; never updates of their own", () => {
  const rows = slimeRows({ runId: "a", round: "R0", n: 2, rollouts: ids(1, 2) });
  // Rows: RM1 TR1 U2 U3 TP1 RM2 TR2 U4 U5 TP2. The critic's row of train/step 2 comes before the actor's, of 3 after.
  rows.splice(2, 0, { "train/critic-value_loss": 0.3, "train/critic-grad_norm": 1.5, "train/step": 2 });
  rows.push({ "train/critic-value_loss": 0.2, "train/critic-grad_norm": 0, "train/step": 3 });
  const rep = recorder();
  const a = alignRuns([runOf("a", "R0", rows)], { reporter: rep });
  assert.deepEqual(
    a.updates.map((u) => u.trainStep),
    [2, 3, 4, 5],
  );
  assert.deepEqual(a.updates[0].values, {
    "train/loss": 0.002,
    "train/grad_norm": 3,
    "train/entropy_loss": 0.2,
    "train/step": 2,
    "train/critic-value_loss": 0.3,
    "train/critic-grad_norm": 1.5,
  });
  assert.equal(a.updates[1].values["train/grad_norm"], 4, "the actor's grad norm is untouched by the critic's 0");
  assert.equal(a.updates[1].values["train/critic-grad_norm"], 0);
  assert.equal("train/critic-grad_norm" in a.updates[2].values, false);
  assert.deepEqual(a.issues, []);
  assert.deepEqual(a.superseded, []);
  assert.equal(a.coverage[0].rowKinds!["critic-update"], 2);
  assert.deepEqual(rep.infos, [
    "run a (round R0): 2 critic row(s) (train/critic-*): 2 merged into the actor's update of the same train/step; never counted as updates or in the actor's means",
  ]);
});

test("--num-critic-only-steps: rollouts with critic rows only are reported as such, not as missing updates", () => {
  const rows: HistoryRow[] = [];
  for (const r of [0, 1]) {
    rows.push(managerRow(r));
    for (const t of [2 * r, 2 * r + 1]) rows.push({ "train/critic-value_loss": 0.1, "train/step": t });
  }
  rows.push(...slimeRows({ runId: "a", round: "R0", n: 2, rollouts: [2, 3] }));
  for (const t of [4, 5, 6, 7]) rows.push({ "train/critic-value_loss": 0.1, "train/step": t });
  const a = alignRuns([runOf("a", "R0", rows)]);
  assert.deepEqual(a.issues, []);
  assert.deepEqual(
    a.updates.map((u) => u.update),
    [5, 6, 7, 8],
  );
  assert.deepEqual(
    a.rollouts.map((r) => r.rollout),
    [0, 1, 2, 3],
  );
  assert.deepEqual(
    a.notes.map((x) => [x.kind, x.message]),
    [
      [
        "critic-rows",
        "run a (round R0): 8 critic row(s) (train/critic-*): 4 merged into the actor's update of the same train/step; never counted as updates or in the actor's means",
      ],
      [
        "critic-only",
        "run a (round R0): rollouts 0..1 trained the critic only (critic rows, no actor rows: slime's --num-critic-only-steps); no actor updates are expected there",
      ],
    ],
  );
});

test("conflicting values in two rows of one rollout: key left out and reported; equal values merge", () => {
  const rows = slimeRows({ runId: "a", round: "R0", n: 2, rollouts: ids(1, 2) });
  // Rollout 2: manager row _5, trainer rollout row _6, trainer perf row _9. The manager and trainer
  // rollout rows disagree on rollout/extra; the manager and perf rows agree on perf/extra; both
  // rollout rows hold NaN for rollout/nan (NaN equals NaN).
  rows[5] = { ...rows[5], "rollout/extra": 0.25, "perf/extra": 7, "rollout/nan": NaN };
  rows[6] = { ...rows[6], "rollout/extra": 0.5, "rollout/nan": NaN };
  rows[9] = { ...rows[9], "perf/extra": 7 };
  const a = alignRuns([runOf("a", "R0", rows)]);
  assert.deepEqual(a.issues, [
    {
      runId: "a",
      round: "R0",
      kind: "conflicting-values",
      step: 2,
      key: "rollout/extra",
      message: "run a (round R0): rollout 2 has rollout/extra = 0.25 and 0.5 in two rows (second at _step 6); the key is left out of the rollout record",
    },
  ]);
  const r2 = a.rollouts[1].values;
  assert.equal("rollout/extra" in r2, false);
  assert.equal(r2["perf/extra"], 7);
  assert.ok(Number.isNaN(r2["rollout/nan"]));
  assert.equal(r2["rollout/truncated_ratio"], 0.02, "other keys kept");
  assert.deepEqual(
    a.coverage.map((c) => c.ok),
    [false],
  );
});

test("a manager row logged twice: the later supersedes; multi_turn and passrate rows are neither duplicates nor restarts", () => {
  const rows = slimeRows({ runId: "a", round: "R0", n: 2, rollouts: ids(1, 2) });
  // Rows _5 RM2, then a second RM2 (_6), the trainer rollout row (_7) and its multi_turn and passrate rows.
  rows.splice(6, 0, { ...managerRow(2), "rollout/truncated_ratio": 0.5 });
  rows.splice(8, 0, { "multi_turn/round_number_mean": 2, "rollout/step": 2 }, { "passrate/pass@1": 0.5, "rollout/step": 2 });
  const a = alignRuns([runOf("a", "R0", rows)]);
  assert.deepEqual(a.issues, []);
  assert.deepEqual(a.rollouts[1].historySteps, [6, 7, 8, 9, 12]);
  assert.equal(a.rollouts[1].values["rollout/truncated_ratio"], 0.5);
  assert.equal(a.rollouts[1].values["multi_turn/round_number_mean"], 2);
  assert.equal(a.rollouts[1].values["passrate/pass@1"], 0.5);
  assert.deepEqual(
    a.superseded.map((x) => [x.rollouts, x.updates, x.rows]),
    [[[2], [], 1]],
  );
});

test("updates whose rollout has no rollout row, and a rollout missing inside a run", () => {
  const rows = slimeRows({ runId: "a", round: "R0", n: 2, rollouts: ids(1, 5) }).filter(
    (r) => !("rollout/step" in r && r["rollout/step"] === 2) && !(r["train/step"] === 8 || r["train/step"] === 9) && r["rollout/step"] !== 4,
  );
  const a = alignRuns([runOf("a", "R0", rows)]);
  assert.deepEqual(
    a.issues.map((x) => [x.kind, x.step, x.message]),
    [
      ["update-without-rollout", 4, "run a (round R0): rollout 2 has 2 update(s) from train/step 4 (update 3) but no rollout row"],
      ["missing-rollout", 4, "run a (round R0): rollout 4 missing (no rollout row and no update) between rollouts 3 and 5"],
    ],
  );
  assert.deepEqual(
    a.rollouts.map((r) => r.rollout),
    [1, 3, 5],
  );
  assert.deepEqual(a.coverage[0].rollouts, 3);
});

test("a run whose trainer stopped: updates of rollouts without updates are missing, grouped per rollout", () => {
  const rows = slimeRows({ runId: "a", round: "R0", n: 2, rollouts: ids(0, 1) });
  rows.push(managerRow(2), managerRow(3));
  const a = alignRuns([runOf("a", "R0", rows)]);
  assert.equal(a.mapping.n, 2);
  assert.deepEqual(
    a.issues.map((x) => [x.kind, x.step, x.message]),
    [["missing-update", 4, "run a (round R0): rollout 2 lacks train/steps 4..5 (updates 5..6)"]],
  );
  // The run's last rollout, manager row only: the crashed run's trailing rollout, kept and noted.
  assert.deepEqual(
    a.notes.map((x) => [x.kind, x.step]),
    [["trailing-rollout", 3]],
  );
  assert.deepEqual(
    a.rollouts.map((r) => r.rollout),
    [0, 1, 2, 3],
  );
});

test("a crashed round's trailing rollout: kept as a rollout record, noted, no issue", () => {
  const rows = slimeRows({ runId: "a", round: "R0", n: 2, rollouts: ids(1, 3) });
  rows.push(managerRow(4));
  const run = { ...runOf("a", "R0", rows), state: "crashed" };
  const rep = recorder();
  const a = alignRuns([run, slimeRun({ runId: "b", round: "R1", n: 2, rollouts: ids(4, 5) })], { reporter: rep });
  assert.deepEqual(a.issues, []);
  // Round R1 starts at rollout 4, so the crashed round's trailing rollout 4 is superseded, not trailing.
  assert.deepEqual(
    a.notes.map((x) => x.message),
    [
      "run a (round R0): 1 row(s) superseded, replaced by round R1 (run b), which starts at rollout 4: rollout 4, no updates; excluded from every record, mean and export",
    ],
  );
  assert.deepEqual(
    a.rollouts.map((r) => [r.round, r.rollout]),
    [
      ["R0", 1],
      ["R0", 2],
      ["R0", 3],
      ["R1", 4],
      ["R1", 5],
    ],
  );
  const alone = alignRuns([run]);
  assert.deepEqual(alone.issues, []);
  assert.deepEqual(
    alone.notes.map((x) => x.message),
    [
      "run a (round R0, state crashed): rollout 4, the run's last, has rows of the rollout manager only (no trainer rows, no updates): kept as a rollout record with its logged values; no updates are expected for it",
    ],
  );
  assert.deepEqual(alone.rollouts[3].values, managerRow(4));
});

test("rows without slime keys: an issue only when they carry non-bookkeeping keys", () => {
  const rows = slimeRows({ runId: "a", round: "R0", n: 2, rollouts: ids(1, 2) });
  rows.push({}, { "custom/foo": 1 }, { "custom/foo": 2 }, { "rollout/step": 9 });
  const a = alignRuns([runOf("a", "R0", rows)]);
  assert.deepEqual(
    a.issues.map((x) => [x.kind, x.step, x.message]),
    [
      ["unclassified-row", null, "run a (round R0): 2 row(s) with keys custom/foo match no slime row kind (first at _step 11)"],
      ["unclassified-row", null, "run a (round R0): 1 row(s) with keys rollout/step match no slime row kind (first at _step 13)"],
    ],
  );
  assert.equal(a.coverage[0].rowKinds!.other, 4);
});

test("interleaved rows of consecutive rollouts align by step keys, and records come out sorted", () => {
  // Another writer's rows arrive late (here every manager row after the trainer's), and two updates
  // of one batch swapped places: records come from the step keys alone.
  const rows: HistoryRow[] = [];
  for (const r of ids(1, 3)) rows.push(trainerRolloutRow(r), updateRow(2 * r + 1), updateRow(2 * r), trainerPerfRow(r));
  rows.push(managerRow(1), managerRow(2), managerRow(3));
  const a = alignRuns([runOf("a", "R0", rows)]);
  assert.deepEqual(
    a.updates.map((u) => u.update),
    ids(1, 6),
  );
  assert.deepEqual(
    a.updates.map((u) => u.historyStep),
    [2, 1, 6, 5, 10, 9],
  );
  assert.deepEqual(
    a.rollouts.map((r) => [r.rollout, r.historySteps]),
    [
      [1, [0, 3, 12]],
      [2, [4, 7, 13]],
      [3, [8, 11, 14]],
    ],
  );
  assert.deepEqual(a.issues, []);
  assert.deepEqual(a.superseded, []);
});

test("async training (train_async.py): the manager row of rollout r+1 before the trainer rows of r", () => {
  const rows: HistoryRow[] = [managerRow(1)];
  for (const r of ids(1, 4)) {
    if (r < 4) rows.push(managerRow(r + 1));
    rows.push(trainerRolloutRow(r), updateRow(2 * r), updateRow(2 * r + 1), trainerPerfRow(r));
  }
  const a = alignRuns([runOf("a", "R0", rows)]);
  assert.deepEqual(a.issues, []);
  assert.deepEqual(a.superseded, []);
  assert.deepEqual(
    a.rollouts.map((r) => [r.rollout, r.historySteps]),
    [
      [1, [0, 2, 5]],
      [2, [1, 7, 10]],
      [3, [6, 12, 15]],
      [4, [11, 16, 19]],
    ],
  );
  assert.deepEqual(
    a.updates.map((u) => u.update),
    ids(1, 8),
  );
});

test("option and input errors", () => {
  const run = slimeRun({ runId: "a", round: "R0", n: 2, rollouts: ids(1, 2) });
  assert.throws(() => alignRuns([run, run]), { message: "invalid runs: run a is listed twice" });
  assert.throws(() => alignRuns([run], { n: -1 }), { message: "invalid n: -1" });
  const bad = runOf("x", "R2", [{ "rollout/log_probs": 1, "rollout/step": -1 }]);
  assert.throws(() => alignRuns([bad]), { message: "run x (round R2): rollout/step = -1 at _step 0 is not a non-negative integer" });
});

test("one warning summarises the issues", () => {
  const rep = recorder();
  alignRuns([slimeRun({ runId: "a", round: "R0", n: 2, rollouts: ids(1, 3), dropSteps: [4, 7] })], { reporter: rep });
  assert.deepEqual(rep.warns, [
    "alignment found 2 issue(s) in 1 run(s), first: run a (round R0): rollout 2 lacks train/step 4 (update 3) (see aligned.issues)",
  ]);
});

/** A run logged with --wandb-always-use-train-step: rollout/step (and eval/step) = rollout_id * N, no train/step on those rows. */
function alwaysTrainStepRows(n: number, rollouts: number[]): HistoryRow[] {
  return slimeRows({ runId: "x", round: "x", n, rollouts }).map((row) => ("rollout/step" in row ? { ...row, "rollout/step": row["rollout/step"] * n } : row));
}

test("--wandb-always-use-train-step: detected from the data, rollout/step read as rollout_id * N", () => {
  const rows = alwaysTrainStepRows(3, ids(1, 4));
  rows.push({ "eval/aime": 0.3, "eval/step": 12 });
  const rep = recorder();
  const a = alignRuns([runOf("a", "R0", rows)], { reporter: rep });
  assert.deepEqual(a.issues, []);
  assert.equal(a.mapping.n, 3);
  assert.equal(a.mapping.r0, 1);
  assert.deepEqual(
    a.mapping.runs.map((x) => [x.n, x.alwaysUseTrainStep, x.firstRollout, x.formula]),
    [[3, true, 1, "update = train/step - 3*1 + 0 + 1"]],
  );
  assert.deepEqual(
    a.rollouts.map((r) => [r.rollout, r.values["rollout/step"]]),
    [
      [1, 3],
      [2, 6],
      [3, 9],
      [4, 12],
    ],
  );
  assert.deepEqual(a.updates.map((u) => [u.update, u.rollout, u.updateInRollout]).slice(0, 4), [
    [1, 1, 0],
    [2, 1, 1],
    [3, 1, 2],
    [4, 2, 0],
  ]);
  assert.deepEqual(
    a.evals.map((e) => [e.evalStep, e.rollout]),
    [[12, 4]],
  );
  assert.match(
    rep.infos[0],
    /^run a \(round R0\): rollout\/step and eval\/step were logged as rollout_id \* 3 \(slime's --wandb-always-use-train-step\) and are read as rollout ids divided by 3; evidence: rollout\/step = rollout_id \* N/,
  );
  // Without the flag the same N reads rollout/step as the rollout id.
  const plain = alignRuns([slimeRun({ runId: "b", round: "R0", n: 3, rollouts: ids(1, 4) })]);
  assert.equal(plain.mapping.runs[0].alwaysUseTrainStep, false);
  assert.deepEqual(
    plain.rollouts.map((r) => r.rollout),
    ids(1, 4),
  );
  // N = 1: both readings agree, nothing to convert.
  assert.equal(alignRuns([slimeRun({ runId: "c", round: "R0", n: 1, rollouts: ids(1, 4) })]).mapping.runs[0].alwaysUseTrainStep, null);
});

test("--wandb-always-use-train-step with rollout 0 only, or a run without updates: undecidable is refused with the evidence", () => {
  // Rollout 0 only: both readings agree (0 * N = 0).
  const zero = alignRuns([runOf("a", "R0", alwaysTrainStepRows(2, [0]))]);
  assert.equal(zero.mapping.runs[0].alwaysUseTrainStep, null);
  // A second run with manager rows only at rollout/step 6 and 8: rollouts 6, 8 (gap) or 3, 4 (flag)?
  const second = runOf(
    "b",
    "R1",
    [managerRow(6), managerRow(8)].map((r) => ({ ...r, "rollout/step": r["rollout/step"] })),
  );
  assert.throws(() => alignRuns([slimeRun({ runId: "a", round: "R0", n: 2, rollouts: [1, 2] }), second]), {
    message:
      "run b (round R1): cannot decide how rollout/step was logged (N = 2 taken from run a (round R0): this run has no optimizer-update rows): its rollout/step values 6, 8 are all multiples of N = 2, so they fit both rollout_id (without --wandb-always-use-train-step) and rollout_id * 2 (with it; run a was read without it). Pass alwaysUseTrainStep for this run (CLI: --always-use-train-step b=true|false)",
  });
  const given = alignRuns([slimeRun({ runId: "a", round: "R0", n: 2, rollouts: [1, 2] }), second], { alwaysUseTrainStep: { b: true } });
  assert.deepEqual(
    given.rollouts.map((r) => [r.runId, r.rollout]),
    [
      ["a", 1],
      ["a", 2],
      ["b", 3],
      ["b", 4],
    ],
  );
});

test("progress goes through the reporter", () => {
  const seen: string[] = [];
  alignRuns([slimeRun({ runId: "a", round: "R0", n: 2, rollouts: ids(1, 2) })], {
    reporter: { progress: (task, done, total) => seen.push(`${task} ${done}/${total}`) },
  });
  assert.deepEqual(seen, ["classify rows 1/1", "align runs 1/1"]);
});
