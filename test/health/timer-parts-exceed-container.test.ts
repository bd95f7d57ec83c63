import { SLIME_PROFILE } from "../../lib/registry/profile-slime";
import assert from "node:assert/strict";
import { test } from "node:test";

import { timerPartsExceedContainer } from "../../lib/health/timer-parts-exceed-container";
import { buildAligned } from "../diagnostics/aligned-builder";

const P = { relative_tolerance: 0.01, absolute_tolerance_s: 0.05 };
const flagsOf = (out: ReturnType<typeof timerPartsExceedContainer.run>) =>
  out.applicable ? out.flags.map((f) => [f.round, f.key, f.first, f.last, f.count, f.value]) : out.reason;
const batch = (values: Record<string, number>) => ({ rollout: values });

test("timer_parts_exceed_container: logged parts adding up to more than their container, per container key; the largest excess kept", () => {
  const aligned = buildAligned([
    {
      round: "R0",
      batches: [
        batch({ "perf/train_time": 10, "perf/log_probs_time": 3, "perf/actor_train_time": 6 }), // 1: parts 9 <= 10
        batch({ "perf/train_time": 10, "perf/log_probs_time": 5, "perf/actor_train_time": 7 }), // 2: +2
        batch({ "perf/train_time": 10, "perf/log_probs_time": 5, "perf/actor_train_time": 8 }), // 3: +3
        batch({ "perf/train_wait_time": 1, "perf/data_preprocess_time": 4, "perf/train_time": 10, "perf/actor_train_time": 10.04 }), // 4: wait +3; train +0.04 (within 0.1)
      ],
    },
  ]);
  assert.deepEqual(flagsOf(timerPartsExceedContainer.run(aligned, P, SLIME_PROFILE)), [
    ["R0", "perf/train_time", 2, 3, 2, 3],
    ["R0", "perf/train_wait_time", 4, 4, 1, 3],
  ]);
});

test("timer_parts_exceed_container does NOT fire on the step time (step_time_mismatch's), on parts within the tolerance, or on NaN", () => {
  const aligned = buildAligned([
    {
      round: "R0",
      batches: [
        batch({ "perf/step_time": 1, "perf/train_wait_time": 4, "perf/train_time": 6 }),
        batch({ "perf/train_time": 100, "perf/actor_train_time": 100.9 }),
        batch({ "perf/train_time": NaN, "perf/actor_train_time": 1 }),
      ],
    },
  ]);
  assert.deepEqual(flagsOf(timerPartsExceedContainer.run(aligned, P, SLIME_PROFILE)), []);
});

test("timer_parts_exceed_container is not applicable when no container is logged with a part", () => {
  const aligned = buildAligned([{ round: "R0", batches: [batch({ "perf/train_time": 10 }), batch({ "perf/actor_train_time": 3 })] }]);
  assert.match(
    String(flagsOf(timerPartsExceedContainer.run(aligned, P, SLIME_PROFILE))),
    /^no rollout batch logs a container timer \(perf\/train_wait_time, perf\/train_time\) with any of its parts/,
  );
});
