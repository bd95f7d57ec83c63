import { test } from "node:test";
import assert from "node:assert/strict";

import { classifyRow } from "../../lib/align/slime/classify-row";
import { parseHistoryRow } from "../../lib/wandb/parse-history-row";
import type { HistoryRow } from "../../lib/types";
import { benchRunSet, generateRun, pyFloat, pyJsonRow, rolloutsForRows, ROWS_PER_ROLLOUT } from "../../bench/slime-history";

function rowsOf(spec: Parameters<typeof generateRun>[0]): HistoryRow[] {
  const rows: HistoryRow[] = [];
  generateRun(spec, (r) => rows.push(r));
  return rows;
}

test("pyFloat writes floats as Python's json.dumps does", () => {
  assert.equal(pyFloat(1), "1.0");
  assert.equal(pyFloat(0), "0.0");
  assert.equal(pyFloat(-0), "-0.0");
  assert.equal(pyFloat(0.5), "0.5");
  assert.equal(pyFloat(1e-6), "1e-06");
  assert.equal(pyFloat(0.0001), "0.0001");
  assert.equal(pyFloat(1.5e-7), "1.5e-07");
  assert.equal(pyFloat(1e16), "1e+16");
  assert.equal(pyFloat(123.25), "123.25");
  assert.equal(pyFloat(NaN), "NaN");
  assert.equal(pyFloat(-Infinity), "-Infinity");
});

test("pyJsonRow: json.dumps separators, ints as ints, bare NaN; the reader parses it back to the same row", () => {
  const row: HistoryRow = { "train/grad_norm": NaN, "train/global_batch_size": 32, "train/lr-pg_0": 1e-6, "train/step": 4, _step: 7 };
  const text = pyJsonRow(row);
  assert.equal(text, '{"train/grad_norm": NaN, "train/global_batch_size": 32, "train/lr-pg_0": 1e-06, "train/step": 4, "_step": 7}');
  assert.deepStrictEqual(parseHistoryRow(text), row);
});

test("one rollout batch writes manager, trainer rollout, N updates and perf rows; evals every 10 batches", () => {
  const rows = rowsOf({ seed: 1, firstRollout: 1, rollouts: 10 });
  assert.equal(rows.length, 10 * ROWS_PER_ROLLOUT + 1);
  assert.deepEqual(rows.slice(0, 5).map(classifyRow), ["rollout-manager", "trainer-rollout", "optimizer-update", "optimizer-update", "trainer-perf"]);
  assert.equal(classifyRow(rows[rows.length - 1]), "eval");
  assert.deepEqual(
    rows.map((r) => r._step),
    rows.map((_, i) => i),
  );
  // train/step = rollout * N + position
  assert.deepEqual([rows[2]["train/step"], rows[3]["train/step"]], [2, 3]);
});

test("generation is seeded and maxRows cuts exactly", () => {
  const a = rowsOf({ seed: 5, firstRollout: 1, rollouts: 30 });
  const b = rowsOf({ seed: 5, firstRollout: 1, rollouts: 30 });
  assert.deepStrictEqual(a, b);
  assert.equal(rowsOf({ seed: 5, firstRollout: 1, rollouts: rolloutsForRows(123), maxRows: 123 }).length, 123);
  assert.ok(rolloutsForRows(123) * ROWS_PER_ROLLOUT >= 123 - 12);
});

test("benchRunSet: consecutive rounds continue the rollout ids", () => {
  const set = benchRunSet(3, 20);
  assert.deepEqual(
    set.runs.map((r) => [r.round, r.spec.firstRollout]),
    [
      ["R0", 1],
      ["R1", 21],
      ["R2", 41],
    ],
  );
  assert.equal(new Set(set.runs.map((r) => r.runId)).size, 3);
});
