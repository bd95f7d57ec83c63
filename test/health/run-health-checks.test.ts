import { absentReason } from "../../lib/registry/framework-profile";
import { VERL_PROFILE } from "../../lib/registry/profile-verl";
import { test } from "node:test";
import assert from "node:assert/strict";
import * as path from "node:path";

import { loadArchive } from "../../lib/archive/load-archive";
import { alignRuns } from "../../lib/align/align-runs";
import { defaultHealthParams } from "../../lib/health/health-params";
import { healthSummaryLine, runHealthChecks } from "../../lib/health/run-health-checks";
import { buildAligned } from "../diagnostics/aligned-builder";

const ROOT = path.resolve(__dirname, "../..");

test("the bundled sample: one flag (the NaN rollout/kl of rollout 47, R2); every other check applicable and silent", async () => {
  const archive = await loadArchive(path.join(ROOT, "data", "wandb"));
  const report = runHealthChecks(alignRuns(archive.runs));
  assert.deepEqual(
    report.results.map((r) => [r.check, r.status, r.flags.length]),
    [
      ["ppo_kl_first_update", "no flags", 0],
      ["zero_grad_norm_streak", "no flags", 0],
      ["non_finite", "flagged", 1],
      ["truncation_surge", "no flags", 0],
      ["logprob_gap_jump", "no flags", 0],
      ["mismatch_drift", "no flags", 0],
      ["mismatch_resume_spike", "no flags", 0],
      ["ppo_kl_stuck_zero", "no flags", 0],
      ["missing_trainer_perf", "no flags", 0],
      ["step_time_mismatch", "no flags", 0],
      ["timer_parts_exceed_container", "no flags", 0],
      ["throughput_drop", "no flags", 0],
      ["entropy_collapse", "no flags", 0],
      // slime declares no group-spread or advantage statistic, and the sample runs without the KL loss.
      ["learning_stalled", "not applicable", 0],
      ["zero_advantages", "not applicable", 0],
      ["grad_norm_spike", "no flags", 0],
      ["truncation_saturation", "no flags", 0],
      ["length_collapse", "no flags", 0],
      ["kl_ref_drift", "not applicable", 0],
      ["mismatch_growth", "no flags", 0],
    ],
  );
  const f = report.flags[0];
  assert.deepEqual(
    [f.check, f.severity, f.round, f.runId, f.unit, f.first, f.last, f.count, f.key],
    ["non_finite", "warning", "R2", "sim-r2-85gs", "rollout", 47, 47, 1, "rollout/kl"],
  );
  assert.ok(Number.isNaN(f.value));
});

test("runHealthChecks fills check, severity, unit and rule into each flag; not-applicable checks say why", () => {
  const aligned = buildAligned([{ round: "R0", batches: [{ updates: [{ "train/ppo_kl": 0.5 }, { "train/ppo_kl": 0.1 }] }] }]);
  const report = runHealthChecks(aligned);
  const kl = report.results.find((r) => r.check === "ppo_kl_first_update")!;
  assert.equal(kl.status, "flagged");
  assert.deepEqual(report.flags, [
    {
      check: "ppo_kl_first_update",
      severity: "warning",
      round: "R0",
      runId: "syn-r0",
      unit: "update",
      first: 1,
      last: 1,
      count: 1,
      key: "train/ppo_kl",
      value: 0.5,
      rule: "|train/ppo_kl| > 1e-8 on an update at position 0 of its rollout batch (one flag per round)",
      at: [1],
    },
  ]);
  assert.equal(
    healthSummaryLine(kl),
    "ppo_kl_first_update: 1 flag [warning] (rule: |train/ppo_kl| > 1e-8 on an update at position 0 of its rollout batch (one flag per round))",
  );
  const trunc = report.results.find((r) => r.check === "truncation_surge")!;
  assert.equal(
    healthSummaryLine(trunc),
    "truncation_surge: not applicable (no rollout batch logs rollout/truncated_ratio (the framework or these runs do not log it))",
  );
  assert.equal(report.results.find((r) => r.check === "non_finite")!.status, "no flags");
});

test("runHealthChecks refuses parameters out of bounds or missing, naming check and parameter", () => {
  const aligned = buildAligned([{ round: "R0", batches: [] }]);
  const params = defaultHealthParams();
  params.zero_grad_norm_streak.min_length = 1;
  assert.throws(() => runHealthChecks(aligned, params), { message: "invalid zero_grad_norm_streak.min_length: 1 (an integer >= 2)" });
  const missing = defaultHealthParams();
  delete missing.truncation_surge.min_fraction;
  assert.throws(() => runHealthChecks(aligned, missing), { message: "invalid truncation_surge.min_fraction: undefined (a number from 0 to 1)" });
});

test("runs read with another framework's profile: a check that reads what the profile lacks is not applicable with the profile's reason; non_finite still reads every record", () => {
  const aligned = buildAligned([{ round: "R0", batches: [{ rollout: { "actor/ppo_kl": 0.3, "actor/grad_norm": NaN, "response_length/clip_ratio": 0.9 } }] }]);
  aligned.profile = { name: "verl", how: "detected", evidence: [] };
  const report = runHealthChecks(aligned);
  const kl = report.results.find((r) => r.check === "ppo_kl_first_update")!;
  assert.equal(kl.status, "not applicable");
  // verl logs actor/ppo_kl, but per training step: the positions the check reads are averaged away,
  // unless the run's settings prove one update per step, and these runs' settings are unknown.
  assert.equal(
    kl.reason,
    `verl: ${VERL_PROFILE.updates.note}; each training step is one update only when actor_rollout_ref.actor.ppo_epochs = 1 and actor_rollout_ref.actor.ppo_mini_batch_size = data.train_batch_size (run syn-r0 (round R0): flags unknown: no config was read)`,
  );
  // verl logs no actor training throughput: the concept's own reason.
  const drop = report.results.find((r) => r.check === "throughput_drop")!;
  assert.equal(drop.reason, absentReason(VERL_PROFILE, "actorTokPerS"));
  assert.match(drop.reason!, /^verl logs no actor tokens\/s: perf\/throughput is tokens per GPU-second/);
  // Nothing in verl's timers is nested besides the step timer, and no step timer is declared a sum.
  assert.equal(
    report.results.find((r) => r.check === "timer_parts_exceed_container")!.reason,
    "verl declares no timers nested inside another besides the step timer",
  );
  assert.equal(report.results.find((r) => r.check === "step_time_mismatch")!.reason, "verl declares no step timer that is exactly the sum of its parts");
  // truncation_surge reads the registry concept: verl's response_length/clip_ratio, per training step.
  const trunc = report.results.find((r) => r.check === "truncation_surge")!;
  assert.notEqual(trunc.status, "not applicable");
  assert.match(trunc.rule, /^response_length\/clip_ratio > 0\.5 and > 3 x the median of its round/);
  assert.deepEqual(
    report.flags.map((f) => [f.check, f.unit, f.key]),
    [["non_finite", "rollout", "actor/grad_norm"]],
  );
});

test("verl runs whose settings prove one update per step: each step is that update at position 0, and ppo_kl_first_update flags a moved ratio there (issue 39, case 6)", () => {
  const aligned = buildAligned([{ round: "R0", batches: [0, 0.02, 0, 0.03].map((kl) => ({ rollout: { "actor/ppo_kl": kl } })) }], { n: 0 });
  aligned.profile = { name: "verl", how: "detected", evidence: [] };
  const flag = (value: number) => ({ value, source: "config" as const });
  const settings = { "actor_rollout_ref.actor.ppo_epochs": flag(1), "actor_rollout_ref.actor.ppo_mini_batch_size": flag(8), "data.train_batch_size": flag(8) };
  aligned.runs[0].flags = settings;
  const kl = runHealthChecks(aligned).results.find((r) => r.check === "ppo_kl_first_update")!;
  assert.equal(kl.status, "flagged");
  assert.deepEqual(
    kl.flags.map((f) => [f.unit, f.first, f.last, f.count, f.value]),
    [["update", 2, 4, 2, 0.03]],
  );
  // Two epochs over the batch: two updates per step, averaged again.
  aligned.runs[0].flags = { ...settings, "actor_rollout_ref.actor.ppo_epochs": flag(2) };
  assert.equal(runHealthChecks(aligned).results.find((r) => r.check === "ppo_kl_first_update")!.status, "not applicable");
});

test("truncation_surge under verl: a training step whose response_length/clip_ratio surges is flagged with verl's key", () => {
  // The default judges a batch after the run's first 4 values: step 6 surges, step 2's 0.9 is the start.
  const aligned = buildAligned([{ round: "R0", batches: [0.1, 0.9, 0.1, 0.1, 0.1, 0.9, 0.1].map((c) => ({ rollout: { "response_length/clip_ratio": c } })) }]);
  aligned.profile = { name: "verl", how: "detected", evidence: [] };
  const report = runHealthChecks(aligned);
  assert.deepEqual(
    report.flags.filter((f) => f.check === "truncation_surge").map((f) => [f.key, f.first, f.last, f.value]),
    [["response_length/clip_ratio", 6, 6, 0.9]],
  );
});
