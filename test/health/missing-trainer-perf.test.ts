import { SLIME_PROFILE } from "../../lib/registry/profile-slime";
import { test } from "node:test";
import assert from "node:assert/strict";

import { missingTrainerPerf } from "../../lib/health/missing-trainer-perf";
import type { AlignedRuns } from "../../lib/types";
import { buildAligned, type RoundSpec } from "../diagnostics/aligned-builder";

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
  assert.deepEqual(flagsOf(missingTrainerPerf.run(aligned, {}, SLIME_PROFILE)), [
    ["R0", 2, 3, 2, null],
    ["R0", 5, 5, 1, null],
  ]);
});

test("missing_trainer_perf does NOT fire on batches that were not trained on, or that have the row", () => {
  const aligned = buildAligned([{ round: "R0", batches: [{ rollout: perf, updates: upd }, { rollout: { "rollout/kl": 0 } }, { rollout: perf }] }]);
  assert.deepEqual(flagsOf(missingTrainerPerf.run(aligned, {}, SLIME_PROFILE)), []);
});

test("missing_trainer_perf is not applicable when no batch has the trainer perf key, or nothing was trained", () => {
  const noPerf = buildAligned([{ round: "R0", batches: [{ rollout: { "rollout/kl": 0 }, updates: upd }] }]);
  assert.equal(
    flagsOf(missingTrainerPerf.run(noPerf, {}, SLIME_PROFILE)),
    "no rollout batch logs perf/actor_train_tok_per_s (the framework or these runs do not log it)",
  );
  const noUpdates = buildAligned([{ round: "R0", batches: [{ rollout: perf }] }]);
  assert.equal(flagsOf(missingTrainerPerf.run(noUpdates, {}, SLIME_PROFILE)), "no optimizer updates: no batch was trained on");
});

/** Two runs whose rollout ids overlap (ids 1..3 each), as separate runs of two rounds. */
function twoRunsSameIds(a: RoundSpec, b: RoundSpec): AlignedRuns {
  const x = buildAligned([a]);
  const y = buildAligned([b]);
  return {
    ...x,
    rounds: [...x.rounds, ...y.rounds],
    runs: [...x.runs, ...y.runs],
    rollouts: [...x.rollouts, ...y.rollouts],
    updates: [...x.updates, ...y.updates],
  };
}

test("missing_trainer_perf: a perf row of another run with the same rollout id does NOT count for this run", () => {
  const aligned = twoRunsSameIds(
    {
      round: "R0",
      batches: [
        { rollout: perf, updates: upd },
        { rollout: perf, updates: upd },
        { rollout: perf, updates: upd },
      ],
    },
    {
      round: "R1",
      batches: [
        { rollout: perf, updates: upd },
        { rollout: { "rollout/kl": 0 }, updates: upd },
        { rollout: null, updates: upd },
      ],
    },
  );
  assert.deepEqual(flagsOf(missingTrainerPerf.run(aligned, {}, SLIME_PROFILE)), [["R1", 2, 3, 2, null]]);
});

test("missing_trainer_perf: sparse rollout ids (a span far beyond the records) give the same flags", () => {
  const aligned = buildAligned([
    {
      round: "R0",
      batches: [
        { rollout: perf, updates: upd },
        { rollout: { "rollout/kl": 0 }, updates: upd },
      ],
    },
  ]);
  // Move the second batch a billion ids away: the marks of that run are kept by id, not in a byte per id.
  const far = 1e9;
  for (const r of [...aligned.rollouts, ...aligned.updates]) if (r.rollout === 2) r.rollout = far;
  assert.deepEqual(flagsOf(missingTrainerPerf.run(aligned, {}, SLIME_PROFILE)), [["R0", far, far, 1, null]]);
});
