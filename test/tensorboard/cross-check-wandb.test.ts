import assert from "node:assert/strict";
import { test } from "node:test";

import { crossCheckTensorboard } from "../../lib/tensorboard/cross-check-wandb";
import type { EvalRecord, AxisRecord } from "../../lib/types";

const rec = (runId: string, rollout: number, values: Record<string, number>): AxisRecord => ({ runId, round: "R0", rollout, historySteps: [], values });
const ev = (runId: string, step: number, values: Record<string, number>): EvalRecord => ({
  runId,
  round: "R0",
  evalStep: step,
  rollout: step,
  historyStep: step,
  values,
});

test("pairs by round and step across run ids; float32-representable values agree bit for bit, others after float32 rounding", () => {
  const wb = {
    rollouts: [rec("w", 1, { loss: 0.5, lr: 0.1, n: 44, _step: 17 }), rec("w", 2, { loss: NaN, lr: 0.2 })],
    evals: [ev("w", 2, { "eval/acc": 0.25 })],
  };
  const tb = {
    rollouts: [rec("t", 1, { loss: 0.5, lr: Math.fround(0.1), n: 44, _step: 1 }), rec("t", 2, { loss: NaN, lr: Math.fround(0.2) })],
    evals: [ev("t", 2, { "eval/acc": 0.25 })],
  };
  const r = crossCheckTensorboard(wb, tb);
  assert.equal(r.agree, true);
  assert.deepEqual([r.pairedRecords, r.compared, r.exact, r.float32], [3, 6, 4, 2]);
  assert.equal(
    r.verdict,
    "TensorBoard agrees with W&B on all 6 fields present in both (3 records): 4 bit for bit, 2 after rounding W&B's float64 to the float32 TensorBoard stores; 0 record(s) and 0 field(s) only in W&B, 0 record(s) and 0 field(s) only in TensorBoard",
  );
});

test("a value off by more than float32 rounding is a mismatch named by round, step and key; one-sided keys and records are listed", () => {
  const wb = { rollouts: [rec("w", 1, { loss: 0.5, gn: 1.25 }), rec("w", 2, { loss: 0.4 })], evals: [] };
  const tb = { rollouts: [rec("t", 1, { loss: 0.5000001, extra: 1 }), rec("t", 3, { loss: 0.3 })], evals: [] };
  const r = crossCheckTensorboard(wb, tb);
  assert.equal(r.agree, false);
  assert.deepEqual(r.mismatches, [{ round: "R0", kind: "record", step: 1, key: "loss", wandb: 0.5, tensorboard: 0.5000001 }]);
  assert.deepEqual(
    r.oneSided.map((x) => [x.step, x.key, x.side]),
    [
      [1, "gn", "wandb"],
      [1, "extra", "tensorboard"],
      [2, null, "wandb"],
      [3, null, "tensorboard"],
    ],
  );
  assert.match(
    r.verdict,
    /^TensorBoard disagrees with W&B on 1 of 1 fields present in both, first: round R0 step 1 loss: W&B 0.5, TensorBoard 0.5000001 \(float32 of W&B: 0.5\); 1 record\(s\) and 1 field\(s\) only in W&B, 1 record\(s\) and 1 field\(s\) only in TensorBoard$/,
  );
});

test("nothing in common is not agreement", () => {
  const r = crossCheckTensorboard({ rollouts: [rec("w", 1, { a: 1 })], evals: [] }, { rollouts: [], evals: [] });
  assert.equal(r.agree, false);
  assert.match(r.verdict, /^nothing to compare/);
});
