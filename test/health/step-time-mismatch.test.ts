import { SLIME_PROFILE } from "../../lib/registry/profile-slime";
import { test } from "node:test";
import assert from "node:assert/strict";

import { stepTimeMismatch } from "../../lib/health/step-time-mismatch";
import { buildAligned } from "../diagnostics/aligned-builder";

const P = { relative_tolerance: 0.01, absolute_tolerance_s: 0.05 };
const t = (step: number, wait: number, train: number) => ({ rollout: { "perf/step_time": step, "perf/train_wait_time": wait, "perf/train_time": train } });
const flagsOf = (out: ReturnType<typeof stepTimeMismatch.run>) =>
  out.applicable ? out.flags.map((f) => [f.round, f.first, f.last, f.count, f.value]) : out.reason;

test("step_time_mismatch: step_time differing from train_wait + train beyond the tolerance; the largest signed difference kept", () => {
  // Rollouts 1..5: exact; 0.05 s off (within max(0.1005, 0.05)); +2 s; -3 s; exact.
  const aligned = buildAligned([{ round: "R0", batches: [t(10, 4, 6), t(10.05, 4, 6), t(12, 4, 6), t(7, 4, 6), t(10, 4, 6)] }]);
  assert.deepEqual(flagsOf(stepTimeMismatch.run(aligned, P, SLIME_PROFILE)), [["R0", 3, 4, 2, -3]]);
  assert.equal(
    stepTimeMismatch.rule(P, SLIME_PROFILE),
    "|perf/step_time - (perf/train_wait_time + perf/train_time)| > max(0.01 x perf/step_time, 0.05 s) (consecutive batches form one flag)",
  );
});

test("step_time_mismatch does NOT fire on small steps within the absolute tolerance, on NaN timers, or on batches missing a part", () => {
  const aligned = buildAligned([{ round: "R0", batches: [t(0.54, 0.25, 0.25), t(NaN, 1, 1), { rollout: { "perf/step_time": 100, "perf/train_time": 1 } }] }]);
  assert.deepEqual(flagsOf(stepTimeMismatch.run(aligned, P, SLIME_PROFILE)), []);
});

test("step_time_mismatch reads the step time under its name before 2025-10-30 (perf/total_train_time)", () => {
  const aligned = buildAligned([{ round: "R0", batches: [{ rollout: { "perf/total_train_time": 12, "perf/train_wait_time": 4, "perf/train_time": 6 } }] }]);
  assert.deepEqual(flagsOf(stepTimeMismatch.run(aligned, P, SLIME_PROFILE)), [["R0", 1, 1, 1, 2]]);
});

test("step_time_mismatch is not applicable when no batch logs the three timers", () => {
  const aligned = buildAligned([{ round: "R0", batches: [{ rollout: { "perf/step_time": 100, "perf/train_time": 1 } }] }]);
  assert.equal(
    flagsOf(stepTimeMismatch.run(aligned, P, SLIME_PROFILE)),
    "no rollout batch logs all of perf/step_time or perf/total_train_time, perf/train_wait_time, perf/train_time (the framework or these runs do not time these phases)",
  );
});
