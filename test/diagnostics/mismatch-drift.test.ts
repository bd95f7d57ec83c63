import assert from "node:assert/strict";
import { test } from "node:test";

import { driftOverRounds, driftWithinRounds, formatSlope, leastSquares } from "../../lib/diagnostics/mismatch-drift";
import { mismatchSeries } from "../../lib/diagnostics/mismatch-series";
import { buildAligned, close } from "./aligned-builder";

const ABS = "train/train_rollout_logprob_abs_diff";

test("leastSquares equals numpy.polyfit(x, y, 1) (numpy 2.4.6), also at x near 1e5", () => {
  // python -c "import numpy as np; print(np.polyfit([0,1,2,3],[0.0101,0.0123,0.0119,0.0162],1))"
  const a = leastSquares([0, 1, 2, 3], [0.0101, 0.0123, 0.0119, 0.0162])!;
  assert.ok(close(a.slope, 0.0017899999999999988, 1e-15), String(a.slope));
  assert.ok(close(a.intercept, 0.009940000000000004, 1e-15), String(a.intercept));
  const b = leastSquares([100000, 100001, 100003, 100007], [0.2, 0.21, 0.19, 0.26])!;
  assert.ok(close(b.slope, 0.008173913043522284, 1e-12), String(b.slope));
  assert.ok(close(b.intercept, -817.1987826130983, 1e-6), String(b.intercept));
});

test("leastSquares has no line through fewer than 2 points or through one x, and refuses unequal lengths", () => {
  assert.equal(leastSquares([1], [2]), null);
  assert.equal(leastSquares([3, 3, 3], [1, 2, 3]), null);
  assert.throws(() => leastSquares([1, 2], [1]), /invalid points: 2 x values and 1 y values/);
});

test("drift over rounds: the slope of the round means (over updates) against the round position; inside a round, against the rollout id", () => {
  // Round means over updates: R0 (0.01, 0.012, 0.014, 0.016) = 0.013; R1 (0.02, 0.02) = 0.02; R2 (0.031, 0.035) = 0.033.
  // Slope over positions 0, 1, 2 by hand: mean x = 1, mean y = 0.022; sxy = (-1)(-0.009) + 0 + (1)(0.011) = 0.02; sxx = 2 -> 0.01.
  const g = (a: number, b: number) => [{ [ABS]: a }, { [ABS]: b }];
  const aligned = buildAligned([
    { round: "R0", batches: [{ updates: g(0.01, 0.012) }, { updates: g(0.014, 0.016) }] },
    { round: "R1", batches: [{ updates: g(0.02, 0.02) }] },
    { round: "R2", batches: [{ updates: g(0.031, 0.035) }] },
  ]);
  const s = mismatchSeries(aligned).series.find((x) => x.name === ABS)!;
  assert.deepEqual(
    s.points.map((p) => [p.round, p.x, Number(p.value.toFixed(12))]),
    [
      ["R0", 1, 0.011],
      ["R0", 2, 0.015],
      ["R1", 3, 0.02],
      ["R2", 4, 0.033],
    ],
  );
  const d = driftOverRounds(s);
  assert.ok(close(d.slope, 0.01, 1e-15), String(d.slope));
  assert.equal(d.rounds, 3);
  assert.equal(d.text, `${ABS}: +0.01 per round, the least-squares slope of 3 round means against the round's position (0 = R0)`);
  // Inside R0: batch means 0.011 at rollout 1 and 0.015 at rollout 2: slope 0.004 per rollout batch.
  const w = driftWithinRounds(s);
  assert.ok(close(w[0].slope, 0.004, 1e-15));
  assert.deepEqual(
    w.slice(1).map((x) => [x.round, x.slope, x.points]),
    [
      ["R1", null, 1],
      ["R2", null, 1],
    ],
  );
});

test("a flat gap has slope 0, and one round gives no slope over rounds (said, not 0)", () => {
  const flat = buildAligned([
    { round: "R0", batches: [{ updates: [{ [ABS]: 0.02 }] }] },
    { round: "R1", batches: [{ updates: [{ [ABS]: 0.02 }] }] },
  ]);
  assert.equal(driftOverRounds(mismatchSeries(flat).series[0]).slope, 0);
  const one = buildAligned([{ round: "R0", batches: [{ updates: [{ [ABS]: 0.02 }] }, { updates: [{ [ABS]: 0.03 }] }] }]);
  const d = driftOverRounds(mismatchSeries(one).series[0]);
  assert.equal(d.slope, null);
  assert.equal(d.text, `${ABS}: no slope over rounds (1 round with a mean; a slope needs 2)`);
});

test("formatSlope keeps the sign and 3 significant digits", () => {
  assert.deepEqual([formatSlope(0.00125), formatSlope(-2.5e-7), formatSlope(0)], ["+0.00125", "-2.50e-7", "0"]);
});
