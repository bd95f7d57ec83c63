import { test } from "node:test";
import assert from "node:assert/strict";

import { alignRuns } from "../../lib/align/align-runs";
import { summaryTable } from "../../lib/export/summary-table";
import { detectProfile } from "../../lib/registry/detect-profile";
import { mappedKeys, metricOf, profileMetrics } from "../../lib/registry/framework-profile";
import { metricByKey } from "../../lib/registry/metric-lookup";
import { MILES_PROFILE } from "../../lib/registry/profile-miles";
import { SLIME_PROFILE } from "../../lib/registry/profile-slime";
import type { HistoryRow, RunHistory } from "../../lib/types";
import { keysOf } from "../../lib/values/compact-values";
import { scenarioRunHistories, simulateScenario, type ScenarioOptions } from "../../tools/simulate-slime/scenario";
import { milesRuns } from "../fixtures/miles/miles-history";

/** Two rounds that continue each other (no restart), N = 2: every frozen row is live. */
const TWO_ROUNDS: ScenarioOptions = { seed: 3, n: 2, evalInterval: 2, rounds: [{ rollouts: 5 }, { rollouts: 4 }] };

const has = (row: HistoryRow, key: string) => keysOf(row).includes(key);

/** Mean of `key` over the rows of a run that hold it and pass `pick` (computed here, not by lib). */
function meanOf(run: RunHistory, key: string, pick: (row: HistoryRow) => boolean = () => true): number {
  const xs = run.rows.filter((r) => has(r, key) && pick(r)).map((r) => r[key] as number);
  assert.ok(xs.length > 0, `${run.runId}: no row holds ${key}`);
  return xs.reduce((s, x) => s + x, 0) / xs.length;
}

/** The summary row of a round, by column name. */
function summaryRow(runs: RunHistory[], round: string): Record<string, unknown> {
  const { table } = summaryTable(alignRuns(runs));
  const row = table.rows.find((r) => r[0] === round)!;
  return Object.fromEntries(table.columns.map((c, i) => [c, row[i]]));
}

test("a miles run is detected as miles, a slime run of the same shape as slime, with the keys that decided", () => {
  const miles = detectProfile(milesRuns({ scenario: TWO_ROUNDS }));
  assert.equal(miles.profile.name, "miles");
  assert.deepEqual(miles.evidence, MILES_PROFILE.signature);
  const slime = detectProfile(scenarioRunHistories(simulateScenario(TWO_ROUNDS)));
  assert.equal(slime.profile.name, "slime");
  assert.deepEqual(slime.evidence, SLIME_PROFILE.signature);
  // A PPO miles run (a critic, no zero_std groups) on a known GPU: ess_ratio, train_rollout_kl and the MFU pair decide.
  const ppo = detectProfile(milesRuns({ scenario: { ...TWO_ROUNDS, critic: true } }));
  assert.equal(ppo.profile.name, "miles");
  assert.deepEqual(ppo.evidence.slice(3), ["train/ess_ratio", "train/train_rollout_kl", "perf/actor_train_mfu", "perf/mfu_peak_tflops"]);
});

test("keys both frameworks log are read as slime's; too few of miles' own keys make a tie, which is refused, never guessed", () => {
  const shared: RunHistory = {
    runId: "x",
    round: "R0",
    entity: "e",
    project: "p",
    state: "finished",
    rows: [
      { _step: 0, "rollout/step": 0, "rollout/response_len/mean": 100 },
      { _step: 1, "train/step": 0, "train/pg_clipfrac": 0.01 },
    ],
  };
  const both = detectProfile([shared]);
  assert.deepEqual([both.profile.name, both.evidence], ["slime", ["train/step", "rollout/step", "rollout/response_len/", "train/pg_clipfrac"]]);
  // A PPO miles run on a GPU of unknown peak: ess_ratio and train_rollout_kl only, 5 against slime's 5.
  const ppo = milesRuns({ scenario: { ...TWO_ROUNDS, critic: true }, knownGpu: false });
  assert.throws(
    () => detectProfile(ppo),
    /slime \(train\/step, rollout\/step, perf\/actor_train_tok_per_s, rollout\/response_len\/, train\/pg_clipfrac\) and miles \(perf\/actor_train_tok_per_s, rollout\/response_len\/, train\/pg_clipfrac, train\/ess_ratio, train\/train_rollout_kl\) match equally/,
  );
  // Named, it is read as asked.
  assert.equal(detectProfile(ppo, "miles").profile.name, "miles");
});

test("a miles run aligns through slime's aligner: rollout batches, N updates each, nothing superseded", () => {
  const runs = milesRuns({ scenario: TWO_ROUNDS });
  const aligned = alignRuns(runs);
  assert.equal(aligned.profile?.name, "miles");
  assert.deepEqual(aligned.issues, []);
  assert.deepEqual(
    aligned.rollouts.map((r) => r.rollout),
    [0, 1, 2, 3, 4, 5, 6, 7, 8],
  );
  assert.equal(aligned.updates.length, 18);
  assert.deepEqual(aligned.superseded, []);
  // miles' own keys ride along on the records they were logged with.
  assert.equal(aligned.updates[0].values["train/ess_ratio"], 1);
  assert.ok(aligned.rollouts.every((r) => "perf/actor_train_mfu" in r.values));
});

test("summary cells are the means of miles' keys over each round's records, computed independently", () => {
  const runs = milesRuns({ scenario: TWO_ROUNDS });
  const n = 2;
  for (const [k, run] of runs.entries()) {
    const row = summaryRow(runs, run.round);
    const isUpdate = (r: HistoryRow) => has(r, "train/step") && has(r, "train/pg_loss");
    const first = (r: HistoryRow) => isUpdate(r) && (r["train/step"] as number) % n === 0;
    const later = (r: HistoryRow) => isUpdate(r) && (r["train/step"] as number) % n !== 0;
    const close = (col: string, want: number) =>
      assert.ok(Math.abs((row[col] as number) - want) <= 1e-12 * Math.max(1, Math.abs(want)), `${run.round} ${col}: ${row[col]} vs ${want}`);
    close("entropy_mean", meanOf(run, "train/entropy_loss", isUpdate));
    close("grad_norm_mean", meanOf(run, "train/grad_norm", isUpdate));
    close("logprob_abs_diff_mean", meanOf(run, "train/train_rollout_logprob_abs_diff", isUpdate));
    close("ppo_kl_first_update_mean", meanOf(run, "train/ppo_kl", first));
    close("ppo_kl_later_updates_mean", meanOf(run, "train/ppo_kl", later));
    close("actor_tok_per_s_mean", meanOf(run, "perf/actor_train_tok_per_s"));
    close("response_len_mean", meanOf(run, "rollout/response_len/mean"));
    close("rollout_time_mean", meanOf(run, "perf/rollout_time"));
    assert.equal(row.updates, [10, 8][k]);
    assert.equal(row.history_events, run.rows.length);
  }
});

test("a training attempt fault tolerance discarded is superseded by its retry: the same means, two more rows, none counted", () => {
  const plain = milesRuns({ scenario: TWO_ROUNDS });
  const retried = milesRuns({ scenario: TWO_ROUNDS, retried: [2] });
  assert.equal(retried[0].rows.length, plain[0].rows.length + 2);
  const aligned = alignRuns(retried);
  assert.deepEqual(aligned.issues, []);
  assert.equal(aligned.superseded.length, 1);
  assert.deepEqual([aligned.superseded[0].rows, aligned.superseded[0].byRunId, aligned.superseded[0].rollouts], [2, retried[0].runId, [2]]);
  const a = summaryRow(plain, "R0");
  const b = summaryRow(retried, "R0");
  for (const col of Object.keys(a)) if (col !== "history_events") assert.deepEqual(b[col], a[col], col);
  assert.equal(b.history_events, (a.history_events as number) + 2);
});

test("without --observe-training-entropy miles logs entropy_loss = 0: the mean is 0 and the profile says it is not a collapse", () => {
  const row = summaryRow(milesRuns({ scenario: TWO_ROUNDS, observeEntropy: false }), "R0");
  assert.equal(row.entropy_mean, 0);
  assert.match(metricOf(MILES_PROFILE, "entropy")!.isNot, /exact 0 on every update .*entropy not computed, not a collapsed policy/);
});

test("miles' extra keys keep their own meaning: train_rollout_kl and ess_ratio map to no concept, and no concept to them", () => {
  const mapped = mappedKeys(MILES_PROFILE);
  for (const k of ["train/train_rollout_kl", "train/ess_ratio", "train/tis", "train/ois", "perf/actor_train_mfu"]) assert.equal(mapped.includes(k), false, k);
  // KL to the reference is kl_loss, the policy-ratio KL is ppo_kl, the log-prob gap is the mean |difference|: not train_rollout_kl.
  assert.equal(metricOf(MILES_PROFILE, "klToRef")!.key, "train/kl_loss");
  assert.equal(metricOf(MILES_PROFILE, "ppoKl")!.key, "train/ppo_kl");
  assert.equal(metricOf(MILES_PROFILE, "logprobGap")!.key, "train/train_rollout_logprob_abs_diff");
  assert.equal(metricByKey(MILES_PROFILE, "train/train_rollout_kl")!.label, "KL(rollout || train)");
  assert.equal(metricByKey(SLIME_PROFILE, "train/train_rollout_kl"), undefined);
  assert.equal(metricByKey(MILES_PROFILE, "train/ess_ratio")!.grain, "update");
  // What miles computes as slime does is slime's spec itself, not a copy; what differs is miles' own.
  for (const c of ["clipfrac", "ppoKl", "klToRef", "responseLen", "truncated", "rolloutTime", "actorTokPerS"] as const) {
    assert.equal(MILES_PROFILE.metrics[c], SLIME_PROFILE.metrics[c], c);
  }
  for (const c of ["entropy", "gradNorm", "logprobGap", "stepTime"] as const) assert.notEqual(MILES_PROFILE.metrics[c], SLIME_PROFILE.metrics[c], c);
  assert.match(metricOf(MILES_PROFILE, "gradNorm")!.is, /before clipping/);
  assert.deepEqual(
    profileMetrics(MILES_PROFILE)
      .map((m) => m.key)
      .filter((k) => !profileMetrics(SLIME_PROFILE).some((s) => s.key === k)),
    ["train/train_rollout_kl", "train/ess_ratio", "train/tis", "train/tis_clipfrac", "perf/actor_train_mfu"],
  );
});

test("miles' timers nest as slime's, except the multi-LoRA async rollout's batch wait, which is no phase timer", () => {
  assert.equal(MILES_PROFILE.timers.containers, SLIME_PROFILE.timers.containers);
  assert.equal(MILES_PROFILE.timers.isTimer("perf/actor_train_time"), true);
  assert.equal(MILES_PROFILE.timers.isTimer("perf/longest_sample_non_generation_time"), false);
  assert.equal(MILES_PROFILE.timers.isTimer("perf/fully_async/batch_wait_time"), false);
  assert.equal(SLIME_PROFILE.timers.isTimer("perf/fully_async/batch_wait_time"), true);
  assert.equal(MILES_PROFILE.timers.isTimer("perf/cpu_memory_after_offload_train_gb"), false);
});

test("miles' cpu-memory rows under offload_train are its own rows: counted and named, never a re-logged perf row; the summary is the one without them", () => {
  const plain = alignRuns(milesRuns({ scenario: TWO_ROUNDS }));
  const aligned = alignRuns(milesRuns({ scenario: TWO_ROUNDS, cpuMemoryRows: true }));
  assert.deepEqual(aligned.issues, plain.issues);
  assert.deepEqual(aligned.superseded, plain.superseded);
  const notes = aligned.notes.filter((n) => n.kind === "own-rows");
  assert.equal(notes.length, 2, "one note per round");
  assert.match(
    notes[0].message,
    /^run \S+ \(round R0\): \d+ row\(s\) of miles' host memory after offloading the trainer \(keys perf\/cpu_memory_\*\) kept out/,
  );
  const strip = (t: string) => t.split("\n").map((line) => line.split(",").slice(4).join(","));
  assert.deepEqual(
    strip(
      summaryTable(aligned)
        .table.rows.map((r) => r.join(","))
        .join("\n"),
    ),
    strip(
      summaryTable(plain)
        .table.rows.map((r) => r.join(","))
        .join("\n"),
    ),
  );
  // Under slime's profile the same rows are re-logged perf rows, and the alignment refuses.
  const asSlime = alignRuns(milesRuns({ scenario: TWO_ROUNDS, cpuMemoryRows: true }), { profile: "slime" });
  assert.ok(asSlime.issues.some((i) => i.kind === "superseding-dominates"));
});
