import assert from "node:assert/strict";
import { test } from "node:test";

import { mismatchPanel } from "../../lib/diagnostics/mismatch-panel";
import type { Trace } from "../../lib/figures/figure";
import { mismatchFigure } from "../../lib/figures/mismatch-figure";
import { buildAligned } from "../diagnostics/aligned-builder";

const ABS = "train/train_rollout_logprob_abs_diff";
const b = (v: number) => ({ updates: [{ [ABS]: v }, { [ABS]: v }] });

test("the mismatch figure: a point per batch, each round's mean over its span, a restart line with its jump, the slope in the title", () => {
  // R0 batches 1-2 at 0.01, 0.02 (mean 0.015); R1 batches 3-4 at 0.05, 0.03 (mean 0.04). Slope 0.025; jump at 3: 0.05 - 0.015 = 0.035.
  const aligned = buildAligned([
    { round: "R0", batches: [b(0.01), b(0.02)] },
    { round: "R1", batches: [b(0.05), b(0.03)] },
  ]);
  const panel = mismatchPanel(aligned);
  const fig = mismatchFigure(panel.entries[0], aligned.rounds, panel.xTitle);
  const points = fig.data[0] as Trace;
  assert.deepEqual(points.x, [1, 2, 3, 4]);
  assert.deepEqual(points.y, [0.01, 0.02, 0.05, 0.03]);
  const means = fig.data[1] as { x: (number | null)[]; y: (number | null)[] };
  assert.deepEqual(means.x, [1, 2, null, 3, 4, null]);
  assert.deepEqual(
    means.y.map((v) => (v === null ? null : Number(v.toFixed(12)))),
    [0.015, 0.015, null, 0.04, 0.04, null],
  );
  assert.equal((fig.layout.title as { text: string }).text, "mean |train - rollout log-prob|: slope +0.025 nats/token per round");
  const restart = fig.layout.shapes!.find((s) => s.line?.dash === "dash")!;
  assert.equal(restart.x0, 2.5);
  assert.ok(fig.layout.annotations!.some((a) => a.text === "restart: jump +0.035"));
  assert.equal(panel.xTitle, "rollout batch (rollout/step)");
});

test("above 2000 batches the drawn points are reduced (per pixel column the extremes kept, a spike survives) and the figure says so", () => {
  const batches = Array.from({ length: 5000 }, (_, i) => b(i === 3210 ? 0.9 : 0.01 + (i % 7) * 1e-4));
  const aligned = buildAligned([{ round: "R0", batches }]);
  const panel = mismatchPanel(aligned);
  const fig = mismatchFigure(panel.entries[0], aligned.rounds, panel.xTitle);
  const points = fig.data[0] as Trace;
  assert.ok((points.x as number[]).length < 5000 && (points.x as number[]).length >= 1000, String((points.x as number[]).length));
  assert.ok((points.y as number[]).includes(0.9), "the one spike is drawn");
  assert.deepEqual(fig.layout.meta?.reduced, { from: 5000, to: (points.x as number[]).length });
});
