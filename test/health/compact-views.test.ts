import { test } from "node:test";
import assert from "node:assert/strict";

import { summaryTable } from "../../lib/export/summary-table";
import { runHealthChecks } from "../../lib/health/run-health-checks";
import type { AlignedRuns } from "../../lib/types";
import { ValuesArena } from "../../lib/values/compact-values";
import { ValuesBuilder } from "../../lib/values/values-builder";
import { buildAligned, collectingReporter, type BatchSpec } from "../diagnostics/aligned-builder";

/** Deterministic pseudo-random numbers in [0, 1). */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** Batches with something for every check: NaN/Inf, absent keys, an older key name, zero streaks, surges, timer mismatches, slower rounds. */
function batches(round: number, count: number, rand: () => number): BatchSpec[] {
  return Array.from({ length: count }, (_, b) => {
    const u = (i: number): Record<string, number> => {
      const v: Record<string, number> = {};
      if (rand() > 0.05) v["train/ppo_kl"] = i === 0 ? (rand() < 0.05 ? 0.01 : 0) : round === 2 ? 0 : rand() * 1e-3;
      if (rand() > 0.05) v["train/grad_norm"] = b % 17 < 4 ? (b % 2 ? -0 : 0) : rand() < 0.02 ? Number.NaN : rand();
      v["train/train_rollout_logprob_abs_diff"] = rand() < 0.03 ? 1 : 0.01 + rand() * 0.001;
      if (rand() < 0.5) v["train/entropy_loss"] = rand() < 0.02 ? Number.POSITIVE_INFINITY : rand();
      else v["train/pg_clipfrac"] = rand();
      return v;
    };
    const rollout: Record<string, number> = { "rollout/truncated_ratio": rand() < 0.05 ? 0.9 : rand() * 0.2, "perf/rollout_time": 10 + rand() };
    if (rand() > 0.1) {
      const wait = rand();
      const train = 2 + rand();
      Object.assign(rollout, {
        "perf/actor_train_tok_per_s": (round === 3 ? 5000 : 13500) + rand() * 100,
        "perf/train_wait_time": wait,
        "perf/train_time": train,
        "perf/actor_train_time": train * (rand() < 0.05 ? 2 : 0.5),
        "perf/log_probs_time": rand() * 0.1,
      });
      // Older runs logged the step time under its former name.
      rollout[round === 1 ? "perf/total_train_time" : "perf/step_time"] = wait + train + (rand() < 0.05 ? 1 : 0);
    }
    return { rollout: rand() < 0.05 ? null : rollout, updates: [u(0), u(1), u(2)] };
  });
}

/** The same aligned runs with every record's values as a compact view of the same pairs in the same order. */
function asViews(aligned: AlignedRuns): AlignedRuns {
  const vb = new ValuesBuilder(new ValuesArena());
  const view = <R extends { values: Record<string, number> }>(r: R): R => {
    vb.reset();
    for (const k of Object.keys(r.values)) vb.push(k, r.values[k]);
    return { ...r, values: vb.build() };
  };
  return { ...aligned, rollouts: aligned.rollouts.map(view), updates: aligned.updates.map(view) };
}

/** JSON that tells NaN, ±Infinity and -0 apart. */
function exact(x: unknown): string {
  return JSON.stringify(x, (_, v) => (typeof v === "number" && (!Number.isFinite(v) || Object.is(v, -0)) ? `#${Object.is(v, -0) ? "-0" : v}` : v));
}

test("health checks and summary.csv read compact views exactly as plain objects (flags, evidence, notes, warnings)", () => {
  const rand = rng(7);
  const plain = buildAligned(
    [0, 1, 2, 3].map((r) => ({ round: `R${r}`, batches: batches(r, 9000 + r * 7, rand) })),
    { n: 3 },
  );
  const views = asViews(plain);
  const health = runHealthChecks(plain);
  // The fixture must exercise the checks, or the comparison says little.
  const flagged = health.results.filter((r) => r.status === "flagged").map((r) => r.check);
  assert.deepEqual(flagged, [
    "ppo_kl_first_update",
    "zero_grad_norm_streak",
    "non_finite",
    "truncation_surge",
    "logprob_gap_jump",
    "ppo_kl_stuck_zero",
    "missing_trainer_perf",
    "step_time_mismatch",
    "timer_parts_exceed_container",
    "throughput_drop",
    "entropy_collapse",
    "grad_norm_spike",
    "truncation_saturation",
    "mismatch_growth",
  ]);
  assert.equal(exact(runHealthChecks(views)), exact(health));
  const a = collectingReporter();
  const b = collectingReporter();
  const sumPlain = summaryTable(plain, { reporter: a, allowIssues: true });
  assert.ok(a.warnings.length > 100);
  assert.equal(exact(summaryTable(views, { reporter: b, allowIssues: true })), exact(sumPlain));
  assert.deepEqual(b.warnings, a.warnings);
});
