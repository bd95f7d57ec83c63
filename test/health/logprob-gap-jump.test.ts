import { SLIME_PROFILE } from "../../lib/registry/profile-slime";
import { test } from "node:test";
import assert from "node:assert/strict";

import { logprobGapJump } from "../../lib/health/logprob-gap-jump";
import { buildAligned } from "../diagnostics/aligned-builder";

const KEY = "train/train_rollout_logprob_abs_diff";
const gaps = (a: number, b: number) => [{ [KEY]: a }, { [KEY]: b }];
const flagsOf = (out: ReturnType<typeof logprobGapJump.run>) =>
  out.applicable ? out.flags.map((f) => [f.round, f.first, f.last, f.count, f.value]) : out.reason;

test("logprob_gap_jump: consecutive jumps above 5x the median over all updates form one flag", () => {
  // Updates 1..12: eight at 0.01, then 0.1, 0.2, 0.06 (updates 5-7) and 0.051 (update 10). Median 0.01, threshold 0.05.
  const aligned = buildAligned([
    { round: "R0", batches: [{ updates: gaps(0.01, 0.01) }, { updates: gaps(0.01, 0.01) }, { updates: gaps(0.1, 0.2) }] },
    { round: "R1", batches: [{ updates: gaps(0.06, 0.01) }, { updates: gaps(0.01, 0.051) }, { updates: gaps(0.01, 0.05) }] },
  ]);
  const out = logprobGapJump.run(aligned, { median_multiple: 5 }, SLIME_PROFILE);
  // 5-6 (R0) and 7 (R1) are consecutive display updates but two rounds: two flags. 0.05 is not above 0.05.
  assert.deepEqual(flagsOf(out), [
    ["R0", 5, 6, 2, 0.2],
    ["R1", 7, 7, 1, 0.06],
    ["R1", 10, 10, 1, 0.051],
  ]);
  assert.equal(out.applicable && out.evidence, "median over all updates 0.01, threshold 0.05");
});

test("logprob_gap_jump does NOT fire on a steady gap, nor on NaN / Inf (non_finite's)", () => {
  const aligned = buildAligned([{ round: "R0", batches: [{ updates: gaps(0.01, 0.012) }, { updates: gaps(NaN, Infinity) }, { updates: gaps(0.009, 0.011) }] }]);
  assert.deepEqual(flagsOf(logprobGapJump.run(aligned, { median_multiple: 5 }, SLIME_PROFILE)), []);
});

test("logprob_gap_jump is not applicable when the key is absent, or when its median is 0", () => {
  const absent = buildAligned([{ round: "R0", batches: [{ updates: [{ "train/loss": 1 }] }] }]);
  assert.equal(
    flagsOf(logprobGapJump.run(absent, { median_multiple: 5 }, SLIME_PROFILE)),
    `no optimizer update logs ${KEY} (the framework or these runs do not log it)`,
  );
  const zero = buildAligned([{ round: "R0", batches: [{ updates: gaps(0, 0) }, { updates: gaps(0, 0.3) }] }]);
  assert.equal(
    flagsOf(logprobGapJump.run(zero, { median_multiple: 5 }, SLIME_PROFILE)),
    `the median ${KEY} over all updates is 0: a multiple of it is no threshold`,
  );
});
