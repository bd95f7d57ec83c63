import { test } from "node:test";
import assert from "node:assert/strict";

import { FLAG_FILL, healthFlagFigure } from "../../lib/figures/health-flag-figure";
import { runHealthChecks } from "../../lib/health/run-health-checks";
import { buildAligned } from "../diagnostics/aligned-builder";

const g = (...xs: number[]) => xs.map((x) => ({ "train/grad_norm": x }));

test("a flagged update check: the key's series, the flagged range shaded, the fired updates marked", () => {
  const aligned = buildAligned([
    { round: "R0", batches: [{ updates: g(1, 0) }, { updates: g(0, 0) }] },
    { round: "R1", batches: [{ updates: g(2, 1) }] },
  ]);
  const streak = runHealthChecks(aligned).results.find((r) => r.check === "zero_grad_norm_streak")!;
  const fig = healthFlagFigure(aligned, streak);
  const [line, marks] = fig.data as { x: number[]; y: (number | null)[] }[];
  assert.deepEqual(line.x, [1, 2, 3, 4, 5, 6]);
  assert.deepEqual(line.y, [1, 0, 0, 0, 2, 1]);
  assert.deepEqual(marks.x, [2, 3, 4]);
  assert.deepEqual(marks.y, [0, 0, 0]);
  const rect = fig.layout.shapes!.find((s) => s.type === "rect")!;
  assert.deepEqual([rect.x0, rect.x1, rect.fillcolor], [1.5, 4.5, FLAG_FILL]);
  assert.equal(fig.layout.shapes!.filter((s) => s.type === "line").length, 1, "one round boundary");
  assert.deepEqual(fig.layout.meta, {
    figure: "health-flags",
    check: "zero_grad_norm_streak",
    key: "train/grad_norm",
    unit: "update",
    flags: 1,
    otherFlags: 0,
  });
});

test("values that cannot be drawn are labelled at the bottom; only flags of the first key and unit are drawn", () => {
  const aligned = buildAligned([
    { round: "R0", batches: [{ rollout: { "rollout/kl": 0.1 } }, { rollout: { "rollout/kl": NaN }, updates: [{ "train/loss": Infinity }] }] },
  ]);
  const nonFinite = runHealthChecks(aligned).results.find((r) => r.check === "non_finite")!;
  const fig = healthFlagFigure(aligned, nonFinite);
  assert.equal(fig.layout.meta!.key, "train/loss");
  assert.equal(fig.layout.meta!.otherFlags, 1);
  const labels = fig.layout.annotations!.filter((a) => a.text === "Inf");
  assert.deepEqual(
    labels.map((a) => [a.x, a.y]),
    [[3, 0]],
    "update 3 (rollout 2, position 0)",
  );
  assert.deepEqual((fig.data[1] as { x: number[] }).x, []);
  assert.throws(() => healthFlagFigure(aligned, runHealthChecks(aligned).results[0]), { message: "invalid result: ppo_kl_first_update has no flags" });
});
