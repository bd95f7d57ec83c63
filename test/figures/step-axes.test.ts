import { test } from "node:test";
import assert from "node:assert/strict";
import { stepAxesFigure } from "../../lib/figures/step-axes";
import { CATEGORY_COLORS } from "../../lib/figures/palette";
import type { RunHistory } from "../../lib/types";

const run = (runId: string, round: string, rows: Record<string, number>[]): RunHistory => ({
  runId,
  round,
  entity: "e",
  project: "p",
  state: "finished",
  rows,
});

test("_step against rollout/step and train/step, colour per run, symbol per key", () => {
  const runs = [
    run("synth-a", "R0", [
      { _step: 0, "rollout/step": 1 },
      { _step: 1, "train/step": 2 },
      { _step: 2, "train/step": 3 },
      { _step: 3, "rollout/step": 2 },
    ]),
    run("synth-b", "R1", [
      { _step: 0, "rollout/step": 3 },
      { _step: 1, "train/step": 6, "rollout/step": NaN },
    ]),
  ];
  const fig = stepAxesFigure(runs);
  assert.deepEqual(
    (fig.data as any[]).map((t) => [t.name, t.x, t.y, t.marker.color, t.marker.symbol, t.legendgroup]),
    [
      ["R0 (synth-a): rollout/step", [0, 3], [1, 2], CATEGORY_COLORS[0], "circle", "synth-a"],
      ["R0 (synth-a): train/step", [1, 2], [2, 3], CATEGORY_COLORS[0], "diamond-open", "synth-a"],
      ["R1 (synth-b): rollout/step", [0], [3], CATEGORY_COLORS[1], "circle", "synth-b"],
      ["R1 (synth-b): train/step", [1], [6], CATEGORY_COLORS[1], "diamond-open", "synth-b"],
    ],
  );
  assert.equal((fig.layout.xaxis!.title as any).text, "_step (W&B logging counter of the run)");
  assert.deepEqual(fig.layout.meta, { figure: "step-axes", stepKeys: ["rollout/step", "train/step"], runs: ["synth-a", "synth-b"] });
});
