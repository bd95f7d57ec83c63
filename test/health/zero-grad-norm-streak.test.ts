import { SLIME_PROFILE } from "../../lib/registry/profile-slime";
import { test } from "node:test";
import assert from "node:assert/strict";

import { zeroGradNormStreak } from "../../lib/health/zero-grad-norm-streak";
import { buildAligned } from "../diagnostics/aligned-builder";

const g = (...xs: number[]) => xs.map((x) => ({ "train/grad_norm": x }));
const flagsOf = (out: ReturnType<typeof zeroGradNormStreak.run>) =>
  out.applicable ? out.flags.map((f) => [f.round, f.first, f.last, f.count, f.value]) : out.reason;

test("zero_grad_norm_streak: 3 consecutive exact zeros (-0 included) form one flag; a missing update ends a streak", () => {
  // R0: updates 1, 2 (rollout 1), 3 (rollout 2; update 4 not logged), 5, 6 (rollout 3).
  const aligned = buildAligned([{ round: "R0", batches: [{ updates: g(0, -0) }, { updates: g(0) }, { updates: g(0, 0) }, { updates: g(0, 1) }] }]);
  // Zeros at 1, 2, 3 | 5, 6, 7: two streaks of 3 (update 4 is absent, so 3 and 5 are not consecutive).
  assert.deepEqual(flagsOf(zeroGradNormStreak.run(aligned, { min_length: 3 }, SLIME_PROFILE)), [
    ["R0", 1, 3, 3, 0],
    ["R0", 5, 7, 3, 0],
  ]);
});

test("zero_grad_norm_streak does NOT fire on single zeros, on two in a row, across a round boundary, or through a NaN", () => {
  const aligned = buildAligned([
    // Single zeros (the sample's case: 66, 70, 82, ...) and a pair.
    { round: "R0", batches: [{ updates: g(0, 1) }, { updates: g(2, 0) }, { updates: g(0, 1) }, { updates: g(1, 0) }] },
    // Two zeros closing R1 and two opening R2: consecutive display updates, but two rounds.
    { round: "R1", batches: [{ updates: g(1, 1) }, { updates: g(0, 0) }] },
    { round: "R2", batches: [{ updates: g(0, 0) }, { updates: g(0, NaN) }, { updates: g(0, 0) }] },
  ]);
  // R2: 13, 14 zero, 15 zero, 16 NaN, 17, 18 zero -> streak 13..15 of 3 fires; nothing else.
  assert.deepEqual(flagsOf(zeroGradNormStreak.run(aligned, { min_length: 3 }, SLIME_PROFILE)), [["R2", 13, 15, 3, 0]]);
  // With min_length 2: the pair 4-5 of R0, the pairs of R1 and R2.
  assert.deepEqual(flagsOf(zeroGradNormStreak.run(aligned, { min_length: 2 }, SLIME_PROFILE)), [
    ["R0", 4, 5, 2, 0],
    ["R1", 11, 12, 2, 0],
    ["R2", 13, 15, 3, 0],
    ["R2", 17, 18, 2, 0],
  ]);
});

test("zero_grad_norm_streak is not applicable when no update logs train/grad_norm", () => {
  const aligned = buildAligned([{ round: "R0", batches: [{ updates: [{ "train/ppo_kl": 0 }] }] }]);
  assert.equal(
    flagsOf(zeroGradNormStreak.run(aligned, { min_length: 3 }, SLIME_PROFILE)),
    "no optimizer update logs train/grad_norm (the framework or these runs do not log it)",
  );
});
