import { test } from "node:test";
import assert from "node:assert/strict";
import { rolloutRoundTable } from "../../lib/diagnostics/rollout-round-table";
import { SLIME_SPECS as METRICS } from "../fixtures/metric-keys";
import { buildAligned, collectingReporter, close } from "./aligned-builder";

const RL = METRICS.responseLen.key;
const TR = METRICS.truncated.key;
const RT = METRICS.rolloutTime.key;
const T = METRICS.actorTokPerS.key;

const aligned = buildAligned([
  {
    round: "R0",
    batches: [
      { rollout: { [RL]: 256, [TR]: 0.125, [RT]: 200, [T]: 13000 }, updates: [{}, {}] },
      { rollout: { [RL]: 320, [TR]: 0.25, [RT]: 250, [T]: 14000 }, updates: [{}, {}] },
    ],
  },
  {
    round: "R1",
    batches: [
      { rollout: { [RL]: NaN, [TR]: 0.5, [T]: 1000 } },
      { rollout: null, updates: [{}, {}] }, // updates whose rollout batch was not logged
    ],
  },
  { round: "R2", batches: [] },
]);

test("rolloutRoundTable: exact round means over rollout batches", () => {
  const r0 = rolloutRoundTable(aligned).rows[0];
  assert.deepEqual([r0.round, r0.runId, r0.rollouts], ["R0", "syn-r0", 2]);
  assert.deepEqual([r0.responseLen.mean, r0.truncated.mean, r0.rolloutTime.mean, r0.actorTokPerS.mean], [288, 0.1875, 225, 13500]);
});

test("rolloutRoundTable: NaN and missing keys are excluded and counted, an empty round is noted", () => {
  const rep = collectingReporter();
  const t = rolloutRoundTable(aligned, { reporter: rep });
  const [, r1, r2] = t.rows;
  assert.equal(r1.rollouts, 1, "only batches with a rollout record count");
  assert.deepEqual([r1.responseLen.mean, r1.responseLen.nonFinite], [null, 1]);
  assert.deepEqual([r1.rolloutTime.mean, r1.rolloutTime.note], [null, `round R1: none of the 1 rollout batches has ${RT}`]);
  assert.equal(r1.truncated.mean, 0.5);
  assert.deepEqual([r2.rollouts, r2.responseLen.mean, r2.responseLen.note], [0, null, "round R2 has no rollout batches"]);
  assert.deepEqual(rep.warnings, [`run syn-r1 rollout 3 (_step 8, 9): ${RL} is NaN; excluded from means`]);
  assert.ok(t.notes.includes("round R2 has no rollout batches"));
});

test("rolloutRoundTable: the all row over every batch", () => {
  const all = rolloutRoundTable(aligned).all;
  assert.deepEqual([all.round, all.runId, all.rollouts], ["all", null, 3]);
  assert.deepEqual([all.responseLen.mean, all.responseLen.n, all.responseLen.nonFinite], [288, 2, 1]);
  assert.ok(close(all.truncated.mean, 0.875 / 3));
  assert.deepEqual([all.rolloutTime.mean, all.rolloutTime.missing], [225, 1]);
  assert.ok(close(all.actorTokPerS.mean, 28000 / 3));
});

test("rolloutRoundTable: columns carry the schema entries", () => {
  const t = rolloutRoundTable(aligned);
  assert.deepEqual(
    t.columns.map((c) => c.metric!.key),
    [RL, TR, RT, T],
  );
  assert.equal(t.columns[1].metric!.isNot, METRICS.truncated.isNot);
});
