import { test } from "node:test";
import assert from "node:assert/strict";
import { describeKey, integerAxisTicks, keyAxisTitle, plotValue } from "../../lib/figures/figure";
import { categoryColor, CATEGORY_COLORS } from "../../lib/figures/palette";

test("labels from the schema, the key itself otherwise", () => {
  assert.deepEqual(describeKey("train/pg_clipfrac"), { label: "clip fraction", unit: "fraction of tokens" });
  assert.equal(keyAxisTitle("train/loss"), "loss", "empty unit: no parentheses");
  assert.equal(keyAxisTitle("rollout/custom"), "rollout/custom");
});

test("plot values: missing and non-finite become null, never 0", () => {
  for (const [v, want] of [
    [undefined, null],
    [NaN, null],
    [Infinity, null],
    [-Infinity, null],
    [0, 0],
    [-1.5, -1.5],
  ] as const) {
    assert.equal(plotValue(v), want, `plotValue(${v})`);
  }
});

test("palette wraps", () => {
  assert.equal(categoryColor(10), CATEGORY_COLORS[0]);
  assert.equal(categoryColor(-1), CATEGORY_COLORS[9]);
});

test("integer x axes: one tick per id for short ranges only", () => {
  assert.deepEqual(integerAxisTicks([1, 2, 3, 4]), { tickformat: "d", dtick: 1 });
  assert.deepEqual(integerAxisTicks([1, 21]), { tickformat: "d", dtick: 1 });
  assert.deepEqual(integerAxisTicks([1, 160]), { tickformat: "d" });
});
