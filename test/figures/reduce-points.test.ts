import { test } from "node:test";
import assert from "node:assert/strict";
import { REDUCE_ABOVE, REDUCE_BUCKETS, reducedIndices, reductionText, type Reduction } from "../../lib/figures/reduce-points";
import { rolloutSeriesFigure } from "../../lib/figures/rollout-series";
import { updateSeriesFigure } from "../../lib/figures/update-series";
import { updatesByPositionFigure } from "../../lib/figures/updates-by-position";
import type { AlignedRuns, AxisRecord, UpdateRecord } from "../../lib/types";
import { alignedFixture } from "./aligned-fixture";

const BIG = 100_000;

/** A deterministic pseudo-random value in [1, 2) of index i (no Math.random: the test is repeatable). */
function wobble(i: number): number {
  return 1 + (((i * 2654435761) >>> 0) % 10_000) / 10_000;
}

/** 10^5 updates over two rounds (N = 2): grad_norm wobbles in [1, 2) with planted zeros, a spike, a dip, NaN and gaps. */
function bigAligned(): { aligned: AlignedRuns; zeros: number[] } {
  const zeros = [7, 5_001, 5_002, 33_333, 99_999];
  const updates: UpdateRecord[] = [];
  const rollouts: AxisRecord[] = [];
  for (let update = 1; update <= BIG; update++) {
    const round = update <= BIG / 2 ? "R0" : "R1";
    const values: Record<string, number> = { "train/grad_norm": wobble(update) };
    if (zeros.includes(update)) values["train/grad_norm"] = 0;
    if (update === 61_234) values["train/grad_norm"] = 1e6; // the one spike
    if (update === 70_000) values["train/grad_norm"] = NaN;
    if (update % 25_000 === 3) delete values["train/grad_norm"]; // not logged
    const trainStep = update + 1;
    updates.push({
      runId: `big-${round}`,
      round,
      trainStep,
      update,
      rollout: Math.floor(trainStep / 2),
      updateInRollout: trainStep % 2,
      historyStep: update,
      values,
    });
  }
  for (let rollout = 1; rollout <= BIG; rollout++) {
    const round = rollout <= BIG / 2 ? "R0" : "R1";
    const mean = rollout === 12_345 ? -5 : 100 * wobble(rollout);
    rollouts.push({
      runId: `big-${round}`,
      round,
      rollout,
      historySteps: [rollout],
      values: { "rollout/response_len/mean": mean, "rollout/response_len/min": mean - 50, "rollout/response_len/max": rollout === 777 ? 1e5 : mean + 50 },
    });
  }
  const small = alignedFixture();
  return { aligned: { ...small, rounds: ["R0", "R1"], updates, rollouts }, zeros };
}

const { aligned, zeros } = bigAligned();

test("a 10^5-update series keeps its first and last points, global min and max, every zero and a gap per bucket with one", () => {
  const fig = updateSeriesFigure(aligned, "train/grad_norm", { markZero: true });
  const [line, zeroMarks] = fig.data as any[];
  assert.ok(line.x.length < BIG / 10, `reduced (${line.x.length} points drawn)`);
  assert.equal(line.x[0], 1, "first update drawn");
  assert.equal(line.x[line.x.length - 1], BIG, "last update drawn");
  const drawnY = new Map<number, number | null>(line.x.map((x: number, i: number) => [x, line.y[i]]));
  assert.equal(drawnY.get(61_234), 1e6, "the one spike (global max) is drawn");
  for (const z of [7, 5_001, 33_333, 99_999]) assert.equal(drawnY.get(z), 0, `zero at update ${z} is its bucket's min and drawn`);
  assert.equal(drawnY.has(5_002), false, "the line keeps one min per bucket: the second zero of a bucket is left to the markers");
  assert.equal(drawnY.get(70_000), null, "the NaN update is drawn as a gap");
  assert.equal(drawnY.get(25_003), null, "a not-logged update is drawn as a gap");
  assert.deepEqual(zeroMarks.x, zeros, "the zero markers keep every exact zero");
  assert.equal(zeroMarks.customdata.length, zeros.length);
  for (let i = 1; i < line.x.length; i++) assert.ok(line.x[i] > line.x[i - 1], "drawn points stay in update order");
  assert.equal(line.customdata.length, line.x.length, "hover rows follow the drawn points");
  assert.deepEqual(line.customdata[0], ["R0", 2, 1, 1]);
});

test("a reduced figure counts every point in its meta, says so in a caption, and stays under 1 MB", () => {
  const fig = updateSeriesFigure(aligned, "train/grad_norm", { markZero: true });
  const meta = fig.layout.meta!;
  const drawn = (fig.data[0] as any).x.length;
  assert.deepEqual(meta.reduced, { from: BIG, to: drawn });
  assert.equal(meta.missing, 4, "computed from all updates: 4 not logged");
  assert.equal(meta.nonFinite, 1, "computed from all updates: 1 NaN");
  assert.deepEqual(meta.zeroAt, zeros);
  const note = fig.layout.annotations!.at(-1)!;
  assert.equal(note.text, reductionText({ from: BIG, to: drawn }));
  assert.match(String(note.text), /^drawn: [\d,]+ of 100,000 points \(min, max, first, last per x bucket\)$/);
  assert.match(String(note.hovertext), /every number in tables, notes and the meta is computed from all points/);
  const bytes = Buffer.byteLength(JSON.stringify(fig));
  assert.ok(bytes < 1_000_000, `figure JSON ${bytes} bytes < 1 MB`);
});

test("rollout series: the band and the line keep each bucket's extremes of all three lines", () => {
  const fig = rolloutSeriesFigure(aligned, "rollout/response_len/mean", { band: { min: "rollout/response_len/min", max: "rollout/response_len/max" } });
  const [lower, upper, line] = fig.data as any[];
  assert.deepEqual(lower.x, line.x, "the three traces share the drawn x");
  assert.deepEqual(upper.x, line.x);
  const at = (trace: any, x: number) => trace.y[trace.x.indexOf(x)];
  assert.equal(at(line, 12_345), -5, "the line's dip is drawn");
  assert.equal(at(lower, 12_345), -55, "and the band's lowest point");
  assert.equal(at(upper, 777), 1e5, "the band's spike is drawn");
  assert.equal(line.x[0], 1);
  assert.equal(line.x[line.x.length - 1], BIG);
  assert.equal((fig.layout.meta!.reduced as Reduction).from, BIG);
  assert.ok(Buffer.byteLength(JSON.stringify(fig)) < 1_000_000);
});

test("updates by position: each position's markers reduced on their own, counts summed over traces", () => {
  const fig = updatesByPositionFigure(aligned, "train/grad_norm");
  const total = fig.data.reduce((s, t: any) => s + t.x.length, 0);
  assert.deepEqual(fig.layout.meta!.reduced, { from: 2 * BIG, to: total }, "the grey line and the two position traces");
  const pos = fig.data.slice(1) as any[];
  assert.ok(
    pos.some((t) => t.x.includes(61_234) && t.y[t.x.indexOf(61_234)] === 1e6),
    "the spike keeps its position marker",
  );
  assert.ok(Buffer.byteLength(JSON.stringify(fig)) < 1_000_000);
});

test("small series are not reduced: no meta.reduced, no caption, the same bytes as drawn in full", () => {
  const fig = updateSeriesFigure(alignedFixture(), "train/grad_norm", { markZero: true });
  assert.equal(fig.layout.meta!.reduced, undefined);
  assert.deepEqual(
    fig.layout.annotations!.map((a) => a.text),
    ["R0", "R1"],
    "only the round labels",
  );
  const xs = Array.from({ length: REDUCE_ABOVE }, (_, i) => i);
  assert.equal(reducedIndices(xs, [xs]), null, `${REDUCE_ABOVE} points are drawn as they are`);
});

test("reducedIndices: per bucket first, last, min, max and first gap; equal extremes keep the first", () => {
  // 12 points, 3 buckets of 4 (x 0..11): above 4 points reduces.
  const x = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11];
  const y = [5, 9, 1, 5, 3, 3, 3, 3, 7, null, 0, 7];
  assert.deepEqual(reducedIndices(x, [y], { above: 4, buckets: 3 }), [0, 1, 2, 3, 4, 7, 8, 9, 10, 11]);
  // A second y over the same x adds its own extremes.
  const y2 = [0, 0, 0, 0, 0, 9, 0, 0, 0, 0, 0, 0];
  assert.deepEqual(reducedIndices(x, [y, y2], { above: 4, buckets: 3 }), [0, 1, 2, 3, 4, 5, 7, 8, 9, 10, 11]);
  assert.deepEqual(reducedIndices([4, 4, 4, 4, 4], [[1, 2, 0, 2, 1]], { above: 4, buckets: 3 }), [0, 1, 2, 4], "one x: one bucket");
  assert.equal(REDUCE_BUCKETS, 1000);
});
