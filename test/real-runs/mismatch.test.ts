/**
 * The mismatch panel on REAL runs (test/fixtures/real-runs/): which declared mismatch keys verl 0.9.1,
 * OpenRLHF 0.11.2 and TRL 1.16 actually log, and the panel's numbers against means and jumps computed
 * from the frameworks' own records alone (own-record.jsonl).
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";

import { alignRuns } from "../../lib/align/align-runs";
import { mismatchPanel } from "../../lib/diagnostics/mismatch-panel";
import { runHealthChecks } from "../../lib/health/run-health-checks";
import type { RunHistory } from "../../lib/types";
import { readWandbFile } from "../../lib/wandb-file/read-wandb-file";
import { fixtureCases, ownMean, survivingEntries, upTo, type FixtureCase } from "./own-record";

const ROOT = path.resolve(__dirname, "../fixtures/real-runs");
const SKIP = fs.existsSync(ROOT) ? false : `real-run fixtures absent (${ROOT})`;
const CASES = fixtureCases(ROOT);
const byName = (fw: string, name: string) => CASES.find((c) => c.framework === fw && c.case === name)!;

async function runsOf(c: FixtureCase): Promise<RunHistory[]> {
  const out: RunHistory[] = [];
  for (const r of c.rounds) {
    const read = await readWandbFile(path.join(c.dir, r.wandbFile));
    out.push({ runId: read.runId, round: r.round, entity: "", project: read.project, state: read.state, rows: read.rows });
  }
  return out;
}

const VERL_OFF_POLICY = ["rollout_corr/log_ppl_abs_diff", "rollout_corr/kl", "rollout_corr/log_ppl_diff", "rollout_corr/k3_kl"];
const VERL_CORRECTION = [
  "rollout_corr/rollout_is_mean",
  "rollout_corr/rollout_is_max",
  "rollout_corr/rollout_is_min",
  "rollout_corr/rollout_is_eff_sample_size",
  "rollout_corr/rollout_is_ratio_fraction_high",
  "rollout_corr/rollout_rs_masked_fraction",
];

test("verl 0.9.1 logs the off-policy keys even without a correction, and with one its IS and RS statistics under the declared names: round means equal its own records' means", {
  skip: SKIP,
}, async () => {
  for (const name of ["plain", "val", "ckpt", "failed", "killed", "resume", "rollout-corr"]) {
    const c = byName("verl", name);
    const panel = mismatchPanel(alignRuns(await runsOf(c)));
    const corrected = name === "rollout-corr";
    // Panel order is the registry's quantity order: abs diff, signed gap (2), k3, ratio mean, max, min, ESS, fractions (2).
    const expected = corrected ? [...VERL_OFF_POLICY, ...VERL_CORRECTION] : VERL_OFF_POLICY;
    assert.deepEqual(panel.entries.map((e) => e.series.name).sort(), [...expected].sort(), name);
    assert.deepEqual(
      panel.notLogged.map((n) => n.name),
      corrected ? [] : VERL_CORRECTION,
      `${name}: IS and RS statistics only with a rollout correction configured`,
    );
    const own = survivingEntries(c);
    // A killed run's own record can outlast its log: compare up to the last step the log kept.
    for (const r of c.rounds) if (r.lastStep !== null) upTo(own, r.round, r.lastStep);
    for (const e of panel.entries) {
      for (const r of e.series.rounds) {
        const expectedMean = ownMean(own.get(r.round)!, e.series.name);
        assert.ok(
          expectedMean !== null && Math.abs((r.mean.mean as number) - expectedMean) <= 1e-12 * Math.max(1, Math.abs(expectedMean)),
          `${name} ${r.round} ${e.series.name}`,
        );
      }
    }
  }
});

test("verl with a rollout correction: the correction's statistics are read as logged (the applied weights capped at the 1.001 threshold, not the raw ratio)", {
  skip: SKIP,
}, async () => {
  const panel = mismatchPanel(alignRuns(await runsOf(byName("verl", "rollout-corr"))));
  const max = panel.entries.find((e) => e.series.name === "rollout_corr/rollout_is_max")!;
  // Truncated IS clamps at the threshold: every step's largest applied weight is 1.001 (float32), which is why it is not comparable.
  for (const p of max.series.points) assert.ok(Math.abs(p.value - 1.001) < 1e-6, String(p.value));
  assert.equal(max.series.metric.comparable, false);
  assert.deepEqual(
    panel.correction.rows.map((r) => [r.name, r.what]),
    [
      ["rollout_corr/rollout_is_mean", "mean importance ratio (applied)"],
      ["rollout_corr/rollout_is_ratio_fraction_high", "fraction clipped or masked by the correction"],
      ["rollout_corr/rollout_rs_masked_fraction", "fraction clipped or masked by the correction"],
    ],
  );
});

test("verl resume (a new run from global_step_2): the jump of k3 KL at round R1 and the slope over the two round means, from the own records", {
  skip: SKIP,
}, async () => {
  const c = byName("verl", "resume");
  const panel = mismatchPanel(alignRuns(await runsOf(c)));
  assert.deepEqual(
    panel.resumes.map((r) => [r.round, r.kind]),
    [["R1", "new round"]],
  );
  const own = survivingEntries(c);
  const k3 = (round: string) =>
    own
      .get(round)!
      .map((e) => e.values["rollout_corr/k3_kl"])
      .filter((v) => v !== undefined);
  const r0 = k3("R0"); // steps 1, 2 (R1 re-logged 3)
  const r1 = k3("R1"); // steps 3, 4, 5
  assert.equal(r0.length, 2);
  const e = panel.entries.find((x) => x.series.name === "rollout_corr/k3_kl")!;
  const before = (r0[0] + r0[1]) / 2;
  const jump = e.jumps[0];
  assert.ok(Math.abs((jump.jump as number) - (r1[0] - before)) <= 1e-18, `${jump.jump} vs ${r1[0] - before}`);
  assert.equal(jump.beforePoints, 2);
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  // Two points at positions 0 and 1: the slope is the difference of the means.
  assert.ok(Math.abs((e.drift.slope as number) - (mean(r1) - mean(r0))) <= 1e-18);
});

test("OpenRLHF 0.11.2 without IS correction logs no mismatch key: its train/logprobs_diff is named as the reference-model log-ratio it is", {
  skip: SKIP,
}, async () => {
  for (const name of ["plain", "resumed", "killed"]) {
    const panel = mismatchPanel(alignRuns(await runsOf(byName("openrlhf", name))));
    assert.equal(panel.entries.length, 0, name);
    assert.deepEqual(
      panel.lookAlikes.map((l) => l.key),
      ["train/logprobs_diff"],
      name,
    );
    assert.match(
      panel.empty ?? "",
      /^these OpenRLHF runs log none of its declared mismatch keys \(train\/vllm_kl: with --algo\.advantage\.is_correction_level/,
    );
  }
});

test("OpenRLHF 0.11.2 with its IS correction (token level, thresholds 0.99 and 1.01): train/vllm_kl and train/is_filter_ratio read as logged, round means equal its own record's", {
  skip: SKIP,
}, async () => {
  const c = byName("openrlhf", "is-correction");
  const panel = mismatchPanel(alignRuns(await runsOf(c)));
  assert.deepEqual(
    panel.entries.map((e) => e.series.name),
    ["train/vllm_kl", "train/is_filter_ratio"],
  );
  const own = survivingEntries(c).get("R0")!;
  for (const e of panel.entries) {
    const expected = ownMean(own, e.series.name);
    assert.ok(
      expected !== null && Math.abs((e.series.rounds[0].mean.mean as number) - expected) <= 1e-12,
      `${e.series.name}: ${e.series.rounds[0].mean.mean} vs ${expected}`,
    );
  }
  // The sampler's bfloat16 log-probs sit above the trainer's float32 ones on the sampled tokens: a positive signed gap.
  assert.ok(panel.entries[0].series.points.every((p) => p.value > 0));
  assert.equal(panel.entries[1].series.metric.comparable, false);
  assert.deepEqual(
    panel.lookAlikes.map((l) => l.key),
    ["train/logprobs_diff"],
  );
});

test("TRL 1.16 without vLLM logs no train/sampling/* key: the panel is empty and says when TRL logs them", { skip: SKIP }, async () => {
  // A run resumed into its own id (grpo-resume-same-id) is one archive run, frozen elsewhere: left out here.
  const distinct = (c: FixtureCase) => new Set(c.rounds.map((r) => r.wandbRunId)).size === c.rounds.length;
  const trl = CASES.filter((x) => x.framework === "trl" && distinct(x));
  assert.ok(trl.length >= 9, `TRL cases: ${trl.length}`);
  for (const c of trl) {
    const panel = mismatchPanel(alignRuns(await runsOf(c)));
    assert.equal(panel.entries.length, 0, c.case);
    assert.match(panel.empty ?? "", /train\/sampling\/sampling_logp_difference\/mean: with use_vllm and vllm_importance_sampling_correction/, c.case);
  }
});

test("the mismatch checks on real runs: verl's resume is read and does not fire; OpenRLHF and TRL without a mismatch key are not applicable", {
  skip: SKIP,
}, async () => {
  const status = async (fw: string, name: string) => {
    const report = runHealthChecks(alignRuns(await runsOf(byName(fw, name))));
    return ["mismatch_drift", "mismatch_resume_spike"].map((check) => report.results.find((r) => r.check === check)!.status);
  };
  // k3 KL: R0 (steps 1, 2) ~2.4e-5, R1's step 3 1.7e-5: a drop; slopes far under the thresholds (checked above).
  assert.deepEqual(await status("verl", "resume"), ["no flags", "no flags"]);
  assert.deepEqual(await status("verl", "plain"), ["not applicable", "not applicable"], "one round: no slope over rounds, no restart");
  assert.deepEqual(await status("openrlhf", "resumed"), ["not applicable", "not applicable"]);
  assert.deepEqual(await status("trl", "grpo-resume-new-run"), ["not applicable", "not applicable"]);
});
