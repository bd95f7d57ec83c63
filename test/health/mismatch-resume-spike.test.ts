import assert from "node:assert/strict";
import { test } from "node:test";

import { alignRuns } from "../../lib/align/align-runs";
import { resumePoints } from "../../lib/diagnostics/mismatch-resumes";
import { CheckInputs } from "../../lib/health/check-inputs";
import { defaultHealthParams } from "../../lib/health/health-params";
import { mismatchDrift } from "../../lib/health/mismatch-drift";
import { mismatchResumeSpike } from "../../lib/health/mismatch-resume-spike";
import { runHealthChecks } from "../../lib/health/run-health-checks";
import { SLIME_PROFILE } from "../../lib/registry/profile-slime";
import { scenarioRunHistories, simulateScenario } from "../../tools/simulate-slime/scenario";
import { buildAligned } from "../diagnostics/aligned-builder";
import { EVERYTHING_ONE_N } from "../fixtures/slime-scenarios";

const ABS = "train/train_rollout_logprob_abs_diff";
const b = (v: number) => ({ updates: [{ [ABS]: v }, { [ABS]: v }] });
const P = { scale: 1, window: 3 };
const flagsOf = (out: ReturnType<typeof mismatchResumeSpike.run>) =>
  out.applicable ? out.flags.map((f) => [f.round, f.runId, f.first, f.last, f.key, Number((f.value as number).toPrecision(12))]) : out.reason;

test("mismatch_resume_spike fires when the first batch after a restart passes the level before by more than its share (1x) and floor (0.005)", () => {
  // Before R1: batches 2-4 at 0.010, 0.012, 0.011 -> level 0.011; R1's first batch 0.03: jump 0.019 > max(0.011, 0.005).
  const aligned = buildAligned([
    { round: "R0", batches: [b(0.02), b(0.01), b(0.012), b(0.011)] },
    { round: "R1", batches: [b(0.03), b(0.012)] },
  ]);
  const out = mismatchResumeSpike.run(aligned, P, SLIME_PROFILE);
  assert.deepEqual(flagsOf(out), [["R1", "syn-r1", 5, 5, ABS, 0.03]]);
  assert.equal(out.applicable && out.evidence, `${ABS} at new round R1 (batch 5): 0.03 after, 0.011 before (3 batches), threshold 0.011`);
});

test("mismatch_resume_spike does NOT fire on a flat gap across a restart, on a jump below the level, or on a drop", () => {
  const at = (after: number) =>
    flagsOf(
      mismatchResumeSpike.run(
        buildAligned([
          { round: "R0", batches: [b(0.01), b(0.01), b(0.01)] },
          { round: "R1", batches: [b(after)] },
        ]),
        P,
        SLIME_PROFILE,
      ),
    );
  assert.deepEqual(at(0.01), []);
  // Jump 0.009: below the floor 0.005? no, above it; but below 1 x the level 0.01.
  assert.deepEqual(at(0.019), []);
  assert.deepEqual(at(0.021), [["R1", "syn-r1", 4, 4, ABS, 0.021]]);
  assert.deepEqual(at(0.001), []);
});

test("the floor keeps a tiny level from firing: 1e-4 -> 3e-3 is 30x but under 0.005 nats/token", () => {
  const aligned = buildAligned([
    { round: "R0", batches: [b(1e-4)] },
    { round: "R1", batches: [b(3e-3)] },
  ]);
  assert.deepEqual(flagsOf(mismatchResumeSpike.run(aligned, P, SLIME_PROFILE)), []);
  assert.deepEqual(flagsOf(mismatchResumeSpike.run(aligned, { scale: 0.5, window: 3 }, SLIME_PROFILE)), [["R1", "syn-r1", 2, 2, ABS, 3e-3]]);
});

test("mismatch_resume_spike is not applicable (never a pass) without a restart or without a mismatch key", () => {
  const one = buildAligned([{ round: "R0", batches: [b(0.01), b(0.5)] }]);
  assert.equal(
    flagsOf(mismatchResumeSpike.run(one, P, SLIME_PROFILE)),
    "no restart in these runs (one round, and no run resumed in place): there is no jump at a resume to measure",
  );
  const none = buildAligned([
    { round: "R0", batches: [{ updates: [{ "train/loss": 1 }] }] },
    { round: "R1", batches: [{ updates: [{ "train/loss": 1 }] }] },
  ]);
  const out = mismatchResumeSpike.run(none, P, SLIME_PROFILE);
  assert.equal(out.applicable, false);
  assert.match(flagsOf(out) as string, /^these runs log none of slime's mismatch keys/);
});

test("on the scenario simulator's restarts (real aligner): the resume in place is found from the superseded records, and a spike planted there fires once; the same spike one batch later does not", () => {
  const spikeAt = (rollout: number) => {
    const aligned = alignRuns(scenarioRunHistories(simulateScenario(EVERYTHING_ONE_N)));
    for (const u of aligned.updates) if (u.rollout === rollout) u.values[ABS] = 0.05;
    return aligned;
  };
  const aligned = spikeAt(4);
  // Run scn-r1-qusi re-logged from rollout 4 on (its own rows superseded): a resume in place at 4.
  assert.deepEqual(
    resumePoints(aligned).map((r) => [r.round, r.kind, r.from]),
    [
      ["R1", "new round", null],
      ["R1", "resumed in place", 4],
      ["R2", "new round", null],
    ],
  );
  assert.deepEqual(flagsOf(mismatchResumeSpike.run(aligned, P, SLIME_PROFILE)), [["R1", "scn-r1-qusi", 4, 4, ABS, 0.05]]);
  assert.deepEqual(flagsOf(mismatchResumeSpike.run(spikeAt(5), P, SLIME_PROFILE)), []);
});

test("in a report the two mismatch checks share one series set (read once) and flag exactly what each check finds alone", () => {
  const aligned = alignRuns(scenarioRunHistories(simulateScenario(EVERYTHING_ONE_N)));
  for (const u of aligned.updates) if (u.rollout === 4) u.values[ABS] = 0.05;
  let reads = 0;
  const inputs = new CheckInputs(aligned, SLIME_PROFILE);
  const read = inputs.mismatchSeries.bind(inputs);
  inputs.mismatchSeries = () => {
    reads++;
    return read();
  };
  const shared = [mismatchResumeSpike, mismatchDrift].map((c) => c.run(aligned, P, SLIME_PROFILE, inputs));
  assert.equal(reads, 2);
  assert.equal(inputs.mismatchSeries(), inputs.mismatchSeries(), "the second read returns the first set, not a new one");
  assert.deepEqual(
    shared,
    [mismatchResumeSpike, mismatchDrift].map((c) => c.run(aligned, P, SLIME_PROFILE)),
  );
  assert.deepEqual(flagsOf(shared[0]), [["R1", "scn-r1-qusi", 4, 4, ABS, 0.05]]);
  const report = runHealthChecks(aligned, { ...defaultHealthParams(), mismatch_resume_spike: P });
  assert.deepEqual(
    report.flags
      .filter((f) => f.check === "mismatch_resume_spike")
      .map((f) => [f.round, f.runId, f.first, f.last, f.key, Number((f.value as number).toPrecision(12))]),
    [["R1", "scn-r1-qusi", 4, 4, ABS, 0.05]],
  );
});
