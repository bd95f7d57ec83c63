import { SLIME_PROFILE } from "../../lib/registry/profile-slime";
import { test } from "node:test";
import assert from "node:assert/strict";

import { nonFinite } from "../../lib/health/non-finite";
import { buildAligned } from "../diagnostics/aligned-builder";

const flagsOf = (out: ReturnType<typeof nonFinite.run>) =>
  out.applicable ? out.flags.map((f) => [f.unit, f.round, f.first, f.last, f.count, f.key, f.value]) : out.reason;

test("non_finite: a NaN in a key only once gives one flag", () => {
  const aligned = buildAligned([{ round: "R0", batches: [{ rollout: { "rollout/kl": 0.1 }, updates: [{ "train/loss": 1 }, { "train/loss": NaN }] }] }]);
  assert.deepEqual(flagsOf(nonFinite.run(aligned, {}, SLIME_PROFILE)), [["update", "R0", 2, 2, 1, "train/loss", NaN]]);
});

test("non_finite: one flag per key and round with count, first, last; Inf is more extreme than NaN; rollout keys by rollout id", () => {
  const aligned = buildAligned([
    {
      round: "R0",
      batches: [
        { rollout: { "rollout/kl": NaN, "perf/step_time": 1 }, updates: [{ "train/loss": NaN, "train/grad_norm": 1 }, { "train/loss": 1 }] },
        { rollout: { "rollout/kl": 0.1 }, updates: [{ "train/loss": Infinity }, { "train/loss": NaN, "train/grad_norm": -Infinity }] },
      ],
    },
    { round: "R1", batches: [{ rollout: { "rollout/kl": -Infinity }, updates: [{ "train/loss": NaN }] }] },
  ]);
  assert.deepEqual(flagsOf(nonFinite.run(aligned, {}, SLIME_PROFILE)), [
    ["update", "R0", 4, 4, 1, "train/grad_norm", -Infinity],
    ["update", "R0", 1, 4, 3, "train/loss", Infinity],
    ["update", "R1", 5, 5, 1, "train/loss", NaN],
    ["rollout", "R0", 1, 1, 1, "rollout/kl", NaN],
    ["rollout", "R1", 3, 3, 1, "rollout/kl", -Infinity],
  ]);
});

test("non_finite does NOT fire on finite values (0, -0, tiny, huge) nor on critic keys", () => {
  const aligned = buildAligned([
    {
      round: "R0",
      batches: [{ rollout: { "rollout/kl": 0, "perf/x": 1e308 }, updates: [{ "train/loss": -0, "train/critic-value_loss": NaN }, { "train/loss": 5e-324 }] }],
    },
  ]);
  assert.deepEqual(flagsOf(nonFinite.run(aligned, {}, SLIME_PROFILE)), []);
});

test("non_finite is not applicable without records", () => {
  assert.equal(flagsOf(nonFinite.run(buildAligned([{ round: "R0", batches: [] }]), {}, SLIME_PROFILE)), "no optimizer update and no rollout batch to read");
});
