import { test } from "node:test";
import assert from "node:assert/strict";
import { updateSeriesFigure } from "../../lib/figures/update-series";
import { alignedFixture } from "./aligned-fixture";

test("gradient norm per update: x = display update numbers, gaps for missing/NaN, zeros marked", () => {
  const fig = updateSeriesFigure(alignedFixture(true), "train/grad_norm", { markZero: true });
  const [line, zeros] = fig.data as any[];
  assert.deepEqual(line.x, [1, 2, 3, 4, 5, 6, 7, 8], "x is the display update number, sorted, never _step (101..108)");
  assert.deepEqual(line.y, [2.5, 2.0, null, 1.5, 1.25, 0, null, 1.0], "update 3 not logged and update 7 NaN are gaps");
  assert.equal(line.connectgaps, false, "gaps are not bridged");
  assert.deepEqual(line.customdata[0], ["R0", 2, 1, 1], "hover: round, train/step, rollout, position 1-based");
  assert.deepEqual(line.customdata[7], ["R1", 9, 4, 2]);
  assert.equal(zeros.name, "exactly 0 (1 update)");
  assert.deepEqual(zeros.x, [6]);
  assert.deepEqual(zeros.y, [0]);
  assert.equal(zeros.marker.symbol, "x");
  assert.deepEqual(fig.layout.meta, { figure: "update-series", key: "train/grad_norm", missing: 1, nonFinite: 1, zeroAt: [6] });
});

test("round boundary between update 4 (R0) and 5 (R1), labels centred over each round", () => {
  const fig = updateSeriesFigure(alignedFixture(), "train/entropy_loss");
  assert.equal(fig.layout.shapes!.length, 1);
  const s = fig.layout.shapes![0];
  assert.deepEqual([s.type, s.xref, s.yref, s.x0, s.x1, s.y0, s.y1], ["line", "x", "paper", 4.5, 4.5, 0, 1]);
  assert.deepEqual(
    fig.layout.annotations!.map((a) => [a.text, a.x, a.y, a.yref]),
    [
      ["R0", 2.5, 1, "paper"],
      ["R1", 6.5, 1, "paper"],
    ],
  );
  assert.equal(fig.data.length, 1, "no zero-marker trace unless asked");
});

test("titles and axis labels come from the metric schema", () => {
  const fig = updateSeriesFigure(alignedFixture(), "train/entropy_loss");
  assert.equal(fig.layout.title!.text, "entropy per optimizer update");
  assert.equal((fig.layout.xaxis!.title as any).text, "optimizer update");
  assert.equal((fig.layout.yaxis!.title as any).text, "entropy (nats/token)");
  assert.equal(updateSeriesFigure(alignedFixture(), "train/entropy_loss", { title: "T" }).layout.title!.text, "T");
});

test("deterministic, JSON-clean output", () => {
  const a = JSON.stringify(updateSeriesFigure(alignedFixture(), "train/grad_norm", { markZero: true }));
  const b = JSON.stringify(updateSeriesFigure(alignedFixture(true), "train/grad_norm", { markZero: true }));
  assert.equal(a, b, "same spec whatever the record order");
  assert.ok(!/NaN|Infinity/.test(a), "no non-JSON numbers");
});

test("errors name the key and runs", () => {
  assert.throws(() => updateSeriesFigure(alignedFixture(), "rollout/response_len/mean"), /^Error: invalid key: rollout\/response_len\/mean/);
  assert.throws(() => updateSeriesFigure(alignedFixture(), "train/nope"), {
    message: "no optimizer update has key train/nope (runs: synth-r0, synth-r1)",
  });
});
