import { SLIME_PROFILE } from "../../lib/registry/profile-slime";
import { test } from "node:test";
import assert from "node:assert/strict";

import { truncationSurge } from "../../lib/health/truncation-surge";
import { buildAligned } from "../diagnostics/aligned-builder";

const P = { min_fraction: 0.5, median_multiple: 3, min_history: 1 };
const batches = (...xs: number[]) => xs.map((x) => ({ rollout: { "rollout/truncated_ratio": x } }));
const flagsOf = (out: ReturnType<typeof truncationSurge.run>) =>
  out.applicable ? out.flags.map((f) => [f.round, f.first, f.last, f.count, f.value]) : out.reason;

test("truncation_surge: batches above 0.5 and 3x their round's median; consecutive ones form one flag", () => {
  // R0: rollouts 1..7, median 0.1: rollouts 4 (0.6) and 5 (0.7) surge.
  const aligned = buildAligned([{ round: "R0", batches: batches(0.1, 0.1, 0.1, 0.6, 0.7, 0.1, 0.1) }]);
  const out = truncationSurge.run(aligned, P, SLIME_PROFILE);
  assert.deepEqual(flagsOf(out), [["R0", 4, 5, 2, 0.7]]);
  assert.equal(out.applicable && out.evidence, "round medians: R0 0.1");
});

test("truncation_surge does NOT fire on 0.6 in a round whose median is 0.3, nor on 0.4 above 3x a median of 0.1, nor on NaN", () => {
  const aligned = buildAligned([
    { round: "R1", batches: batches(0.3, 0.3, 0.3, 0.6, 0.2) },
    { round: "R2", batches: batches(0.1, 0.4, 0.1, NaN) },
  ]);
  assert.deepEqual(flagsOf(truncationSurge.run(aligned, P, SLIME_PROFILE)), []);
  // The floor and the multiple are parameters: with 0.3 and 1.5 both rounds fire.
  assert.deepEqual(flagsOf(truncationSurge.run(aligned, { min_fraction: 0.3, median_multiple: 1.5, min_history: 1 }, SLIME_PROFILE)), [
    ["R1", 4, 4, 1, 0.6],
    ["R2", 7, 7, 1, 0.4],
  ]);
});

test("truncation_surge does NOT judge a run's first batch (nothing to surge from), nor a batch after fewer than min_history finite values of its run", () => {
  // A real healthy verl twin of the fault corpus (verl-healthy-s10): its first batch truncated 0.5625, then 0.1875, then 0.
  const aligned = buildAligned([{ round: "R0", batches: batches(0.5625, 0.1875, 0, 0, 0, 0.0625, 0) }]);
  assert.deepEqual(flagsOf(truncationSurge.run(aligned, P, SLIME_PROFILE)), []);
  assert.deepEqual(flagsOf(truncationSurge.run(aligned, { ...P, min_history: 0 }, SLIME_PROFILE)), [["R0", 1, 1, 1, 0.5625]], "min_history 0 judges it");
  // A NaN first value is no history: the surge at the second batch is still the run's first judged value.
  const nanFirst = buildAligned([{ round: "R0", batches: batches(NaN, 0.9, 0, 0, 0) }]);
  assert.deepEqual(flagsOf(truncationSurge.run(nanFirst, P, SLIME_PROFILE)), []);
  // Each run's own first batch is skipped, a later surge of the second run is not.
  const two = buildAligned([
    { round: "R0", runId: "a", batches: batches(0.9, 0, 0, 0) },
    { round: "R1", runId: "b", batches: batches(0.9, 0, 0, 0.8, 0, 0) },
  ]);
  assert.deepEqual(flagsOf(truncationSurge.run(two, P, SLIME_PROFILE)), [["R1", 8, 8, 1, 0.8]]);
});

test("truncation_surge is not applicable when no batch logs rollout/truncated_ratio", () => {
  const aligned = buildAligned([{ round: "R0", batches: [{ rollout: { "rollout/truncated": 0.9 } }] }]);
  assert.equal(
    flagsOf(truncationSurge.run(aligned, P, SLIME_PROFILE)),
    "no rollout batch logs rollout/truncated_ratio (the framework or these runs do not log it)",
  );
});
