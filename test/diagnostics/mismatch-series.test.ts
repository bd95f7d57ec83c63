import assert from "node:assert/strict";
import { test } from "node:test";

import { mismatchSeries } from "../../lib/diagnostics/mismatch-series";
import { buildAligned, close, collectingReporter } from "./aligned-builder";

test("slime's signed gap is rollout/rollout_log_probs - rollout/log_probs, read only from batches holding both", () => {
  const aligned = buildAligned([
    {
      round: "R0",
      batches: [
        { rollout: { "rollout/log_probs": -0.5, "rollout/rollout_log_probs": -0.48 } },
        { rollout: { "rollout/log_probs": -0.4 } },
        { rollout: { "rollout/log_probs": -0.3, "rollout/rollout_log_probs": -0.31 } },
      ],
    },
  ]);
  const { series, notLogged } = mismatchSeries(aligned);
  const gap = series.find((s) => s.quantity === "signedGap")!;
  assert.equal(gap.name, "rollout/rollout_log_probs - rollout/log_probs");
  assert.deepEqual(
    gap.points.map((p) => [p.x, Number(p.value.toFixed(12))]),
    [
      [1, 0.02],
      [3, -0.01],
    ],
  );
  // (0.02 - 0.01) / 2, the batch without the engine's mean counted as missing.
  assert.ok(close(gap.rounds[0].mean.mean, 0.005, 1e-12));
  assert.equal(gap.rounds[0].mean.missing, 1);
  assert.equal(series.length, 1, "only the signed gap is logged");
  assert.ok(notLogged.some((n) => n.name === "train/tis" && n.when === "with --use-tis or --get-mismatch-metrics"));
});

test("a NaN gap is left out of the points and the mean, with one warning naming run, step and key", () => {
  const KEY = "train/train_rollout_logprob_abs_diff";
  const aligned = buildAligned([{ round: "R0", batches: [{ updates: [{ [KEY]: 0.01 }, { [KEY]: NaN }] }] }]);
  const rep = collectingReporter();
  const s = mismatchSeries(aligned, { reporter: rep }).series[0];
  assert.deepEqual(
    s.points.map((p) => p.value),
    [0.01],
  );
  assert.equal(s.rounds[0].mean.nonFinite, 1);
  assert.deepEqual(rep.warnings, [`run syn-r0 train/step 3 (update 2, _step 1): ${KEY} is NaN; excluded from means`]);
});

test("a run set logging no declared mismatch key has no series, every declared key listed with when it is logged", () => {
  const aligned = buildAligned([{ round: "R0", batches: [{ updates: [{ "train/loss": 1 }] }] }]);
  const { series, notLogged } = mismatchSeries(aligned);
  assert.equal(series.length, 0);
  assert.deepEqual(
    notLogged.map((n) => n.name),
    [
      "train/train_rollout_logprob_abs_diff",
      "rollout/rollout_log_probs - rollout/log_probs",
      "train/mis_kl",
      "train/mis_k3_kl",
      "train/tis",
      "train/tis_abs",
      "train/tis_clipfrac",
    ],
  );
});
