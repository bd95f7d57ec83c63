import { test } from "node:test";
import { SLIME_PROFILE } from "../../lib/registry/profile-slime";
import assert from "node:assert/strict";
import { timeBreakdown } from "../../lib/diagnostics/time-breakdown";
import { stackableTimeCells, timeBreakdownCells, timeBreakdownWide } from "../../lib/tables/time-breakdown-rows";

const rec = (rollout: number, round: string, values: Record<string, number>) => ({
  runId: round === "R0" ? "a" : "b",
  round,
  rollout,
  historySteps: [rollout],
  values,
});
const aligned = {
  mapping: { n: 1, r0: 1, formulas: { update: "", rollout: "", updateInRollout: "" }, runs: [] },
  rounds: ["R0", "R1"],
  runs: [],
  rollouts: [
    rec(1, "R0", { "perf/rollout_time": 10, "perf/step_time": 12, "perf/train_wait_time": 9, "perf/train_time": 3, "perf/actor_train_time": 2 }),
    rec(2, "R0", { "perf/rollout_time": 20, "perf/step_time": 22, "perf/train_wait_time": 19, "perf/train_time": 3, "perf/actor_train_time": 2 }),
    rec(3, "R1", { "perf/rollout_time": 30 }),
  ],
  updates: [],
  evals: [],
  superseded: [],
  criticOnly: [],
  coverage: [],
  issues: [],
  notes: [],
  profile: { name: "slime", how: "given" as const, evidence: [] },
};

test("wide rows: one per round then all, mean per timer, no total column", () => {
  const wide = timeBreakdownWide(timeBreakdown(aligned));
  assert.deepEqual(
    wide.map((r) => r.round),
    ["R0", "R1", "all"],
  );
  assert.equal(wide[0]["perf/rollout_time"], 15);
  assert.equal(wide[0]["perf/step_time"], 17);
  assert.equal(wide[1]["perf/step_time"], null, "R1 logged no trainer timers: no value, not 0");
  assert.equal(wide[2]["perf/rollout_time"], 20);
  assert.ok(!("total" in wide[0]));
});

test("the stack: train_wait, the timers inside train and train's untimed rest, adding up to step_time; no containers, no rollout manager timer", () => {
  const cells = stackableTimeCells(timeBreakdown(aligned), SLIME_PROFILE);
  assert.deepEqual(Array.from(new Set(cells.map((c) => c.key))).sort(), ["perf/actor_train_time", "perf/train_time (untimed rest)", "perf/train_wait_time"]);
  const r0 = cells.filter((c) => c.round === "R0");
  // R0: step 17 = train_wait 14 + train 3; train 3 = actor_train 2 + rest 1.
  assert.deepEqual(r0.map((c) => [c.key, c.mean, c.n]).sort(), [
    ["perf/actor_train_time", 2, 2],
    ["perf/train_time (untimed rest)", 1, 2],
    ["perf/train_wait_time", 14, 2],
  ]);
  assert.equal(
    r0.reduce((a, c) => a + (c.mean as number), 0),
    17,
  );
  assert.ok(timeBreakdownCells(timeBreakdown(aligned)).some((c) => c.key === "perf/step_time"));
});
