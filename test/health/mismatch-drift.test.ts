import assert from "node:assert/strict";
import { test } from "node:test";

import { mismatchDrift } from "../../lib/health/mismatch-drift";
import { runHealthChecks } from "../../lib/health/run-health-checks";
import { SLIME_PROFILE } from "../../lib/registry/profile-slime";
import { VERL_PROFILE } from "../../lib/registry/profile-verl";
import { buildAligned } from "../diagnostics/aligned-builder";

const ABS = "train/train_rollout_logprob_abs_diff";
const TIS = "train/tis";
const upd = (v: Record<string, number>) => ({ updates: [v, v] });
const flagsOf = (out: ReturnType<typeof mismatchDrift.run>) =>
  out.applicable ? out.flags.map((f) => [f.round, f.first, f.last, f.count, f.key, Number((f.value as number).toPrecision(6))]) : out.reason;

/** Four rounds of two batches each, every update of a round at `levels[i]`. */
function rounds(levels: number[], key = ABS, extra: Record<string, number>[] = []) {
  return buildAligned(levels.map((v, i) => ({ round: `R${i}`, batches: [upd({ [key]: v, ...extra[i] }), upd({ [key]: v, ...extra[i] })] })));
}

test("mismatch_drift fires when the slope of the round means passes the quantity's threshold (0.005 nats/token per round for the abs diff)", () => {
  // Round means 0.01, 0.016, 0.022, 0.028: slope 0.006 per round (exact line), above 0.005.
  const out = mismatchDrift.run(rounds([0.01, 0.016, 0.022, 0.028]), { scale: 1 }, SLIME_PROFILE);
  assert.deepEqual(flagsOf(out), [["R3", 1, 8, 4, ABS, 0.006]]);
  assert.equal(out.applicable && out.evidence, `${ABS} +0.006 per round over 4 rounds (threshold +0.005)`);
});

test("mismatch_drift does NOT fire on a flat gap, a slope below the threshold, or a falling gap; scale moves the threshold", () => {
  assert.deepEqual(flagsOf(mismatchDrift.run(rounds([0.02, 0.02, 0.02, 0.02]), { scale: 1 }, SLIME_PROFILE)), []);
  // Slope 0.004 by hand (means 0.01, 0.014, 0.018, 0.022).
  const slow = rounds([0.01, 0.014, 0.018, 0.022]);
  assert.deepEqual(flagsOf(mismatchDrift.run(slow, { scale: 1 }, SLIME_PROFILE)), []);
  assert.deepEqual(flagsOf(mismatchDrift.run(slow, { scale: 0.5 }, SLIME_PROFILE)), [["R3", 1, 8, 4, ABS, 0.004]]);
  // A gap that shrinks is not worse.
  assert.deepEqual(flagsOf(mismatchDrift.run(rounds([0.04, 0.03, 0.02, 0.01]), { scale: 1 }, SLIME_PROFILE)), []);
});

test("mismatch_drift reads each quantity's direction: a ratio mean drifting away from 1 either way fires past 0.01 per round", () => {
  // train/tis means 1.0, 0.98, 0.96, 0.94: slope -0.02.
  const aligned = rounds([0.01, 0.01, 0.01, 0.01], ABS, [{ [TIS]: 1 }, { [TIS]: 0.98 }, { [TIS]: 0.96 }, { [TIS]: 0.94 }]);
  assert.deepEqual(flagsOf(mismatchDrift.run(aligned, { scale: 1 }, SLIME_PROFILE)), [["R3", 1, 8, 4, TIS, -0.02]]);
});

test("mismatch_drift is not applicable (never a pass) without a mismatch key, or with one round", () => {
  const none = buildAligned([
    { round: "R0", batches: [upd({ "train/loss": 1 })] },
    { round: "R1", batches: [upd({ "train/loss": 1 })] },
  ]);
  const out = mismatchDrift.run(none, { scale: 1 }, SLIME_PROFILE);
  assert.equal(out.applicable, false);
  assert.match(
    flagsOf(out) as string,
    /^these runs log none of slime's mismatch keys \(train\/train_rollout_logprob_abs_diff: whenever the engine returns log-probs; /,
  );
  const one = buildAligned([{ round: "R0", batches: [upd({ [ABS]: 0.01 }), upd({ [ABS]: 0.05 })] }]);
  assert.equal(
    flagsOf(mismatchDrift.run(one, { scale: 1 }, SLIME_PROFILE)),
    `a slope over rounds needs 2 rounds with a mean: ${ABS}: no slope over rounds (1 round with a mean; a slope needs 2)`,
  );
});

test("mismatch_drift reads a step framework's keys from its profile (verl's k3 KL on its steps)", () => {
  // verl records: one per step (the builder's rollout records). k3 means 1e-4, 2e-3: slope 1.9e-3 > 5e-4.
  const aligned = buildAligned([
    { round: "R0", batches: [{ rollout: { "rollout_corr/k3_kl": 1e-4 } }] },
    { round: "R1", batches: [{ rollout: { "rollout_corr/k3_kl": 2e-3 } }] },
  ]);
  assert.deepEqual(flagsOf(mismatchDrift.run(aligned, { scale: 1 }, VERL_PROFILE)), [["R1", 1, 2, 2, "rollout_corr/k3_kl", 0.0019]]);
});

test("with --use-rollout-logprobs both mismatch checks are not applicable (slime: the gap carries the updating policy; miles: 0 by construction), naming the run", () => {
  const aligned = rounds([0.01, 0.016, 0.022, 0.028]);
  aligned.runs[2].flags = { use_rollout_logprobs: { value: true, source: "stated" } };
  const status = (name: string) => {
    const r = runHealthChecks(aligned).results.filter((x) => x.check.startsWith("mismatch_"));
    return r
      .map((x) => [x.check, x.status, x.reason?.replace(/^(with --use-rollout-logprobs \S+ \S+).*(\(use_rollout_logprobs.*)$/, "$1 ... $2")])
      .concat([[name]]);
  };
  assert.deepEqual(status("slime"), [
    [
      "mismatch_drift",
      "not applicable",
      "with --use-rollout-logprobs train/train_rollout_logprob_abs_diff compares ... (use_rollout_logprobs = true in run syn-r2 (round R2))",
    ],
    [
      "mismatch_resume_spike",
      "not applicable",
      "with --use-rollout-logprobs train/train_rollout_logprob_abs_diff compares ... (use_rollout_logprobs = true in run syn-r2 (round R2))",
    ],
    [
      "mismatch_growth",
      "not applicable",
      "with --use-rollout-logprobs train/train_rollout_logprob_abs_diff compares ... (use_rollout_logprobs = true in run syn-r2 (round R2))",
    ],
    ["slime"],
  ]);
  aligned.profile = { name: "miles", how: "given", evidence: [] };
  assert.match(
    runHealthChecks(aligned).results.find((x) => x.check === "mismatch_drift")!.reason!,
    /^with --use-rollout-logprobs miles compares the engine's log-probs with themselves/,
  );
  // Without the flag the same history is read and flagged (see the first test).
  aligned.runs[2].flags = { use_rollout_logprobs: { value: false, source: "stated" } };
  assert.equal(runHealthChecks(aligned).results.find((x) => x.check === "mismatch_drift")!.status, "flagged");
});
