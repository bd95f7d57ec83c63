/**
 * Notebook 03's "exact zeros marked" gradient-norm figure on a framework that logs one value per step
 * (TRL): a logged mean of exact zeros is exact zeros, so the zeros are marked at that grain too.
 */
import assert from "node:assert/strict";
import { test } from "node:test";

import { conceptSeriesFigure } from "../../lib/figures/concept-series";
import { buildAligned } from "../diagnostics/aligned-builder";

test("exact zeros of a per-step gradient norm (TRL) are marked; -0 is 0, tiny values and absent rows are not", () => {
  const aligned = buildAligned([{ round: "R0", batches: [] }]);
  const values = [1.5, 0, -0, 1e-12, undefined, 0];
  aligned.rollouts = values.map((v, i) => ({
    runId: "trl-a",
    round: "R0",
    rollout: i + 1,
    historySteps: [i],
    values: (v === undefined ? { "train/loss": 1 } : { "train/grad_norm": v }) as Record<string, number>,
  }));
  aligned.profile = { name: "trl", how: "given", evidence: [] };
  const s = conceptSeriesFigure(aligned, "gradNorm", { markZero: true });
  assert.ok("figure" in s);
  assert.deepEqual(s.figure.layout.meta?.zeroAt, [2, 3, 6]);
  assert.equal(s.figure.data[s.figure.data.length - 1].name, "exactly 0 (3)");
  const plain = conceptSeriesFigure(aligned, "gradNorm");
  assert.ok("figure" in plain && plain.figure.layout.meta?.zeroAt === undefined);
});
