/**
 * Rollout records and updates whose values are copied by plan (lib/align/slime/merge-plans.ts) must
 * be exactly what the general merge makes from plain rows; rows that disagree on a key or repeat a
 * slot must take the general path, which reports them. Alignment never reaches a repeated slot on
 * these rows (a re-logged row is superseded first), so RolloutMerge is driven here directly.
 */
import { test } from "node:test";
import assert from "node:assert/strict";

import { RolloutMerge } from "../../lib/align/slime/rollout-merge";
import { ShapeKeyInfos } from "../../lib/align/slime/shape-key-infos";
import { scanRun } from "../../lib/align/slime/scan-runs";
import type { AxisRecord, CoverageIssue, HistoryRow, RunHistory } from "../../lib/types";
import { keysOf, ValuesArena, type ViewClass } from "../../lib/values/compact-values";
import { ValuesBuilder } from "../../lib/values/values-builder";
import { packedRuns } from "../fixtures/compact-runs";
import { managerRow, runOf, trainerPerfRow, trainerRolloutRow } from "./slime-history";

/** A ValuesBuilder that counts the records it gathered by plan. */
class CountingBuilder extends ValuesBuilder {
  gathered = 0;
  gather(View: ViewClass, n: number, stores: readonly Float64Array[], bases: readonly number[], row: Uint8Array, index: Int32Array): Record<string, number> {
    this.gathered++;
    return super.gather(View, n, stores, bases, row, index);
  }
}

/** Rollout 2's record merged from all rows of `run` (linked in row order), with the issues and how many were gathered by plan. */
function merged(run: RunHistory, compact: boolean) {
  const scan = scanRun(run);
  const vb = new CountingBuilder(compact ? new ValuesArena() : null);
  const issues: CoverageIssue[] = [];
  const merge = new RolloutMerge(scan, new ShapeKeyInfos(scan.reader), vb, issues);
  const n = scan.codes.length;
  const rowNext = new Int32Array(n).fill(-1);
  for (let i = 0; i + 1 < n; i++) rowNext[i] = i + 1;
  const rec: AxisRecord = { runId: run.runId, round: run.round, rollout: 2, historySteps: [], values: {} };
  merge.merge(rec, 0, rowNext);
  return {
    values: keysOf(rec.values).map((k) => [k, Object.is(rec.values[k], -0) ? "-0" : rec.values[k]]),
    historySteps: rec.historySteps,
    issues: issues.map((x) => `${x.kind}: ${x.message}`),
    gathered: vb.gathered,
  };
}

/** The merge of these rows from packed rows (by plan when it can) and from plain rows (the general merge). */
function both(rows: HistoryRow[]) {
  const run = runOf("a", "R0", rows);
  return { packed: merged(packedRuns([run])[0], true), plain: merged(run, false) };
}

test("rows that agree: copied by plan, the general merge's values, order and history steps", () => {
  // Each row repeats rollout/step (2 = 2); the trainer row repeats a manager key with the same NaN, the perf row one with -0 against 0.
  const { packed, plain } = both([
    { ...managerRow(2), "rollout/extra": Number.NaN, "perf/zero": -0 },
    { ...trainerRolloutRow(2), "rollout/extra": Number.NaN },
    { ...trainerPerfRow(2), "perf/zero": 0 },
  ]);
  assert.equal(packed.gathered, 1);
  assert.equal(plain.gathered, 0);
  assert.deepEqual({ ...packed, gathered: 0 }, { ...plain, gathered: 0 });
  assert.deepEqual(packed.values, [
    ["rollout/response_len/mean", 102],
    ["rollout/truncated_ratio", 0.02],
    ["perf/rollout_time", 12],
    ["rollout/step", 2],
    ["rollout/extra", Number.NaN],
    ["perf/zero", "-0"],
    ["rollout/log_probs", -0.52],
    ["rollout/rewards", 0.2],
    ["perf/actor_train_time", 5],
    ["perf/actor_train_tok_per_s", 1002],
  ]);
  assert.deepEqual(packed.historySteps, [0, 1, 2]);
  assert.deepEqual(packed.issues, []);
});

test("rows that disagree on a key: the general merge, the key left out and reported as from plain rows", () => {
  const { packed, plain } = both([{ ...managerRow(2), "rollout/extra": 0.25 }, { ...trainerRolloutRow(2), "rollout/extra": 0.5 }, trainerPerfRow(2)]);
  assert.equal(packed.gathered, 0);
  assert.deepEqual({ ...packed, gathered: 0 }, { ...plain, gathered: 0 });
  assert.deepEqual(packed.issues, [
    "conflicting-values: run a (round R0): rollout 2 has rollout/extra = 0.25 and 0.5 in two rows (second at _step 1); the key is left out of the rollout record",
  ]);
});

test("two rows of one slot (two manager rows): the general merge, reported as a duplicate as from plain rows", () => {
  const { packed, plain } = both([managerRow(2), trainerRolloutRow(2), managerRow(2)]);
  assert.equal(packed.gathered, 0);
  assert.deepEqual({ ...packed, gathered: 0 }, { ...plain, gathered: 0 });
  assert.deepEqual(packed.issues, ["duplicate-rollout: run a (round R0): rollout 2 has 2 rollout-manager rows (_step 0, 2)"]);
});
