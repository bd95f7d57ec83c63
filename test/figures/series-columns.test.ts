import { test } from "node:test";
import assert from "node:assert/strict";
import { drawnValues, inOrder, numberColumn, valueColumn } from "../../lib/figures/series-columns";
import { roundSpans, roundSpansOf } from "../../lib/figures/round-marks";
import { rolloutsInOrder, rolloutSeriesFigure } from "../../lib/figures/rollout-series";
import { updatesInOrder, updateSeriesFigure } from "../../lib/figures/update-series";
import { updatesByPositionFigure } from "../../lib/figures/updates-by-position";
import { alignedFixture } from "./aligned-fixture";

const byNumber = (a: number, b: number) => a - b;

test("inOrder: records already in order come back as the same array (no copy of 10^6 references)", () => {
  const records = [1, 2, 2, 5];
  assert.equal(inOrder(records, byNumber), records, "ordered: the input itself");
  assert.equal(inOrder([], byNumber).length, 0);
});

test("inOrder: records out of order come back as a sorted copy; the input is not changed", () => {
  const records = [3, 1, 2];
  const out = inOrder(records, byNumber);
  assert.deepEqual(out, [1, 2, 3]);
  assert.notEqual(out, records, "a copy, not the input");
  assert.deepEqual(records, [3, 1, 2], "the input keeps its order");
});

test("aligned runs in display order are used as they are by the figure builders' sort", () => {
  const ordered = alignedFixture();
  assert.equal(updatesInOrder(ordered.updates), ordered.updates);
  assert.equal(rolloutsInOrder(ordered.rollouts), ordered.rollouts);
  const shuffled = alignedFixture(true);
  assert.deepEqual(
    updatesInOrder(shuffled.updates).map((u) => u.update),
    [1, 2, 3, 4, 5, 6, 7, 8],
  );
  assert.equal(shuffled.updates[0].update, 8, "the shuffled input is not sorted in place");
});

test("valueColumn: a gap (NaN) where the key is absent, NaN or infinite; counts absent and non-finite apart", () => {
  const records: { values: Record<string, number> }[] = [
    { values: { k: 1.5 } },
    { values: {} },
    { values: { k: NaN } },
    { values: { k: -Infinity } },
    { values: { k: 0 } },
    { values: { k: -2 } },
  ];
  const { y, missing, nonFinite } = valueColumn(records, "k");
  assert.deepEqual(Array.from(y), [1.5, NaN, NaN, NaN, 0, -2]);
  assert.equal(missing, 1);
  assert.equal(nonFinite, 2);
});

test("drawnValues: plain numbers, null for a gap, never NaN; all values or those at the indices", () => {
  const col = Float64Array.from([10, NaN, 0, 7.25]);
  assert.deepEqual(drawnValues(col, null), [10, null, 0, 7.25]);
  assert.deepEqual(drawnValues(col, [1, 3]), [null, 7.25]);
  assert.ok(Array.isArray(drawnValues(col, null)), "a plain array (plotly JSON), not a typed array");
  assert.deepEqual(Array.from(numberColumn([{ u: 4 }, { u: 9 }], (r) => r.u)), [4, 9]);
});

test("roundSpansOf over records and an x column gives the spans roundSpans gives over points", () => {
  const records = [{ round: "R1" }, { round: "R0" }, { round: "R0" }, { round: "R1" }, { round: "X" }];
  const x = Float64Array.from([41, 3, 1, 80, 100]);
  assert.deepEqual(
    roundSpansOf(["R0", "R1", "R2"], records, x),
    roundSpans(
      ["R0", "R1", "R2"],
      records.map((r, i) => ({ round: r.round, x: x[i] })),
    ),
  );
  assert.deepEqual(roundSpansOf(["R0", "R1", "R2"], records, x), [
    { round: "R0", first: 1, last: 3 },
    { round: "R1", first: 41, last: 80 },
    { round: "X", first: 100, last: 100 },
  ]);
});

test("figures from columns: gaps are null in the JSON, values exact, shuffled input draws the same figure", () => {
  const fig = updateSeriesFigure(alignedFixture(), "train/grad_norm", { markZero: true });
  assert.deepEqual((fig.data[0] as any).y, [2.5, 2.0, null, 1.5, 1.25, 0, null, 1.0]);
  assert.deepEqual((fig.data[0] as any).x, [1, 2, 3, 4, 5, 6, 7, 8]);
  assert.deepEqual(fig.layout.meta, { figure: "update-series", key: "train/grad_norm", missing: 1, nonFinite: 1, zeroAt: [6] });
  for (const build of [
    (a: ReturnType<typeof alignedFixture>) => updateSeriesFigure(a, "train/grad_norm", { markZero: true }),
    (a: ReturnType<typeof alignedFixture>) => updatesByPositionFigure(a, "train/ppo_kl"),
    (a: ReturnType<typeof alignedFixture>) =>
      rolloutSeriesFigure(a, "rollout/response_len/mean", { band: { min: "rollout/response_len/min", max: "rollout/response_len/max" } }),
  ]) {
    assert.equal(JSON.stringify(build(alignedFixture(true))), JSON.stringify(build(alignedFixture())));
    assert.ok(!JSON.stringify(build(alignedFixture())).includes("NaN"));
  }
  const resp = rolloutSeriesFigure(alignedFixture(), "perf/rollout_time");
  assert.deepEqual((resp.data[0] as any).y, [230, 240, 210, null], "Infinity is a gap, as before");
  assert.deepEqual(resp.layout.meta, { figure: "rollout-series", key: "perf/rollout_time", missing: 0, nonFinite: 1 });
});
