/**
 * Conformance of the simulator's key names with real runs (../shared/real-inputs/ when present, not
 * part of the repository; sources in its README): a verl console log (its `step:0` val-before-train line and
 * `step:1` training line) and a TRL GRPO run's wandb-summary.json. Skips with a plain message when
 * the folder is absent.
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import * as path from "node:path";
import { test } from "node:test";

import { simulateFramework } from "../../tools/simulate-frameworks/simulate";
import { metricKeys } from "../fixtures/metric-keys";

const repoRoot = path.resolve(__dirname, "../..");
const REAL = path.resolve(repoRoot, "../shared/real-inputs");
const VERL_LOG = path.join(REAL, "other-rl-logs", "verl-grpo+sft__RLDecisionAgent__char_count_README.md");
const TRL_SUMMARY = path.join(REAL, "wandb-history", "grpo-code-reasoning__wandb-summary.json");

/** Keys of verl's console metrics line `step:N - k:v - k:v ...` for step N. */
function verlLineKeys(text: string, step: number): Set<string> {
  const line = text.split("\n").find((l) => l.includes(`step:${step} - `) && !l.includes("train/loss"));
  assert.ok(line, `no verl metrics line for step ${step}`);
  const body = line.slice(line.indexOf(`step:${step} - `) + `step:${step} - `.length);
  return new Set(body.split(" - ").map((kv) => kv.slice(0, kv.lastIndexOf(":"))));
}

test("verl: training-row keys are the real run's (bar keys it did not enable); val names match after the core/aux prefix", (t) => {
  if (!existsSync(VERL_LOG)) {
    t.skip(`real verl log not found at ${VERL_LOG}: conformance not checked`);
    return;
  }
  const text = readFileSync(VERL_LOG, "utf8");
  const real = verlLineKeys(text, 1);
  const sim = simulateFramework({ framework: "verl", rounds: [{ steps: 1 }], refPolicy: false, testFreq: 0, datasets: ["char_count"] });
  const trainKeys = metricKeys(sim.runs[0].history[1]);
  // Keys of verl 0.9.1 (the simulator follows the real 0.9.1 runs in test/fixtures/real-runs/verl/) that run's older verl did not log.
  assert.deepEqual(
    trainKeys.filter((k) => !real.has(k)),
    [
      "actor/loss",
      "actor/perf/cpu_memory_used_gb",
      "actor/perf/max_memory_allocated_gb",
      "actor/perf/max_memory_reserved_gb",
      "num_turns/max",
      "num_turns/mean",
      "num_turns/min",
      "perf/mfu/actor_infer",
      "response/aborted_ratio",
      "response_length_non_aborted/clip_ratio",
      "response_length_non_aborted/max",
      "response_length_non_aborted/mean",
      "response_length_non_aborted/min",
      "rollout_corr/chi2_seq",
      "rollout_corr/chi2_token",
      "rollout_corr/k3_kl",
      "rollout_corr/kl",
      "rollout_corr/log_ppl_abs_diff",
      "rollout_corr/log_ppl_diff",
      "rollout_corr/log_ppl_diff_max",
      "rollout_corr/log_ppl_diff_min",
      "rollout_corr/ppl_ratio",
      "rollout_corr/rollout_log_ppl",
      "rollout_corr/rollout_ppl",
      "rollout_corr/training_log_ppl",
      "rollout_corr/training_ppl",
      "timing_s/agent_loop/compute_score/max",
      "timing_s/agent_loop/compute_score/mean",
      "timing_s/agent_loop/compute_score/min",
      "timing_s/agent_loop/generate_sequences/max",
      "timing_s/agent_loop/generate_sequences/mean",
      "timing_s/agent_loop/generate_sequences/min",
      "timing_s/agent_loop/num_preempted/max",
      "timing_s/agent_loop/num_preempted/mean",
      "timing_s/agent_loop/num_preempted/min",
      "timing_s/agent_loop/slowest/compute_score",
      "timing_s/agent_loop/slowest/generate_sequences",
      "timing_s/agent_loop/slowest/num_preempted",
      "timing_s/agent_loop/slowest/prompt_length",
      "timing_s/agent_loop/slowest/response_length",
      "timing_s/agent_loop/slowest/tool_calls",
      "timing_s/agent_loop/tool_calls/max",
      "timing_s/agent_loop/tool_calls/mean",
      "timing_s/agent_loop/tool_calls/min",
      "timing_s/update_weights",
      "training/rollout_actor_probs_pearson_corr",
      "training/rollout_probs_diff_max",
      "training/rollout_probs_diff_mean",
      "training/rollout_probs_diff_std",
      "training/rollout_probs_diff_valid",
    ],
  );
  const realVal = new Set([...verlLineKeys(text, 0)].map((k) => k.replace(/^val-(core|aux)\//, "")));
  const simVal = metricKeys(sim.runs[0].history[0]);
  assert.ok(simVal.length > 0);
  assert.deepEqual(
    simVal.map((k) => k.replace(/^val-(core|aux)\//, "")).filter((k) => !realVal.has(k)),
    ["num_turns/max", "num_turns/mean", "num_turns/min"],
  );
});

test("trl: every key of a training row is in the real GRPO run's summary (beta != 0, one reward function named _reward)", (t) => {
  if (!existsSync(TRL_SUMMARY)) {
    t.skip(`real TRL summary not found at ${TRL_SUMMARY}: conformance not checked`);
    return;
  }
  const real = new Set(Object.keys(JSON.parse(readFileSync(TRL_SUMMARY, "utf8")) as Record<string, unknown>));
  const sim = simulateFramework({ framework: "trl", rounds: [{ steps: 10 }], beta: 0.04, rewardFuncs: ["_reward"] });
  const keys = Object.keys(sim.runs[0].history[0]);
  assert.ok(keys.length > 30);
  assert.deepEqual(
    keys.filter((k) => !real.has(k)),
    [],
  );
});
