import { test } from "node:test";
import assert from "node:assert/strict";

import { missingTrainerPerf } from "../../lib/health/missing-trainer-perf";
import { buildAligned } from "../diagnostics/aligned-builder";

const perf = { "perf/actor_train_tok_per_s": 13500 };
const upd = [{ "train/loss": 1 }, { "train/loss": 2 }];
const flagsOf = (out: ReturnType<typeof missingTrainerPerf.run>) =>
  out.applicable ? out.flags.map((f) => [f.round, f.first, f.last, f.count, f.value]) : out.reason;

test("missing_trainer_perf: trained batches without the trainer perf row; consecutive ones form one flag; a batch without any record counts", () => {
  const aligned = buildAligned([
    {
      round: "R0",
      batches: [
        { rollout: perf, updates: upd }, // 1: fine
        { rollout: { "rollout/kl": 0 }, updates: upd }, // 2: manager/trainer rows only
        { rollout: { "rollout/kl": 0 }, updates: upd }, // 3: same
        { rollout: perf, updates: upd }, // 4: fine
        { rollout: null, updates: upd }, // 5: no rollout record at all
      ],
    },
  ]);
  assert.deepEqual(flagsOf(missingTrainerPerf.run(aligned, {})), [
    ["R0", 2, 3, 2, null],
    ["R0", 5, 5, 1, null],
  ]);
});

test("missing_trainer_perf does NOT fire on batches that were not trained on, or that have the row", () => {
  const aligned = buildAligned([{ round: "R0", batches: [{ rollout: perf, updates: upd }, { rollout: { "rollout/kl": 0 } }, { rollout: perf }] }]);
  assert.deepEqual(flagsOf(missingTrainerPerf.run(aligned, {})), []);
});

test("missing_trainer_perf is not applicable when no batch has the trainer perf key, or nothing was trained", () => {
  const noPerf = buildAligned([{ round: "R0", batches: [{ rollout: { "rollout/kl": 0 }, updates: upd }] }]);
  assert.equal(flagsOf(missingTrainerPerf.run(noPerf, {})), "no rollout batch logs perf/actor_train_tok_per_s (the framework or these runs do not log it)");
  const noUpdates = buildAligned([{ round: "R0", batches: [{ rollout: perf }] }]);
  assert.equal(flagsOf(missingTrainerPerf.run(noUpdates, {})), "no optimizer updates: no batch was trained on");
});
