import assert from "node:assert/strict";
import { test } from "node:test";

import { resumeJumps, resumePoints } from "../../lib/diagnostics/mismatch-resumes";
import { mismatchSeries } from "../../lib/diagnostics/mismatch-series";
import type { AlignedRuns } from "../../lib/types";
import { buildAligned, close } from "./aligned-builder";

const ABS = "train/train_rollout_logprob_abs_diff";
const batch = (v: number) => ({ updates: [{ [ABS]: v }, { [ABS]: v }] });

/** R0 rollouts 1-4, R1 rollouts 5-7; R1's run was resumed in place at rollout 6 (the rows it logged before are superseded). */
function twoRounds(values: number[]): AlignedRuns {
  const aligned = buildAligned([
    { round: "R0", batches: values.slice(0, 4).map(batch) },
    { round: "R1", batches: values.slice(4).map(batch) },
  ]);
  aligned.superseded.push({
    runId: "syn-r1",
    round: "R1",
    byRunId: "syn-r1",
    byRound: "R1",
    rollouts: [6],
    updates: [],
    trainSteps: [],
    evals: 0,
    evalRollouts: [],
    rows: 3,
    message: "hand-made",
  });
  return aligned;
}

test("restarts: each round after the first, and a resume in place from the superseded records", () => {
  const r = resumePoints(twoRounds([1, 1, 1, 1, 1, 1, 1]));
  assert.deepEqual(
    r.map((x) => [x.round, x.kind, x.from]),
    [
      ["R1", "new round", null],
      ["R1", "resumed in place", 6],
    ],
  );
  assert.equal(r[1].text, "run syn-r1 (round R1) was resumed in place: it re-logged from 6 on (superseded records)");
});

test("the jump is the first batch after a restart minus the mean of up to `window` batches before it", () => {
  // Batches 1-7: 0.010 0.012 0.014 0.010 | 0.030 0.016 0.040.
  // New round at 5: before = (0.012 + 0.014 + 0.010) / 3 = 0.012, after 0.030, jump 0.018, relative 1.5.
  // In place at 6: before = (0.014 + 0.010 + 0.030) / 3 = 0.018, after 0.016, jump -0.002.
  const aligned = twoRounds([0.01, 0.012, 0.014, 0.01, 0.03, 0.016, 0.04]);
  const s = mismatchSeries(aligned).series[0];
  const j = resumeJumps(s, resumePoints(aligned), 3);
  assert.ok(close(j[0].before, 0.012, 1e-15) && close(j[0].jump, 0.018, 1e-15) && close(j[0].relative, 1.5, 1e-12), JSON.stringify(j[0]));
  assert.equal(j[0].after?.x, 5);
  assert.ok(close(j[1].before, 0.018, 1e-15) && close(j[1].jump, -0.002, 1e-15), JSON.stringify(j[1]));
  assert.equal(j[1].beforePoints, 3);
  // A window of 1: the last batch only.
  assert.ok(close(resumeJumps(s, resumePoints(aligned), 1)[0].jump, 0.02, 1e-15));
});

test("no restart, no jump; a restart with no batch before it has no level to jump from; a bad window is refused", () => {
  const one = buildAligned([{ round: "R0", batches: [batch(0.01), batch(0.05)] }]);
  assert.deepEqual(resumePoints(one), []);
  const aligned = buildAligned([
    { round: "R0", batches: [{ updates: [{ "train/loss": 1 }] }] },
    { round: "R1", batches: [batch(0.05)] },
  ]);
  const j = resumeJumps(mismatchSeries(aligned).series[0], resumePoints(aligned), 3)[0];
  assert.deepEqual([j.before, j.jump, j.relative, j.beforePoints], [null, null, null, 0]);
  assert.throws(() => resumeJumps(mismatchSeries(aligned).series[0], [], 0), /invalid window: 0 \(an integer >= 1\)/);
});
