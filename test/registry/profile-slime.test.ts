import { test } from "node:test";
import assert from "node:assert/strict";

import { policyRoundTable } from "../../lib/diagnostics/policy-round-table";
import { roundMeans } from "../../lib/diagnostics/round-mean";
import { aliasOf, keysFor as keysOfProfile, metricByKey } from "../../lib/registry/metric-lookup";
import { SLIME_PROFILE, STEP_KEYS } from "../../lib/registry/profile-slime";
import { SLIME_SPECS as METRICS } from "../fixtures/metric-keys";

const { isTimer: isPerfTimeKey, stackable: isStackableTimer, containers } = SLIME_PROFILE.timers;
const keysFor = (key: string) => keysOfProfile(SLIME_PROFILE, key);

/** The container a timer is part of, as the profile declares it (total_train_time is step_time's old name). */
function timerParent(key: string): string | undefined {
  return Object.entries(containers).find(([parent, parts]) => parent !== "perf/total_train_time" && parts.includes(key))?.[0];
}
import { buildAligned } from "../diagnostics/aligned-builder";

test("timers nest as slime's actor runs them: preprocess, save, update_weights, sleep/wake inside train_wait; log-probs and actor_train inside train", () => {
  for (const k of ["data_preprocess", "wake_up", "sleep", "save_model", "update_weights", "ref_model_update"]) {
    assert.equal(timerParent(`perf/${k}_time`), "perf/train_wait_time", k);
    assert.equal(isStackableTimer(`perf/${k}_time`), false, `${k} is inside train_wait: stacking it beside train_wait counts it twice`);
  }
  for (const k of ["ref_log_probs", "teacher_log_probs", "log_probs", "actor_train"]) {
    assert.equal(timerParent(`perf/${k}_time`), "perf/train_time", k);
    assert.equal(isStackableTimer(`perf/${k}_time`), true, k);
  }
  assert.equal(timerParent("perf/train_wait_time"), "perf/step_time");
  assert.equal(isStackableTimer("perf/train_wait_time"), true);
  for (const k of ["perf/step_time", "perf/total_train_time", "perf/train_time", "perf/rollout_time"]) assert.equal(isStackableTimer(k), false, k);
});

test("per-sample _time statistics of the rollout manager are not timers", () => {
  assert.equal(isPerfTimeKey("perf/longest_sample_non_generation_time"), false);
  assert.equal(isPerfTimeKey("perf/longest_effective_sample_non_generation_time"), false);
  assert.equal(isPerfTimeKey("perf/actor_train_time"), true);
  assert.equal(isPerfTimeKey("perf/actor_train_tok_per_s"), false);
});

test("renamed keys of older slime versions are aliases of one metric; train/critic-step does not exist", () => {
  assert.deepEqual(keysFor("train/train_rollout_logprob_abs_diff"), ["train/train_rollout_logprob_abs_diff", "train/train_rollout_logprob_diff"]);
  assert.deepEqual(keysFor("perf/step_time"), ["perf/step_time", "perf/total_train_time"]);
  assert.deepEqual(keysFor("rollout/spec_accept_rate"), ["rollout/spec_accept_rate", "rollout/rollout/spec_accept_rate"]);
  assert.deepEqual(keysFor("train/loss"), ["train/loss"]);
  assert.equal(metricByKey(SLIME_PROFILE, "train/train_rollout_logprob_diff"), METRICS.logprobGap);
  assert.equal(aliasOf(SLIME_PROFILE, "perf/total_train_time")?.current, "perf/step_time");
  assert.equal(aliasOf(SLIME_PROFILE, "train/loss"), undefined);
  assert.equal("critic" in STEP_KEYS, false);
});

test("a round logged with the pre-2025-10-27 signed log-prob diff is read as the metric, with a note; the current key wins where both exist", () => {
  const aligned = buildAligned([
    {
      round: "R0",
      batches: [
        {
          rollout: { "rollout/step": 1 },
          updates: [
            { "train/train_rollout_logprob_diff": 0.25, "train/step": 2 },
            { "train/train_rollout_logprob_diff": -0.05, "train/step": 3 },
          ],
        },
      ],
    },
    {
      round: "R1",
      batches: [
        {
          rollout: { "rollout/step": 2 },
          updates: [
            { "train/train_rollout_logprob_abs_diff": 0.5, "train/train_rollout_logprob_diff": 9, "train/step": 4 },
            { "train/train_rollout_logprob_abs_diff": 0.3, "train/step": 5 },
          ],
        },
      ],
    },
  ]);
  const t = policyRoundTable(aligned);
  assert.deepEqual(
    t.rows.map((r) => r.logprobGap.mean),
    [0.1, 0.4],
  );
  assert.equal(t.all.logprobGap.mean, (0.25 - 0.05 + 0.5 + 0.3) / 4);
  assert.ok(
    t.notes.some((n) =>
      n.startsWith(
        "round R0: 2 optimizer update(s) logged train/train_rollout_logprob_diff (slime until 2025-10-27) instead of train/train_rollout_logprob_abs_diff, read as it: the signed difference",
      ),
    ),
  );
  assert.ok(!t.notes.some((n) => n.startsWith("round R1:") && n.includes("logged train/train_rollout_logprob_diff")));
  const m = roundMeans(aligned, "train/train_rollout_logprob_abs_diff");
  assert.deepEqual(
    m.rows.map((r) => r.value.mean),
    [0.1, 0.4],
  );
  assert.equal(m.notes.filter((n) => n.includes("read as it")).length, 1);
});
