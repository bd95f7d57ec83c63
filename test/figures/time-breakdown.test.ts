import { test } from "node:test";
import assert from "node:assert/strict";
import { timeBreakdownFigure, timeKeyLabel } from "../../lib/figures/time-breakdown";
import { CATEGORY_COLORS } from "../../lib/figures/palette";

const rows = [
  { round: "R0", key: "perf/rollout_time", mean: 234 },
  { round: "R0", key: "perf/actor_train_time", mean: 100.5 },
  { round: "R1", key: "perf/rollout_time", mean: 245 },
  { round: "R1", key: "perf/actor_train_time", mean: null },
  { round: "R1", key: "perf/update_weights_time", mean: 12 },
];

test("one stacked bar per round, one trace per key in first-seen order", () => {
  const fig = timeBreakdownFigure(rows);
  assert.equal(fig.layout.barmode, "stack");
  assert.deepEqual(
    (fig.data as any[]).map((t) => [t.type, t.name, t.x, t.y, t.marker.color]),
    [
      ["bar", "rollout wall time", ["R0", "R1"], [234, 245], CATEGORY_COLORS[0]],
      ["bar", "actor_train", ["R0", "R1"], [100.5, null], CATEGORY_COLORS[1]],
      ["bar", "update_weights", ["R0", "R1"], [null, 12], CATEGORY_COLORS[2]],
    ],
  );
  assert.equal((fig.layout.yaxis!.title as any).text, "seconds per rollout batch (mean)");
  assert.deepEqual(fig.layout.meta, { figure: "time-breakdown", keys: ["perf/rollout_time", "perf/actor_train_time", "perf/update_weights_time"] });
});

test("a step framework's record noun titles the figure and the y axis, not a rollout batch", () => {
  const fig = timeBreakdownFigure(rows, { recordNoun: "training steps" });
  assert.equal(fig.layout.title!.text, "Mean time per training step, by phase");
  assert.equal((fig.layout.yaxis!.title as any).text, "seconds per training step (mean)");
  assert.doesNotMatch(JSON.stringify(fig.layout), /rollout batch/);
});

test("round order option, and errors", () => {
  assert.deepEqual((timeBreakdownFigure(rows, { rounds: ["R1", "R0", "R2"] }).data[0] as any).y, [245, 234, null]);
  assert.throws(() => timeBreakdownFigure(rows, { rounds: ["R0"] }), { message: "invalid rounds: R0 (rows have round R1)" });
  assert.throws(() => timeBreakdownFigure([rows[0], rows[0]]), { message: "duplicate time-breakdown row: round R0, key perf/rollout_time" });
});

test("labels of timing keys", () => {
  assert.equal(timeKeyLabel("perf/rollout_time"), "rollout wall time");
  assert.equal(timeKeyLabel("perf/train_wait_time"), "train_wait");
  assert.equal(timeKeyLabel("other"), "other");
});
