import { test } from "node:test";
import assert from "node:assert/strict";
import { timeBreakdown } from "../../lib/diagnostics/time-breakdown";
import { SLIME_SPECS as METRICS } from "../fixtures/metric-keys";
import { buildAligned, collectingReporter, close } from "./aligned-builder";

const RT = METRICS.rolloutTime.key;
const AT = "perf/actor_train_time";
const TT = "perf/train_time";
const TW = "perf/train_wait_time";
const other = { [METRICS.actorTokPerS.key]: 13500, [METRICS.responseLen.key]: 280 }; // not timers: ignored

const aligned = buildAligned([
  {
    round: "R0",
    batches: [{ rollout: { [RT]: 100, [TW]: 10, [TT]: 50, [AT]: 40, ...other } }, { rollout: { [RT]: 120, [TW]: 30, [TT]: 70, [AT]: 60, ...other } }],
  },
  {
    round: "R1",
    batches: [
      { rollout: { [RT]: 90, [TW]: 5, [TT]: 35, [AT]: 25 } },
      { rollout: { [RT]: 110, ...other } }, // the trainer perf row of rollout 4 was never logged
      { rollout: { [RT]: 100, [TW]: 5, [TT]: 45, [AT]: NaN } },
    ],
  },
  { round: "R2", batches: [{ rollout: { [RT]: 80, [TW]: 1, [TT]: 9 } }] }, // one timer absent
]);

const means = (r: { entries: { key: string; time: { mean: number | null } }[] }) => r.entries.map((e) => [e.key, e.time.mean]);

test("timeBreakdown: every perf/*_time key, sorted, mean per round over batches that logged it", () => {
  const rep = collectingReporter();
  const b = timeBreakdown(aligned, { reporter: rep });
  assert.deepEqual(b.keys, [AT, RT, TT, TW]);
  assert.deepEqual(means(b.rows[0]), [
    [AT, 50],
    [RT, 110],
    [TT, 60],
    [TW, 20],
  ]);
  assert.deepEqual(means(b.rows[1]), [
    [AT, 25],
    [RT, 100],
    [TT, 40],
    [TW, 5],
  ]);
  assert.deepEqual(means(b.rows[2]), [
    [AT, null],
    [RT, 80],
    [TT, 9],
    [TW, 1],
  ]);
  const at1 = b.rows[1].entries[0].time;
  assert.deepEqual([at1.n, at1.nonFinite, at1.missing], [1, 1, 1], "the missing batch is not a 0");
  assert.equal(b.rows[1].entries[2].time.note, `round R1: 1 of 3 rollout batches lack ${TT}`);
  assert.equal(b.rows[2].entries[0].time.note, `round R2: none of the 1 rollout batches has ${AT}`);
  assert.equal(b.rows[0].entries[1].metric, METRICS.rolloutTime, "schema entry where the schema has one");
  assert.equal(b.rows[0].entries[0].metric, undefined);
  assert.deepEqual(rep.warnings, [`run syn-r1 rollout 5 (_step 8, 9): ${AT} is NaN; excluded from means`]);
});

test("timeBreakdown: total (sum of timer means) and shares; no total when a timer has no mean", () => {
  const b = timeBreakdown(aligned);
  assert.deepEqual(b.rows[0].total, { basis: "sum", value: 240, note: null });
  assert.deepEqual(
    b.rows[0].entries.map((e) => e.share),
    [50 / 240, 110 / 240, 0.25, 20 / 240],
  );
  assert.equal(b.rows[1].total.value, 170);
  assert.deepEqual(b.rows[2].total, {
    basis: "sum",
    value: null,
    note: `round R2: no total (sum) because ${AT} has no mean; no shares`,
  });
  assert.deepEqual(
    b.rows[2].entries.map((e) => e.share),
    [null, null, null, null],
  );
  assert.deepEqual(means(b.all), [
    [AT, 125 / 3],
    [RT, 100],
    [TT, 41.8],
    [TW, 10.2],
  ]);
  assert.ok(close(b.all.total.value, 125 / 3 + 100 + 41.8 + 10.2));
  assert.deepEqual([b.all.round, b.all.runId, b.all.rollouts], ["all", null, 6]);
});

test("timeBreakdown: rollouts without the trainer perf row are listed; one absent timer is not that", () => {
  const b = timeBreakdown(aligned);
  assert.deepEqual(b.missingTrainerPerf, [{ runId: "syn-r1", round: "R1", rollout: 4, historySteps: [6, 7], missingKeys: [AT, TT, TW] }]);
  assert.ok(b.notes.includes("round R1: 1 of 3 rollout batches lack the trainer perf row (rollout 4)"));
  assert.equal(b.rows[2].entries[0].time.missing, 1, "R2's absent actor_train_time shows in its entry");
});

test("timeBreakdown: a timer as total gives shares of that timer", () => {
  const b = timeBreakdown(aligned, { total: TT });
  assert.deepEqual(b.rows[0].total, { basis: TT, value: 60, note: null });
  assert.deepEqual(
    b.rows[0].entries.map((e) => e.share),
    [50 / 60, 110 / 60, 1, 20 / 60],
  );
  assert.deepEqual(
    b.rows[2].entries.map((e) => e.share),
    [null, 80 / 9, 1, 1 / 9],
  );
});

test("timeBreakdown: invalid total options", () => {
  assert.throws(() => timeBreakdown(aligned, { total: "perf/actor_train_tok_per_s" }), {
    message: "invalid total: perf/actor_train_tok_per_s",
  });
  assert.throws(() => timeBreakdown(aligned, { total: "perf/nope_time" }), {
    message: `invalid total: perf/nope_time (no rollout batch has it; timers found: ${AT}, ${RT}, ${TT}, ${TW})`,
  });
});

test("timeBreakdown: no timers at all", () => {
  const b = timeBreakdown(buildAligned([{ round: "R0", batches: [{ rollout: { ...other } }] }]));
  assert.deepEqual([b.keys, b.missingTrainerPerf, b.rows[0].entries], [[], [], []]);
  assert.equal(b.rows[0].total.note, "round R0: no timers found");
  assert.ok(b.notes.includes(`no rollout batch has a trainer timer (a perf/*_time key other than ${RT})`));
});
