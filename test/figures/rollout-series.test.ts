import { test } from "node:test";
import assert from "node:assert/strict";
import { rolloutSeriesFigure } from "../../lib/figures/rollout-series";
import { BAND_FILL } from "../../lib/figures/palette";
import { alignedFixture } from "./aligned-fixture";

const band = { min: "rollout/response_len/min", max: "rollout/response_len/max" };

test("response length per rollout with a min..max band", () => {
  const fig = rolloutSeriesFigure(alignedFixture(true), "rollout/response_len/mean", { band });
  const [lower, upper, mean] = fig.data as any[];
  assert.deepEqual(mean.x, [1, 2, 3, 4], "x = rollout id");
  assert.deepEqual(mean.y, [280, 290, 250, null], "rollout 4 has no mean: a gap");
  assert.deepEqual(lower.y, [10, 12, 8, 9]);
  assert.deepEqual(upper.y, [900, 1000, 950, 990]);
  assert.equal(lower.showlegend, false);
  assert.equal(upper.fill, "tonexty", "upper edge fills down to the lower edge drawn just before it");
  assert.equal(upper.fillcolor, BAND_FILL);
  assert.equal(upper.name, "min response length .. max response length");
  assert.deepEqual(mean.customdata[2], ["R1", "synth-r1"]);
  assert.equal(fig.layout.shapes!.length, 1);
  assert.equal(fig.layout.shapes![0].x0, 2.5, "boundary between rollout 2 (R0) and 3 (R1)");
  assert.deepEqual(
    fig.layout.annotations!.map((a) => [a.text, a.x]),
    [
      ["R0", 1.5],
      ["R1", 3.5],
    ],
  );
  assert.equal(fig.layout.title!.text, "mean response length per rollout batch");
  assert.equal((fig.layout.yaxis!.title as any).text, "mean response length (tokens)");
  assert.equal((fig.layout.xaxis!.title as any).text, "rollout batch (rollout/step)");
  assert.deepEqual(fig.layout.meta, { figure: "rollout-series", key: "rollout/response_len/mean", missing: 1, nonFinite: 0, band });
});

test("without a band: one trace; Infinity is a counted gap; tick format option", () => {
  const fig = rolloutSeriesFigure(alignedFixture(), "perf/rollout_time", { yTickFormat: ".0f" });
  assert.equal(fig.data.length, 1);
  assert.deepEqual((fig.data[0] as any).y, [230, 240, 210, null]);
  assert.equal(fig.layout.meta!.nonFinite, 1);
  assert.equal(fig.layout.yaxis!.tickformat, ".0f");
  assert.equal((fig.layout.yaxis!.title as any).text, "rollout wall time (s)", "axis title kept");
});

test("errors", () => {
  assert.throws(() => rolloutSeriesFigure(alignedFixture(), "train/grad_norm"), /^Error: invalid key: train\/grad_norm/);
  assert.throws(() => rolloutSeriesFigure(alignedFixture(), "rollout/response_len/mean", { band: { min: "rollout/x", max: band.max } }), {
    message: "no rollout batch has key rollout/x (runs: synth-r0, synth-r1)",
  });
});
