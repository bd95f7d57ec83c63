import { test } from "node:test";
import assert from "node:assert/strict";
import { classifyRow, isRolloutRowKind, ROW_KIND_RULES } from "../../lib/align/slime/classify-row";
import { managerRow, trainerPerfRow, trainerRolloutRow, updateRow } from "./slime-history";

test("each slime row shape gets its kind", () => {
  const cases: [string, Record<string, number>, string][] = [
    ["rollout manager", { ...managerRow(3), _step: 0 }, "rollout-manager"],
    ["trainer rollout", { ...trainerRolloutRow(3), _step: 1 }, "trainer-rollout"],
    ["optimizer update", { ...updateRow(6), _step: 2 }, "optimizer-update"],
    ["trainer perf", { ...trainerPerfRow(3), _step: 3 }, "trainer-perf"],
    ["eval", { "eval/aime": 0.3, "eval/aime/response_len/mean": 900, "eval/step": 3 }, "eval"],
    ["critic", { "train/critic-loss": 0.1, "train/critic-grad_norm": 2, "train/step": 6 }, "critic-update"],
    ["multi_turn row", { "multi_turn/round_number_mean": 2, "rollout/step": 3 }, "trainer-rollout"],
    ["passrate row", { "passrate/pass@1": 0.5, "rollout/step": 3 }, "trainer-rollout"],
    ["manager row without perf", { "rollout/response_len/max": 900, "rollout/step": 3 }, "rollout-manager"],
    ["manager row with only rollout_time", { "perf/rollout_time": 12, "rollout/step": 3 }, "rollout-manager"],
    ["manager row, other rollout keys plus perf", { "rollout/custom": 1, "perf/tokens_per_gpu_per_sec": 5, "rollout/step": 3 }, "rollout-manager"],
    ["manager row with --wandb-always-use-train-step", { ...managerRow(3), "train/step": 6 }, "rollout-manager"],
    ["train-side response_lengths is not response_len/", { "rollout/response_lengths": 300, "rollout/step": 3 }, "trainer-rollout"],
    ["bookkeeping only", { _step: 4, _runtime: 1, _timestamp: 2 }, "other"],
    ["rollout/step only", { "rollout/step": 3, _step: 4 }, "other"],
    ["train/step only", { "train/step": 3 }, "other"],
    ["train keys without train/step", { "train/loss": 3 }, "other"],
    ["eval keys without eval/step", { "eval/aime": 0.3 }, "other"],
    ["unknown family", { "custom/foo": 1, _step: 9 }, "other"],
  ];
  for (const [name, row, kind] of cases) assert.equal(classifyRow(row), kind, name);
});

test("the documented rule table lists every kind once, in rule order", () => {
  assert.deepEqual(
    ROW_KIND_RULES.map((r) => r.kind),
    ["eval", "critic-update", "optimizer-update", "rollout-manager", "trainer-perf", "trainer-rollout", "other"],
  );
});

test("rollout row kinds are the three rows sharing rollout/step", () => {
  assert.deepEqual(
    (["rollout-manager", "trainer-rollout", "trainer-perf", "optimizer-update", "critic-update", "eval", "other"] as const).map(isRolloutRowKind),
    [true, true, true, false, false, false, false],
  );
});
