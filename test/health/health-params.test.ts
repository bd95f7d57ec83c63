import { test } from "node:test";
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

import { defaultHealthParams, healthEnvName, healthSettings, readHealthConfig, resolveHealthParams } from "../../lib/health/health-params";

test("defaults are the issue's rules", () => {
  assert.deepEqual(defaultHealthParams(), {
    entropy_collapse: { early: 4, sudden: 0.4, window: 5, deep: 0.1, min_length: 1 },
    learning_stalled: { min_fraction: 1, min_length: 2 },
    zero_advantages: { min_length: 2 },
    zero_grad_norm_streak: { min_length: 3 },
    grad_norm_spike: { multiple: 50, window: 8, min_history: 4 },
    non_finite: {},
    truncation_saturation: { level: 0.8, min_length: 2 },
    truncation_surge: { min_fraction: 0.5, median_multiple: 3, min_history: 4 },
    length_collapse: { early: 4, fraction: 0.4, min_length: 2 },
    kl_ref_drift: { early: 4, rise: 0.5, jump: 2, window: 5, min_length: 2 },
    mismatch_growth: { early: 4, multiple: 4, min_length: 2 },
    ppo_kl_first_update: { threshold: 1e-8 },
    logprob_gap_jump: { median_multiple: 5 },
    mismatch_drift: { scale: 1 },
    mismatch_resume_spike: { scale: 1, window: 3 },
    ppo_kl_stuck_zero: { threshold: 1e-8, min_updates: 3 },
    missing_trainer_perf: {},
    step_time_mismatch: { relative_tolerance: 0.01, absolute_tolerance_s: 0.05 },
    timer_parts_exceed_container: { relative_tolerance: 0.01, absolute_tolerance_s: 0.05 },
    throughput_drop: { max_drop: 0.2 },
  });
  assert.equal(healthEnvName("truncation_surge", "min_fraction"), "HEALTH_TRUNCATION_SURGE_MIN_FRACTION");
});

test("runs.json health object overrides defaults, environment overrides both; sources are reported", () => {
  const s = resolveHealthParams({
    health: { truncation_surge: { min_fraction: 0.4, median_multiple: 2 }, zero_grad_norm_streak: { min_length: 4 } },
    env: { HEALTH_TRUNCATION_SURGE_MIN_FRACTION: "0.45", HEALTH_LOGPROB_GAP_JUMP_MEDIAN_MULTIPLE: "1e1", HEALTH_THROUGHPUT_DROP_MAX_DROP: "" },
  });
  assert.deepEqual(s.params.truncation_surge, { min_fraction: 0.45, median_multiple: 2, min_history: 4 });
  assert.deepEqual(s.params.zero_grad_norm_streak, { min_length: 4 });
  assert.deepEqual(s.params.logprob_gap_jump, { median_multiple: 10 });
  assert.deepEqual(s.params.throughput_drop, { max_drop: 0.2 }, "an empty variable is unset");
  const src = Object.fromEntries(s.rows.map((r) => [`${r.check}.${r.param}`, r.source]));
  assert.equal(src["truncation_surge.min_fraction"], "environment");
  assert.equal(src["truncation_surge.median_multiple"], "runs.json");
  assert.equal(src["ppo_kl_first_update.threshold"], "default");
  assert.equal(s.rows.length, 40, "one row per parameter of every check");
});

test("invalid values read `invalid <option>: <value> (<allowed>)`", () => {
  const env = (name: string, value: string) => () => resolveHealthParams({ env: { [name]: value } });
  assert.throws(env("HEALTH_ZERO_GRAD_NORM_STREAK_MIN_LENGTH", "2.5"), { message: "invalid HEALTH_ZERO_GRAD_NORM_STREAK_MIN_LENGTH: 2.5 (an integer >= 2)" });
  assert.throws(env("HEALTH_ZERO_GRAD_NORM_STREAK_MIN_LENGTH", "1"), { message: "invalid HEALTH_ZERO_GRAD_NORM_STREAK_MIN_LENGTH: 1 (an integer >= 2)" });
  assert.throws(env("HEALTH_PPO_KL_FIRST_UPDATE_THRESHOLD", "abc"), { message: "invalid HEALTH_PPO_KL_FIRST_UPDATE_THRESHOLD: abc (a number >= 0)" });
  assert.throws(env("HEALTH_PPO_KL_FIRST_UPDATE_THRESHOLD", "NaN"), /^Error: invalid HEALTH_PPO_KL_FIRST_UPDATE_THRESHOLD: NaN/);
  assert.throws(env("HEALTH_PPO_KL_FIRST_UPDATE_THRESHOLD", "Infinity"), /invalid HEALTH_PPO_KL_FIRST_UPDATE_THRESHOLD: Infinity/);
  assert.throws(env("HEALTH_TRUNCATION_SURGE_MIN_FRACTION", "1.5"), { message: "invalid HEALTH_TRUNCATION_SURGE_MIN_FRACTION: 1.5 (a number from 0 to 1)" });
  assert.throws(env("HEALTH_LOGPROB_GAP_JUMP_MEDIAN_MULTIPLE", "0"), { message: "invalid HEALTH_LOGPROB_GAP_JUMP_MEDIAN_MULTIPLE: 0 (a number > 0)" });
  const cfg = (health: unknown) => () => resolveHealthParams({ health, healthSource: "data/runs.json" });
  assert.throws(cfg({ truncation_surge: { min_fraction: "0.4" } }), {
    message: 'invalid health.truncation_surge.min_fraction: "0.4" (a number from 0 to 1) in data/runs.json',
  });
  assert.throws(cfg({ truncation_surge: { median: 2 } }), {
    message:
      "invalid health.truncation_surge.median: unknown parameter (parameters of truncation_surge: min_fraction, median_multiple, min_history) in data/runs.json",
  });
  assert.throws(cfg({ nan_check: {} }), /^Error: invalid health\.nan_check: unknown check \(known: ppo_kl_first_update, .*\) in data\/runs\.json$/);
  assert.throws(cfg([1]), { message: 'invalid health: [1] (an object { "<check>": { "<param>": <number> } }) in data/runs.json' });
  assert.throws(cfg({ non_finite: 3 }), { message: "invalid health.non_finite: 3 (an object of parameters) in data/runs.json" });
});

test("readHealthConfig: the health object of a runs config; a missing file gives none; healthSettings reads both", (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "health-config-"));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, "runs.json");
  assert.equal(readHealthConfig(file), undefined);
  fs.writeFileSync(file, JSON.stringify({ entity: "e", project: "p", runs: [], health: { throughput_drop: { max_drop: 0.5 } } }));
  assert.deepEqual(readHealthConfig(file), { throughput_drop: { max_drop: 0.5 } });
  const s = healthSettings({ HEALTH_THROUGHPUT_DROP_MAX_DROP: "0.3" }, file);
  assert.equal(s.params.throughput_drop.max_drop, 0.3);
  assert.deepEqual(healthSettings({}, file).params.throughput_drop, { max_drop: 0.5 });
  fs.writeFileSync(file, "{ not json");
  assert.throws(() => readHealthConfig(file), /^Error: invalid runs config: .*runs\.json: not valid JSON/);
});
