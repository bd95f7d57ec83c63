import assert from "node:assert/strict";
import { test } from "node:test";

import { OPENRLHF_PROFILE } from "../../lib/registry/profile-openrlhf";
import { SLIME_PROFILE } from "../../lib/registry/profile-slime";
import { TRL_PROFILE } from "../../lib/registry/profile-trl";
import { VERL_PROFILE } from "../../lib/registry/profile-verl";
import { tensorboardAsLogged } from "../../lib/tensorboard/step-rows";
import type { HistoryRow, RunHistory } from "../../lib/types";

function tbRun(rows: HistoryRow[]): RunHistory {
  return { runId: "r", round: "R0", entity: "", project: "", state: "unknown", rows, sourceKind: "tensorboard" };
}

test("TRL: the step key comes from _step; eval/* and the run totals logged at the same step become rows of their own, as W&B has them", () => {
  const merged = {
    _step: 6,
    _timestamp: 100,
    "train/loss": 0.5,
    "train/epoch": 1,
    "eval/loss": 0.7,
    "train/train_runtime": 3.2,
    "train/train_steps_per_second": 1.8,
  };
  const out = tensorboardAsLogged(tbRun([{ _step: 5, _timestamp: 99, "train/loss": 0.6 }, merged]), TRL_PROFILE);
  assert.deepEqual(out.rows, [
    { _step: 5, _timestamp: 99, "train/loss": 0.6, "train/global_step": 5 },
    { _step: 6, _timestamp: 100, "train/loss": 0.5, "train/epoch": 1, "train/global_step": 6 },
    { _step: 6, _timestamp: 100, "eval/loss": 0.7 },
    { _step: 6, _timestamp: 100, "train/train_runtime": 3.2, "train/train_steps_per_second": 1.8 },
  ]);
});

test("verl: its training/global_step tag is kept as logged, val metrics stay in the step's row (verl logs them in one call), a val-only row gets no step key", () => {
  const row = { _step: 3, "training/global_step": 3, "actor/entropy": 1, "val-core/acc": 0.5 };
  const before = { _step: 0, "val-core/acc": 0.25 };
  assert.deepEqual(tensorboardAsLogged(tbRun([before, row]), VERL_PROFILE).rows, [before, row]);
});

test("OpenRLHF: train/global_step from _step, evaluations split out", () => {
  const out = tensorboardAsLogged(tbRun([{ _step: 2, "train/policy_loss": 1, "eval/eval_pass1": 0.5 }]), OPENRLHF_PROFILE);
  assert.deepEqual(out.rows, [
    { _step: 2, "train/policy_loss": 1, "train/global_step": 2 },
    { _step: 2, "eval/eval_pass1": 0.5 },
  ]);
});

test("a W&B run is returned as it is, whatever the profile", () => {
  const run: RunHistory = { runId: "w", round: "R0", entity: "e", project: "p", state: "finished", rows: [{ _step: 0, x: 1 }] };
  assert.equal(tensorboardAsLogged(run, TRL_PROFILE), run);
  assert.equal(tensorboardAsLogged(run, SLIME_PROFILE), run);
});

test("slime: a TensorBoard run is refused with the reason its profile declares", () => {
  assert.throws(
    () => tensorboardAsLogged(tbRun([{ _step: 0, "train/step": 0 }]), SLIME_PROFILE),
    /^Error: run r \(round R0\) was read from TensorBoard, which slime runs cannot be aligned from: the step is each row's own step key/,
  );
});
