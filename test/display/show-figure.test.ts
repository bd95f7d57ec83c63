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
  const fig: Figure = { data: [{ type: "scatter", x: [1, 2], y: [NaN, 3], name: undefined }], layout: {} };
  const shown = figureForDisplay(fig, "t");
  assert.deepEqual(shown.data, [{ type: "scatter", x: [1, 2], y: [null, 3] }]);
  assert.deepEqual(shown.layout, { title: { text: "t" }, meta: { figure: "custom", title: "t" } });
});

test("invalid title or figure", () => {
  const fig: Figure = { data: [], layout: {} };
  assert.throws(() => figureForDisplay(fig, "  "), { message: 'invalid title: "  "' });
  assert.throws(() => figureForDisplay({ data: null } as any, "t"), /^Error: invalid figure/);
});
