/**
 * The concept rules on hand-computed series, at the grain each framework logs: TRL-shaped records
 * (one per logged step, no single updates), verl-shaped (advantage extremes) and slime-shaped (per
 * update). Each rule: where it fires, where it is raised, the window it reports, and what must not fire.
 */
import assert from "node:assert/strict";
import { test } from "node:test";

import { defaultHealthParams } from "../../lib/health/health-params";
import { HEALTH_CHECKS } from "../../lib/health/health-checks";
import { runHealthChecks } from "../../lib/health/run-health-checks";
import type { AlignedRuns } from "../../lib/types";
import { buildAligned } from "../diagnostics/aligned-builder";

/** One run of logged steps at `xs` (default 1, 2, ...) with the given values per key, read as `profile`. */
function stepRun(profile: string, series: Record<string, number[]>, xs?: number[]): AlignedRuns {
  const n = Object.values(series)[0].length;
  const at = xs ?? Array.from({ length: n }, (_, i) => i + 1);
  const aligned = buildAligned([{ round: "R0", batches: [] }]);
  aligned.rollouts = at.map((x, i) => ({
    runId: "run-a",
    round: "R0",
    rollout: x,
    historySteps: [i],
    values: Object.fromEntries(Object.entries(series).map(([k, v]) => [k, v[i]])),
  }));
  aligned.profile = { name: profile, how: "given", evidence: [] };
  return aligned;
}

function flagsOf(aligned: AlignedRuns, check: string) {
  const r = runHealthChecks(aligned).results.find((x) => x.check === check)!;
  return { result: r, flags: r.flags.map((f) => ({ first: f.first, last: f.last, count: f.count, raisedAt: f.raisedAt, value: f.value })) };
}

test("entropy_collapse (TRL, per logged step): a sudden fall below 0.4 x the median of the 5 values before it fires at once; a recovery ends it", () => {
  // Early median of 3, 3.1, 2.9, 3.0 = 3.0. At x = 6 the 5 values before have median 3.0: threshold max(0.1 x 3, 0.4 x 3) = 1.2.
  const aligned = stepRun("trl", { "train/entropy": [3, 3.1, 2.9, 3.0, 2.9, 1.0, 2.8, 2.7] });
  const { result, flags } = flagsOf(aligned, "entropy_collapse");
  assert.deepEqual(flags, [{ first: 6, last: 6, count: 1, raisedAt: 6, value: 1 }]);
  assert.deepEqual(result.flags[0].window, { threshold: 0.4 * 3.0, side: "below", baseline: { value: 3.0, first: 1, last: 4 } });
  assert.equal(
    result.rule,
    "train/entropy (per logged step, as logged) below 0.4 x the median of the 5 values logged before it, or below 0.1 x the median of the run's first 4 logged values; 1 or more values in a row",
  );
  assert.match(result.evidence!, /^R0 run-a: early median 3 \(values at 1-4\), threshold 1\.16 to 1\.2$/);
});

test("entropy_collapse: a gradual fall (x0.8 per step) never looks sudden; it fires once below 0.1 x the early level, not before", () => {
  const values = [3, 3, 3, 3];
  while (values[values.length - 1] > 0.27) values.push(values[values.length - 1] * 0.8);
  const aligned = stepRun("trl", { "train/entropy": values });
  const deep = values.findIndex((v) => v < 0.3) + 1;
  assert.deepEqual(
    flagsOf(aligned, "entropy_collapse").flags.map((f) => f.first),
    [deep],
  );
  const healthy = stepRun("trl", { "train/entropy": [3, 3, 3, 3, 2.8, 2.5, 2.2, 2.0, 1.9, 1.7, 1.5, 1.4] });
  assert.deepEqual(flagsOf(healthy, "entropy_collapse").flags, []);
});

test("entropy_collapse (slime, per optimizer update): the same rule over single updates", () => {
  const aligned = buildAligned([{ round: "R0", batches: [3, 3, 3, 3, 1, 1].map((e) => ({ rollout: {}, updates: [{ "train/entropy_loss": e }] })) }], { n: 1 });
  const { result, flags } = flagsOf(aligned, "entropy_collapse");
  assert.equal(result.flags[0].unit, "update");
  assert.deepEqual(flags, [{ first: 5, last: 6, count: 2, raisedAt: 5, value: 1 }]);
});

test("truncation_saturation: >= 0.8 for 2 values in a row, as an absolute level (a whole run truncated fires; truncation_surge does not)", () => {
  const aligned = stepRun("trl", { "train/completions/clipped_ratio": [0.1, 0.9, 0.2, 0.85, 0.9, 1.0] });
  assert.deepEqual(flagsOf(aligned, "truncation_saturation").flags, [{ first: 4, last: 6, count: 3, raisedAt: 5, value: 1 }]);
  const always = stepRun("verl", { "response_length/clip_ratio": [1, 0.875, 1, 1] });
  assert.deepEqual(flagsOf(always, "truncation_saturation").flags, [{ first: 1, last: 4, count: 4, raisedAt: 2, value: 1 }]);
  assert.deepEqual(flagsOf(always, "truncation_surge").flags, [], "every batch at its round's median: no surge");
});

test("learning_stalled (TRL): every group without reward spread for 2 logged values in a row", () => {
  const aligned = stepRun("trl", { "train/frac_reward_zero_std": [0, 0.5, 1, 1, 1, 0.5, 1] });
  assert.deepEqual(flagsOf(aligned, "learning_stalled").flags, [{ first: 3, last: 5, count: 3, raisedAt: 4, value: 1 }]);
  const verl = runHealthChecks(stepRun("verl", { "actor/entropy": [1, 1] })).results.find((r) => r.check === "learning_stalled")!;
  assert.equal(verl.status, "not applicable");
  assert.match(verl.reason!, /^verl logs no groups with zero reward spread: verl logs no per-group reward spread; critic\/advantages\/max and \/min/);
});

test("zero_advantages (verl): largest and smallest advantage both exactly 0 for 2 values in a row; a zero maximum alone does not fire", () => {
  const aligned = stepRun("verl", { "critic/advantages/max": [1, 0, 0, 0, 0.5], "critic/advantages/min": [-1, 0, 0, -1, -0.5] });
  assert.deepEqual(flagsOf(aligned, "zero_advantages").flags, [{ first: 2, last: 3, count: 2, raisedAt: 3, value: 0 }]);
});

test("grad_norm_spike: over 50 x the median of the values before it (at least 4); 45 x does not fire; the first values are never judged", () => {
  const aligned = stepRun("verl", { "actor/grad_norm": [500, 1, 1.2, 0.9, 1.1, 1.0, 60, 1.0, 47] });
  // x = 7: trailing median of [500, 1, 1.2, 0.9, 1.1, 1.0] = 1.05 -> 60 > 52.5 fires; x = 9: median 1.05 -> 47 does not.
  const { result, flags } = flagsOf(aligned, "grad_norm_spike");
  assert.deepEqual(flags, [{ first: 7, last: 7, count: 1, raisedAt: 7, value: 60 }]);
  assert.equal(result.flags[0].window!.threshold, 52.5);
  // A real healthy verl twin's 19x spike (25.1 against a trailing median of 1.3) is under the threshold.
  const healthy = stepRun("verl", { "actor/grad_norm": [1.2, 1.4, 1.3, 1.3, 1.25, 1.35, 25.1, 1.3] });
  assert.deepEqual(flagsOf(healthy, "grad_norm_spike").flags, []);
});

test("zero_grad_norm_streak at the logged grain (TRL logging_steps 2): 3 logged zeros in a row fire whatever the step spacing", () => {
  const aligned = stepRun("trl", { "train/grad_norm": [1, 0, 0, 0, 1, 0, 0] }, [2, 4, 6, 8, 10, 12, 14]);
  const { result, flags } = flagsOf(aligned, "zero_grad_norm_streak");
  assert.equal(result.status, "flagged");
  assert.deepEqual(flags, [{ first: 4, last: 8, count: 3, raisedAt: 8, value: 0 }]);
  assert.match(result.rule, /^3 or more consecutive logged values of train\/grad_norm \(per logged step, as logged\) exactly 0$/);
});

test("kl_ref_drift: above the early median + 0.5 for 2 values in a row; a single high value and KL growing from 0 to 0.4 do not fire", () => {
  const aligned = stepRun("trl", { "train/kl": [0, 0.001, 0.002, 0.002, 0.01, 0.8, 0.1, 0.6, 0.9, 0.4] });
  const { result, flags } = flagsOf(aligned, "kl_ref_drift");
  assert.deepEqual(flags, [{ first: 8, last: 9, count: 2, raisedAt: 9, value: 0.9 }]);
  assert.ok(Math.abs(result.flags[0].window!.threshold - 0.5015) < 1e-12);
  const slow = stepRun("trl", { "train/kl": [0, 0.001, 0.002, 0.003, 0.01, 0.1, 0.2, 0.3, 0.4] });
  assert.deepEqual(flagsOf(slow, "kl_ref_drift").flags, []);
});

test("kl_ref_drift: a creep past early + 0.5 is not a jump (a real healthy TRL twin, 1.6 x the five values before), a jump is, its threshold held for the streak", () => {
  // trl-healthy-beta-s11's last 11 values: 0.54 and 0.56 pass 0.5 but not 2 x the median 0.34 of the five before.
  const creep = stepRun("trl", { "train/kl": [0, 0.004, 0.01, 0.1, 0.26, 0.33, 0.3, 0.2, 0.34, 0.37, 0.35, 0.54, 0.56, 0.48, 0.43] });
  assert.deepEqual(flagsOf(creep, "kl_ref_drift").flags, []);
  // A jump to 0.78 (3.1 x the median 0.25 before it), then 0.63: the second value is judged against the
  // streak's first threshold (0.5015), not against a window that now holds the jump (2 x 0.33 = 0.66).
  const jump = stepRun("trl", { "train/kl": [0, 0.001, 0.002, 0.002, 0.2, 0.25, 0.25, 0.33, 0.43, 0.78, 0.63] });
  const { result, flags } = flagsOf(jump, "kl_ref_drift");
  assert.deepEqual(flags, [{ first: 10, last: 11, count: 2, raisedAt: 11, value: 0.78 }]);
  assert.ok(Math.abs(result.flags[0].window!.threshold - 0.5015) < 1e-12);
  assert.match(result.rule, /and above 2 x the median of the 5 values logged before the streak, 2 or more values in a row$/);
});

test("length_collapse: below 0.4 x the early median for 2 values in a row; 0.41 x (a real healthy twin's dip) does not fire", () => {
  // Early median 6: threshold 2.4. 2.3 and 2 fire; 2.46 (0.41 x) twice does not; a lone 2.3 does not.
  const aligned = stepRun("trl", { "train/completions/mean_length": [6, 6, 5, 6, 2.46, 2.46, 4, 2.3, 5, 2.3, 2, 3.2] });
  assert.deepEqual(flagsOf(aligned, "length_collapse").flags, [{ first: 10, last: 11, count: 2, raisedAt: 11, value: 2 }]);
});

test("mismatch_growth (verl): the mean |log-prob difference| above 4 x its early median for 2 values in a row; the k3 KL growing 30x is not read", () => {
  const aligned = stepRun("verl", {
    "rollout_corr/log_ppl_abs_diff": [0.002, 0.0025, 0.0025, 0.003, 0.009, 0.012, 0.011, 0.003, 0.011],
    "rollout_corr/k3_kl": [2e-5, 2e-5, 2e-5, 2e-5, 1e-4, 3e-4, 6e-4, 6e-4, 6e-4],
  });
  // Early median 0.0025: threshold 0.01. 0.012, 0.011 fire; 0.009 does not; a lone 0.011 does not.
  const { result, flags } = flagsOf(aligned, "mismatch_growth");
  assert.deepEqual(flags, [{ first: 6, last: 7, count: 2, raisedAt: 7, value: 0.012 }]);
  assert.equal(result.flags[0].key, "rollout_corr/log_ppl_abs_diff");
  const trl = runHealthChecks(stepRun("trl", { "train/entropy": [1, 1] })).results.find((r) => r.check === "mismatch_growth")!;
  assert.equal(trl.status, "not applicable");
  assert.match(trl.reason!, /^these runs log none of TRL GRPOTrainer's mismatch keys/);
});

test("a run shorter than the early window is not judged, and the evidence says so", () => {
  const aligned = stepRun("trl", { "train/entropy": [3, 0.1, 0.1] });
  const { result, flags } = flagsOf(aligned, "entropy_collapse");
  assert.deepEqual(flags, []);
  assert.match(result.evidence!, /not judged \(fewer than 5 logged values, or no finite early value\): R0 run-a/);
});

test("every concept rule declares the failure classes it is measured on", () => {
  const concept = ["entropy_collapse", "learning_stalled", "zero_advantages", "grad_norm_spike", "truncation_saturation", "length_collapse", "kl_ref_drift"];
  for (const name of concept) assert.ok((HEALTH_CHECKS.find((c) => c.name === name)?.detects ?? []).length > 0, name);
  assert.ok(Object.keys(defaultHealthParams()).length === HEALTH_CHECKS.length);
});
