import { test } from "node:test";
import assert from "node:assert/strict";

import { alignRuns } from "../../lib/align/align-runs";
import { policyRoundTable } from "../../lib/diagnostics/policy-round-table";
import { rolloutRoundTable } from "../../lib/diagnostics/rollout-round-table";
import { summaryTable } from "../../lib/export/summary-table";
import { CONCEPT_IDS } from "../../lib/registry/concepts";
import { detectProfile } from "../../lib/registry/detect-profile";
import { metricOf } from "../../lib/registry/framework-profile";
import { PROFILE_NAMES, PROFILES } from "../../lib/registry/profiles";
import type { AlignedRuns, HistoryRow, RunHistory } from "../../lib/types";
import { updateSeriesFigure } from "../../lib/figures/update-series";
import { updatesByPositionFigure } from "../../lib/figures/updates-by-position";
import { runHealthChecks } from "../../lib/health/run-health-checks";
import { VERL_PROFILE } from "../../lib/registry/profile-verl";
import { ids, slimeRun } from "../align/slime-history";

function run(runId: string, round: string, rows: HistoryRow[]): RunHistory {
  return { runId, round, entity: "e", project: "p", state: "finished", rows: rows.map((r, i) => ({ _step: i, _runtime: i, _timestamp: 1e9 + i, ...r })) };
}

/** A verl training row of global step s (verl logs with step=global_steps). */
function verlRow(s: number, base: number): HistoryRow {
  return {
    "training/global_step": s,
    "training/epoch": 0,
    "actor/entropy": base + s / 10,
    "actor/pg_clipfrac": s / 100,
    "actor/grad_norm": s,
    "actor/ppo_kl": 0.001 * s,
    "response_length/mean": 100 * s,
    "response_length/clip_ratio": 0.1,
    "timing_s/gen": 10,
    "timing_s/update_actor": 5,
    "timing_s/step": 20,
    "perf/throughput": 1234,
  };
}

/** Two verl runs: R0 steps 1..4 after a val-before-train row; R1 resumed from the checkpoint at step 3 (val row at 3), steps 4..6. */
function verlRuns(): RunHistory[] {
  const a = run("va", "R0", [{ "val-core/gsm8k/reward/mean@1": 0.2 }, ...[1, 2, 3, 4].map((s) => verlRow(s, 1))]);
  const b = run("vb", "R1", [{ "val-core/gsm8k/reward/mean@1": 0.3 }, ...[4, 5, 6].map((s) => verlRow(s, 2))]);
  // verl's _step is the global step.
  for (const r of [a, b]) for (const row of r.rows) row._step = row["training/global_step"] ?? (r === a ? 0 : 3);
  return [a, b];
}

test("every profile maps every concept to a key or to a reason, never to nothing", () => {
  for (const p of PROFILES) {
    for (const c of CONCEPT_IDS) {
      const m = p.metrics[c];
      assert.ok(m !== undefined, `${p.name}: ${c}`);
      if ("absent" in m) assert.ok(m.absent.length > 10, `${p.name}: ${c} has a reason`);
      else assert.ok(m.key && m.is && m.isNot, `${p.name}: ${c} has key, is, isNot`);
    }
  }
  // Same name, different meaning: TRL's kl is KL to the reference, never the ppo_kl concept.
  const trl = PROFILES.find((p) => p.name === "trl")!;
  assert.equal(metricOf(trl, "ppoKl"), null);
  assert.equal(metricOf(trl, "klToRef")!.key, "train/kl");
  // Look-alikes are not mapped: verl's perf/throughput is not actor training throughput.
  assert.equal(metricOf(PROFILES.find((p) => p.name === "verl")!, "actorTokPerS"), null);
});

test("the profile is detected from the key set and printed with the keys that decided; ambiguous or unknown key sets are refused", () => {
  assert.equal(detectProfile([slimeRun({ runId: "a", round: "R0", n: 2, rollouts: ids(1, 2) })]).profile.name, "slime");
  const verl = detectProfile(verlRuns());
  assert.deepEqual([verl.profile.name, verl.how], ["verl", "detected"]);
  assert.deepEqual(verl.evidence, ["training/global_step", "actor/", "timing_s/", "response_length/"]);
  const openrlhf = detectProfile([
    run("o", "R0", [{ "train/global_step": 1, "train/policy_loss": 0.1, "train/actor_grad_norm": 1, "train/timing/generation": 3 }]),
  ]);
  assert.equal(openrlhf.profile.name, "openrlhf");
  const trl = detectProfile([
    run("t", "R0", [{ "train/global_step": 10, "train/completions/mean_length": 50, "train/num_tokens": 1000, "train/entropy": 0.5 }]),
  ]);
  assert.equal(trl.profile.name, "trl");
  assert.throws(() => detectProfile([run("x", "R0", [{ "train/global_step": 1, "train/policy_loss": 0.1, "train/num_tokens": 5 }])]), {
    message:
      'cannot tell which framework wrote these runs: openrlhf (train/policy_loss) and trl (train/num_tokens) match equally. Name the profile (data/runs.json "profile", CLI --profile)',
  });
  assert.throws(() => detectProfile([run("x", "R0", [{ loss: 1, acc: 2 }])]), /no key matches a profile .*; keys: acc, loss\. Name the profile/);
  assert.equal(detectProfile([run("x", "R0", [{ "train/num_tokens": 1 }])], "trl").how, "given");
  // A named profile never reads a run holding none of its keys as empty cells.
  assert.throws(() => detectProfile([run("t", "R0", [{ "train/num_tokens": 1 }]), run("x", "R1", [{ loss: 1 }])], "trl"), {
    message:
      "run x (round R1) holds none of trl's keys (train/completions/, train/clip_ratio/, train/num_tokens, train/frac_reward_zero_std, train/rewards/), so the profile named would read it as empty cells; its keys match no profile (loss). Name the profile the run's keys match (data/runs.json \"profile\", CLI --profile), or fetch that run into an archive of its own",
  });
  assert.throws(() => detectProfile([], "nope"), { message: `invalid profile: nope (one of ${PROFILE_NAMES.join(", ")})` });
});

test("verl: one record per training step, val-before-train rows as evals, the restarted run supersedes the re-logged step", () => {
  const a = alignRuns(verlRuns());
  assert.deepEqual(a.profile, { name: "verl", how: "detected", evidence: ["training/global_step", "actor/", "timing_s/", "response_length/"] });
  assert.deepEqual(a.updates, []);
  assert.deepEqual(
    a.rollouts.map((r) => [r.round, r.rollout]),
    [
      ["R0", 1],
      ["R0", 2],
      ["R0", 3],
      ["R1", 4],
      ["R1", 5],
      ["R1", 6],
    ],
  );
  assert.deepEqual(
    a.evals.map((e) => [e.round, e.evalStep]),
    [
      ["R0", 0],
      ["R1", 3],
    ],
  );
  assert.deepEqual(
    a.superseded.map((s) => [s.runId, s.byRunId, s.rollouts, s.rows]),
    [["va", "vb", [4], 1]],
  );
  assert.deepEqual(a.issues, []);
  assert.equal(a.mapping.n, 0);
  assert.match(a.mapping.formulas.update, /^optimizer updates are not observable: verl logs one row per training step/);
});

test("verl summary: means over the round's training steps through the profile's keys; updates, positions and look-alikes empty with the reason", () => {
  const aligned = alignRuns(verlRuns());
  const s = summaryTable(aligned);
  const col = (name: string) => s.table.columns.indexOf(name);
  const [r0, r1, all] = s.table.rows;
  assert.deepEqual([r0[col("rollouts")], r1[col("rollouts")], all[col("rollouts")]], [3, 3, 6]);
  assert.deepEqual([r0[col("updates")], all[col("updates")]], [null, null]);
  const near = (v: unknown, x: number) => assert.ok(typeof v === "number" && Math.abs(v - x) < 1e-12, `${v} vs ${x}`);
  near(r0[col("entropy_mean")], (1.1 + 1.2 + 1.3) / 3);
  near(r1[col("entropy_mean")], (2.4 + 2.5 + 2.6) / 3);
  near(all[col("entropy_mean")], (1.1 + 1.2 + 1.3 + 2.4 + 2.5 + 2.6) / 6);
  near(r0[col("grad_norm_mean")], 2);
  near(r1[col("response_len_mean")], 500);
  near(r0[col("rollout_time_mean")], 10);
  for (const empty of ["actor_tok_per_s_mean", "logprob_abs_diff_mean", "ppo_kl_first_update_mean", "ppo_kl_later_updates_mean", "zero_grad_norm_updates"]) {
    assert.deepEqual(
      s.table.rows.map((r) => r[col(empty)]),
      [null, null, null],
      empty,
    );
  }
  assert.ok(s.notes.some((n) => n.startsWith("verl logs no actor tokens/s: perf/throughput is tokens per GPU-second of the whole step")));
  const policy = policyRoundTable(aligned);
  assert.equal(
    policy.columns.find((c) => c.field === "ppoKlFirst")!.absent,
    "verl: verl logs one row per training step with actor metrics averaged over its mini-batch updates: single updates and their positions are averaged away",
  );
  assert.equal(rolloutRoundTable(aligned).columns[0].metric!.key, "response_length/mean");
});

test("TRL: records every logging_steps, the final run-totals row kept out, eval rows as evals, no holes for the spacing", () => {
  const row = (s: number) => ({
    "train/global_step": s,
    "train/epoch": s / 100,
    "train/entropy": s / 100,
    "train/clip_ratio/region_mean": 0.01,
    "train/grad_norm": 1,
    "train/completions/mean_length": 200 + s,
    "train/completions/clipped_ratio": 0.1,
    "train/num_tokens": 1000 * s,
  });
  const rows: HistoryRow[] = [
    row(10),
    row(20),
    { "eval/loss": 0.5, "train/global_step": 20 },
    row(30),
    { "train/train_runtime": 99, "train/total_flos": 1, "train/train_loss": 0.2, "train/global_step": 30 },
  ];
  const a = alignRuns([run("t", "R0", rows)]);
  assert.equal(a.profile!.name, "trl");
  assert.deepEqual(
    a.rollouts.map((r) => r.rollout),
    [10, 20, 30],
  );
  assert.deepEqual(
    a.evals.map((e) => e.evalStep),
    [20],
  );
  assert.deepEqual(a.issues, []);
  assert.deepEqual(
    a.notes.map((n) => n.kind),
    ["run-totals"],
  );
  const s = summaryTable(a);
  const col = (name: string) => s.table.columns.indexOf(name);
  assert.equal(s.table.rows[0][col("response_len_mean")], 220);
  assert.equal(s.table.rows[0][col("rollout_time_mean")], null, "TRL logs no generation time: empty, not a look-alike");
  // A hole: step 40 missing between 30 and 50.
  const holes = alignRuns([run("t", "R0", [row(10), row(20), row(30), row(50)])]);
  assert.deepEqual(
    holes.issues.map((x) => x.message),
    ["run t (round R0): steps 40..40 missing between 30 and 50 (a row every 10 steps: the most common spacing of the records)"],
  );
  // Flags unknown: the most common spacing, never the smallest (a partial last interval is short); a tie takes the larger.
  const issuesOf = (steps: number[]) => alignRuns([run("t", "R0", steps.map(row))]).issues.map((x) => x.message);
  assert.deepEqual(issuesOf([3, 6, 9, 12, 13]), []);
  assert.deepEqual(issuesOf([3, 6, 7]), []);
  assert.deepEqual(issuesOf([1, 2, 3, 5, 6]), [
    "run t (round R0): steps 4..4 missing between 3 and 5 (a row every 1 step: the most common spacing of the records)",
  ]);
});

test("OpenRLHF: bookkeeping-only rows (a samples table) are no records; eval rows are evals; entropy absent by default is a note, not a number", () => {
  const row = (s: number) => ({
    "train/global_step": s,
    "train/policy_loss": 0.1,
    "train/actor_grad_norm": s,
    "train/ppo_clip_ratio": 0.02,
    "train/ppo_kl": 0.001,
    "train/rollout/response_length_mean": 300,
    "train/rollout/truncated_rate": 0.05,
    "train/timing/generation": 30,
    "train/timing/step_total": 60,
  });
  const a = alignRuns([run("o", "R0", [row(1), {}, row(2), {}, { "eval/math_pass1": 0.4, "eval/global_step": 2 }, row(3), {}])]);
  assert.equal(a.profile!.name, "openrlhf");
  assert.deepEqual(
    a.rollouts.map((r) => r.rollout),
    [1, 2, 3],
  );
  assert.deepEqual(
    a.evals.map((e) => [e.evalStep, e.values["eval/math_pass1"]]),
    [[2, 0.4]],
  );
  const p = policyRoundTable(a);
  assert.equal(p.rows[0].gradNorm.mean, 2);
  assert.equal(p.rows[0].entropy.mean, null);
  assert.ok(p.notes.includes("round R0: none of the 3 training steps has train/entropy_loss"));
});

test("per-update figures and the critic-key rule come from the profile: slime's train/* and train/critic-*, none for verl", () => {
  const verl = alignRuns(verlRuns());
  assert.throws(() => updateSeriesFigure(verl, "actor/grad_norm"), {
    message: `invalid key: actor/grad_norm (updateSeriesFigure plots per-update keys; verl: ${VERL_PROFILE.updates.note})`,
  });
  const slime = alignRuns([slimeRun({ runId: "s1", round: "R0", n: 2, rollouts: ids(1, 2) })]);
  assert.throws(() => updatesByPositionFigure(slime, "rollout/raw_reward"), {
    message: "invalid key: rollout/raw_reward (updatesByPositionFigure plots train/* keys)",
  });
  // A NaN under train/critic-* is the critic's (slime merges its rows into the actor's updates): left out for slime only.
  const nan = (aligned: AlignedRuns, key: string) => {
    const u = aligned.updates[0] ?? null;
    const r = aligned.rollouts[0];
    if (u !== null) u.values = { ...u.values, [key]: Number.NaN };
    else r.values = { ...r.values, [key]: Number.NaN };
    return runHealthChecks(aligned).results.find((x) => x.check === "non_finite")!;
  };
  const slimeResult = nan(alignRuns([slimeRun({ runId: "s2", round: "R0", n: 2, rollouts: ids(1, 2) })]), "train/critic-value_loss");
  assert.equal(slimeResult.flags.length, 0);
  assert.match(slimeResult.rule, /critic keys train\/critic-\* not read/);
  const verlResult = nan(alignRuns(verlRuns()), "train/critic-value_loss");
  assert.deepEqual(
    verlResult.flags.map((f) => f.key),
    ["train/critic-value_loss"],
  );
  assert.doesNotMatch(verlResult.rule, /critic keys/);
});
