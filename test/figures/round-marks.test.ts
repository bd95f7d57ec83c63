import { test } from "node:test";
import assert from "node:assert/strict";
import { roundMarks, roundSpans } from "../../lib/figures/round-marks";

test("spans in round order; rounds without points left out; unlisted rounds appended", () => {
  const points = [
    { round: "R1", x: 41 },
    { round: "R0", x: 3 },
    { round: "R0", x: 1 },
    { round: "R1", x: 80 },
    { round: "X", x: 100 },
  ];
  assert.deepEqual(roundSpans(["R0", "R1", "R2"], points), [
    { round: "R0", first: 1, last: 3 },
    { round: "R1", first: 41, last: 80 },
    { round: "X", first: 100, last: 100 },
  ]);
});

test("boundary at the midpoint of the gap; none for a single round", () => {
  const { shapes, annotations } = roundMarks([
    { round: "R0", first: 1, last: 40 },
    { round: "R1", first: 41, last: 80 },
    { round: "R2", first: 85, last: 120 },
  ]);
  assert.deepEqual(
    shapes.map((s) => s.x0),
    [40.5, 82.5],
  );
  assert.deepEqual(
    annotations.map((a) => [a.text, a.x]),
    [
      ["R0", 20.5],
      ["R1", 60.5],
      ["R2", 102.5],
    ],
  );
  assert.deepEqual(roundMarks([{ round: "R0", first: 1, last: 40 }]).shapes, []);
  assert.deepEqual(roundMarks([]), { shapes: [], annotations: [] });
});
