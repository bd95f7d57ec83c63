/**
 * Alignment of rows still packed (as loadArchive keeps a load worker's rows: lib/values/packed-run.ts)
 * reads them through lib/align/row-reader.ts without a view per row. It must give exactly what plain
 * rows give, on the paths that read single rows: conflicts, duplicate slots, unclassified rows,
 * critic rows, evals, and the error that names a row's _step.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { alignRuns } from "../../lib/align/align-runs";
import { rowReader } from "../../lib/align/row-reader";
import type { AlignedRuns, HistoryRow, RunHistory } from "../../lib/types";
import { keysOf } from "../../lib/values/compact-values";
import { packedRowsOf, rowCount } from "../../lib/values/packed-run";
import { compactRuns, packedRuns } from "../fixtures/compact-runs";
import { ids, runOf, slimeRows, trainerPerfRow } from "./slime-history";

/** The alignment as plain data: values objects (views or plain) listed key by key in order. */
function plain(a: AlignedRuns): unknown {
  const values = (v: Record<string, number>) => keysOf(v).map((k) => [k, v[k]]);
  return {
    ...a,
    updates: a.updates.map((u) => ({ ...u, values: values(u.values) })),
    rollouts: a.rollouts.map((r) => ({ ...r, values: values(r.values) })),
    evals: a.evals.map((e) => ({ ...e, values: values(e.values) })),
    criticOnly: a.criticOnly.map((u) => ({ ...u, values: values(u.values) })),
  };
}

function runsWithTraits(): RunHistory[] {
  const rows = slimeRows({ runId: "a", round: "R0", n: 2, rollouts: ids(1, 3) });
  // Rollout 2: manager and trainer rollout rows disagree on rollout/extra (a conflict).
  rows[5] = { ...rows[5], "rollout/extra": 0.25 };
  rows[6] = { ...rows[6], "rollout/extra": 0.5 };
  // A second perf row of rollout 3 right after the first (a re-log: the first is superseded), a row
  // of no slime family, an eval row, and critic rows of two train/steps.
  rows.push(trainerPerfRow(3), { "custom/foo": 1 });
  rows.splice(10, 0, { "eval/step": 2, "eval/score": 0.7 });
  rows.splice(3, 0, { "train/step": 2, "train/critic-loss": 0.5 });
  rows.splice(9, 0, { "train/step": 4, "train/critic-loss": 0.25, "train/critic-grad_norm": 1.5 });
  const b = slimeRows({ runId: "b", round: "R1", n: 2, rollouts: ids(3, 4) });
  return [runOf("a", "R0", rows), runOf("b", "R1", b)];
}

test("packed rows align exactly as plain and compact rows, issues and notes included", () => {
  const base = runsWithTraits();
  const fromPlain = alignRuns(base);
  const packedIn = packedRuns(base);
  const fromPacked = alignRuns(packedIn, { compact: true });
  assert.deepEqual(plain(fromPacked), plain(fromPlain));
  assert.deepEqual(plain(alignRuns(compactRuns(base), { compact: true })), plain(fromPlain));
  // The traits are there (the test would pass vacuously otherwise).
  assert.deepEqual([...new Set(fromPlain.issues.map((x) => x.kind))].sort(), ["conflicting-values", "unclassified-row"]);
  // Run a's first perf row of rollout 3 re-logged by itself; its other 5 rows of rollout 3
  // (manager, trainer rollout, 2 updates, the second perf row) replaced by run b, which starts there.
  assert.deepEqual(
    fromPlain.superseded.map((x) => [x.runId, x.byRunId, x.rows]),
    [
      ["a", "a", 1],
      ["a", "b", 5],
    ],
  );
  assert.equal(fromPlain.evals.length, 1);
  assert.ok(
    fromPlain.updates.some((u) => "train/critic-loss" in u.values),
    "critic rows merged",
  );
  assert.ok(
    packedIn.every((r) => packedRowsOf(r) !== null),
    "alignment never unpacked the rows",
  );
});

test("packed rows: a bad step key names run, round, _step and key as with plain rows", () => {
  const rows: HistoryRow[] = slimeRows({ runId: "a", round: "R0", n: 2, rollouts: ids(1, 2) });
  rows[2] = { ...rows[2], "train/step": 2.5 };
  const message = (runs: RunHistory[]) => {
    try {
      alignRuns(runs, { compact: true });
    } catch (e) {
      return (e as Error).message;
    }
    return "no error";
  };
  const expected = "run a (round R0): train/step = 2.5 at _step 2 is not a non-negative integer";
  assert.equal(message([runOf("a", "R0", rows)]), expected);
  assert.equal(message(packedRuns([runOf("a", "R0", rows)])), expected);
});

test("packed run: rows unpack once on first read, a row count does not unpack, assigning rows drops the packed form", () => {
  const base = [runOf("a", "R0", slimeRows({ runId: "a", round: "R0", n: 2, rollouts: ids(1, 2) }))];
  const [run] = packedRuns(base);
  assert.equal(rowCount(run), 10);
  assert.ok(packedRowsOf(run) !== null);
  const reader = rowReader(run);
  assert.equal(reader.length, 10);
  assert.equal(reader.value(2, "train/step"), 2);
  assert.equal(reader.value(2, "rollout/step"), undefined, "a key the row lacks is absent, not NaN");
  assert.deepEqual(keysOf(reader.row(2)), keysOf(base[0].rows[2]).slice());
  const rows = run.rows;
  assert.equal(rows.length, 10);
  assert.equal(run.rows, rows, "unpacked once, then kept");
  assert.equal(packedRowsOf(run), null, "read as rows: no longer packed");
  assert.deepEqual(
    rows.map((r) => keysOf(r).map((k) => [k, r[k]])),
    base[0].rows.map((r) => Object.keys(r).map((k) => [k, r[k]])),
  );
  const [other] = packedRuns(base);
  other.rows = [];
  assert.equal(packedRowsOf(other), null);
  assert.equal(rowCount(other), 0);
});

test("row reader shapes: rows of one key list share an id, plain rows have none", () => {
  const base = [runOf("a", "R0", slimeRows({ runId: "a", round: "R0", n: 2, rollouts: ids(1, 2) }))];
  for (const run of [compactRuns(base)[0], packedRuns(base)[0]]) {
    const r = rowReader(run);
    // Rows 2 and 3 are both updates (same keys); row 0 is the manager row.
    assert.equal(r.shape(2), r.shape(3));
    assert.notEqual(r.shape(0), r.shape(2));
  }
  const r = rowReader(base[0]);
  assert.equal(r.shape(2), -1);
});

test("rollout ids far apart (too sparse for a dense index) still get one record each", () => {
  // Two batches 5,000 ids apart: the id index falls back to a Map (span > 2 x rows + 1024).
  const rows = [...slimeRows({ runId: "a", round: "R0", n: 2, rollouts: [1] }), ...slimeRows({ runId: "a", round: "R0", n: 2, rollouts: [5001] })];
  for (const runs of [[runOf("a", "R0", rows)], packedRuns([runOf("a", "R0", rows)])]) {
    const a = alignRuns(runs, { compact: true });
    assert.deepEqual(
      a.rollouts.map((r) => [r.rollout, r.historySteps.length, r.values["rollout/step"]]),
      [
        [1, 3, 1],
        [5001, 3, 5001],
      ],
    );
    assert.deepEqual(
      a.updates.map((u) => [u.rollout, u.trainStep]),
      [
        [1, 2],
        [1, 3],
        [5001, 10002],
        [5001, 10003],
      ],
    );
  }
});

test("releaseRows frees the chunks packed rows own once their run is aligned, and never chunks other runs' rows are in", () => {
  const base = runsWithTraits();
  const expected = plain(alignRuns(base));
  const own = packedRuns(base, { own: true });
  const ownChunks = own.map((r) => packedRowsOf(r)!.chunks);
  assert.deepEqual(plain(alignRuns(own, { compact: true, releaseRows: true })), expected);
  assert.deepEqual(
    ownChunks.map((cs) => cs.map((c) => c.byteLength)),
    ownChunks.map((cs) => cs.map(() => 0)),
    "every run's own chunks detached",
  );
  assert.ok(own.every((r) => r.rows.length === 0 && packedRowsOf(r) === null));
  // Chunks shared across runs (no `own`): released rows are dropped, their chunks left to the collector.
  const shared = packedRuns(base);
  const sharedChunks = shared.flatMap((r) => packedRowsOf(r)!.chunks);
  assert.deepEqual(plain(alignRuns(shared, { compact: true, releaseRows: true })), expected);
  assert.ok(
    sharedChunks.every((c) => c.byteLength > 0),
    "no shared chunk detached",
  );
});
