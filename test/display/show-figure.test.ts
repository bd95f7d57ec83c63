import { test } from "node:test";
import assert from "node:assert/strict";
import { PLOTLY_MIME } from "../../lib/display/display-target";
import { figureForDisplay, showFigure } from "../../lib/display/show-figure";
import type { Figure } from "../../lib/figures/figure";
import { updateSeriesFigure } from "../../lib/figures/update-series";
import { alignedFixture } from "../figures/aligned-fixture";
import { fakeDisplay } from "./fake-display";

test("showFigure emits ONE output: plotly JSON with the title inside", () => {
  const d = fakeDisplay();
  const fig = updateSeriesFigure(alignedFixture(), "train/grad_norm", { markZero: true });
  showFigure(fig, "Gradient norm per update", { display: d });
  assert.equal(d.calls.length, 1, "one display call = one output");
  const [mime, shown] = d.calls[0] as [string, Figure];
  assert.equal(mime, PLOTLY_MIME);
  assert.equal(typeof shown, "object", "the object itself, not a JSON string");
  assert.equal(shown.layout.title!.text, "Gradient norm per update");
  assert.equal(shown.layout.title!.x, 0.01, "other title fields kept");
  assert.equal(shown.layout.meta!.title, "Gradient norm per update");
  assert.equal(shown.layout.meta!.figure, "update-series");
  assert.deepEqual(shown.data, fig.data);
  assert.equal(fig.layout.title!.text, "gradient norm per optimizer update", "input not changed");
});

test("the displayed figure is plain JSON: NaN becomes null, undefined fields vanish", () => {
  const fig: Figure = { data: [{ type: "scatter", x: [1, 2, 3], y: [NaN, 3, 4], name: undefined }], layout: {} };
  const shown = figureForDisplay(fig, "t");
  assert.deepEqual(shown.data, [{ type: "scatter", x: [1, 2, 3], y: [null, 3, 4] }]);
  assert.deepEqual(shown.layout, { title: { text: "t" }, meta: { figure: "custom", title: "t" } });
});

test("invalid title or figure", () => {
  const fig: Figure = { data: [], layout: {} };
  assert.throws(() => figureForDisplay(fig, "  "), { message: 'invalid title: "  "' });
  assert.throws(() => figureForDisplay({ data: null } as any, "t"), /^Error: invalid figure/);
});

test("figureForDisplay: a constant series gets a range with zero in view (plotly would draw 0 on -1..1); a varying one, a set range or a category axis keeps plotly's", () => {
  const fig = (ys: (number | null)[], yaxis: Record<string, unknown> = {}) => ({
    data: [{ type: "scatter" as const, x: ys.map((_, i) => i + 1), y: ys }],
    layout: { yaxis },
  });
  const rangeOf = (f: ReturnType<typeof fig>) => (figureForDisplay(f as never, "t").layout.yaxis as { range?: number[] }).range;
  // A real TRL run whose train/grad_norm is exactly 0 on every logged step, with a NaN gap.
  assert.deepEqual(rangeOf(fig([0, 0, null, 0, 0])), [-0.05, 1]);
  assert.deepEqual(rangeOf(fig([0.25, 0.25, 0.25])), [0, 0.5]);
  assert.deepEqual(rangeOf(fig([-2, -2])), [-4, 0]);
  assert.equal(rangeOf(fig([0, 0.1, 0])), undefined);
  assert.deepEqual(rangeOf(fig([0, 0], { range: [0, 5] })), [0, 5]);
  assert.equal(rangeOf(fig([0, 0], { type: "log" })), undefined);
  assert.equal(rangeOf(fig([null, null])), undefined);
});
