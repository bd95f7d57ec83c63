import { test } from "node:test";
import assert from "node:assert/strict";
import { alignRuns } from "../../lib/align/align-runs";
import { makeAxisMapping } from "../../lib/align/slime/axis-formulas";
import { assertAligned, coverageTable } from "../../lib/align/issues";
import { checkCoverage } from "../../lib/align/slime/coverage";
import type { AxisRecord, UpdateRecord } from "../../lib/types";
import { ids, slimeRun } from "./slime-history";

const mapping = { ...makeAxisMapping(2, 1), runs: [] };
const meta = (runId: string, round: string) => ({ runId, round, state: "finished", historyEvents: 0 });
const rollout = (runId: string, r: number): AxisRecord => ({ runId, round: "", rollout: r, historySteps: [], values: {} });
const update = (runId: string, t: number): UpdateRecord => ({
  runId,
  round: "",
  trainStep: t,
  update: t - 1,
  rollout: Math.floor(t / 2),
  updateInRollout: t % 2,
  historyStep: 0,
  values: {},
});

test("reference shape: four rounds of 20 rollouts, N = 2, rollout ids 1..80", () => {
  const runs = ["R0", "R1", "R2", "R3"].map((round, i) => slimeRun({ runId: `run${i}`, round, n: 2, rollouts: ids(20 * i + 1, 20 * i + 20) }));
  const a = alignRuns(runs);
  assert.equal(a.updates.length, 160);
  assert.equal(a.rollouts.length, 80);
  assert.deepEqual(
    a.coverage.map((c) => [c.firstRollout, c.lastRollout, c.firstUpdate, c.lastUpdate, c.historyEvents]),
    [
      [1, 20, 1, 40, 100],
      [21, 40, 41, 80, 100],
      [41, 60, 81, 120, 100],
      [61, 80, 121, 160, 100],
    ],
  );
  assert.deepEqual(coverageTable(a)[2], {
    round: "R2",
    runId: "run2",
    historyEvents: 100,
    rollouts: 20,
    rolloutRange: "41..60",
    updates: 40,
    updateRange: "81..120",
    evalRows: 0,
    criticRows: 0,
    issues: 0,
    ok: true,
  });
  assert.doesNotThrow(() => assertAligned(a));
});

test("checkCoverage on records: duplicate rollout records, a run without data, holes", () => {
  const res = checkCoverage(
    mapping,
    [meta("a", "R0"), meta("empty", "R1"), meta("b", "R2")],
    [rollout("a", 1), rollout("a", 1), rollout("a", 2), rollout("b", 3), rollout("b", 6)],
    [update("a", 2), update("a", 3), update("a", 4), update("a", 5), update("b", 6), update("b", 7), update("b", 12), update("b", 13)],
  );
  assert.deepEqual(
    res.issues.map((x) => [x.runId, x.kind, x.step, x.message]),
    [
      ["a", "duplicate-rollout", 1, "run a (round R0): rollout 1 has 2 rollout records"],
      ["empty", "missing-rollout", null, "run empty (round R1): has no rollout rows and no optimizer-update rows"],
      ["b", "missing-rollout", 4, "run b (round R2): rollouts 4..5 missing (no rollout row and no update) between rollouts 3 and 6"],
    ],
  );
  assert.deepEqual(
    res.coverage.map((c) => [c.runId, c.rollouts, c.updates, c.firstUpdate, c.lastUpdate, c.ok]),
    [
      ["a", 2, 4, 1, 4, false],
      ["empty", 0, 0, null, null, false],
      ["b", 2, 4, 5, 12, false],
    ],
  );
  assert.throws(() => checkCoverage(mapping, [meta("a", "R0")], [rollout("zz", 1)], []), {
    message: "invalid records: run zz is not among the aligned runs",
  });
});

test("overlap is measured against every earlier round, not only the previous one", () => {
  const res = checkCoverage(
    mapping,
    [meta("a", "R0"), meta("b", "R1"), meta("c", "R2")],
    [rollout("a", 1), rollout("a", 2), rollout("a", 3), rollout("b", 4), rollout("c", 2), rollout("c", 3), rollout("c", 4), rollout("c", 5)],
    [],
  );
  const kinds = res.issues.filter((x) => x.kind.endsWith("-rounds")).map((x) => [x.runId, x.kind, x.step, x.message]);
  assert.deepEqual(kinds, [
    [
      "c",
      "overlap-between-rounds",
      2,
      "run c (round R2): starts at rollout 2, but round R1 (run b) already reaches rollout 4: 3 rollout(s) of this run (2..4) are owned twice",
    ],
  ]);
});

test("assertAligned lists the first issues with run, round, step and kind", () => {
  const a = alignRuns([
    slimeRun({ runId: "a", round: "R0", n: 2, rollouts: ids(1, 4), dropSteps: [3, 5, 7] }),
    slimeRun({ runId: "b", round: "R1", n: 2, rollouts: ids(6, 6) }),
  ]);
  assert.throws(() => assertAligned(a, { max: 2 }), {
    message: [
      "alignment found 4 issue(s) in 2 run(s):",
      "  - missing-update (run a, round R0, step 3): run a (round R0): rollout 1 lacks train/step 3 (update 2)",
      "  - missing-update (run a, round R0, step 5): run a (round R0): rollout 2 lacks train/step 5 (update 4)",
      "  ... and 2 more (see aligned.issues)",
    ].join("\n"),
  });
  assert.throws(() => assertAligned(a, { max: 0 }), { message: "invalid max: 0" });
  assert.deepEqual(
    coverageTable(a).map((r) => [r.round, r.rolloutRange, r.updateRange, r.issues, r.ok]),
    [
      ["R0", "1..4", "1..8", 3, false],
      ["R1", "6..6", "11..12", 1, false],
    ],
  );
});
