import { test } from "node:test";
import assert from "node:assert/strict";
import { ppoKlByPosition } from "../../lib/diagnostics/ppo-kl-by-position";
import { SLIME_SPECS as METRICS } from "../fixtures/metric-keys";
import { buildAligned, collectingReporter } from "./aligned-builder";

const K = METRICS.ppoKl.key;
const batch = (v: Array<number | undefined>) => ({ updates: v.map((x) => (x === undefined ? {} : { [K]: x })) });

test("ppoKlByPosition: N = 2, per round and overall", () => {
  const aligned = buildAligned([
    { round: "R0", batches: [batch([0, 0.5]), batch([0, 0.25])] },
    { round: "R1", batches: [batch([0.125, 1])] },
  ]);
  const p = ppoKlByPosition(aligned);
  assert.equal(p.metric.key, K);
  assert.deepEqual([p.n, p.positions], [2, [0, 1]]);
  assert.deepEqual(
    p.rows.map((r) => [r.round, r.updates, r.byPosition.map((m) => m.mean)]),
    [
      ["R0", 4, [0, 0.375]],
      ["R1", 2, [0.125, 1]],
    ],
  );
  assert.deepEqual(
    p.all.byPosition.map((m) => [m.mean, m.n]),
    [
      [0.125 / 3, 3],
      [1.75 / 3, 3],
    ],
    "sums are exact in binary",
  );
  assert.deepEqual(p.notes, []);
});

test("ppoKlByPosition: N = 4, missing and NaN values at one position", () => {
  const rep = collectingReporter();
  const aligned = buildAligned([{ round: "R0", batches: [batch([0, 0.25, 0.5, 0.75]), batch([0, 0.75, NaN, undefined])] }], { n: 4 });
  const r = ppoKlByPosition(aligned, { reporter: rep }).rows[0];
  assert.deepEqual(
    r.byPosition.map((m) => [m.mean, m.n, m.nonFinite, m.missing]),
    [
      [0, 2, 0, 0],
      [0.5, 2, 0, 0],
      [0.5, 1, 1, 0],
      [0.75, 1, 0, 1],
    ],
  );
  assert.equal(r.byPosition[3].note, `round R0: 1 of 2 updates at position 3 of a rollout batch lack ${K}`);
  assert.deepEqual(rep.warnings, [`run syn-r0 train/step 10 (update 7, _step 6): ${K} is NaN; excluded from means`]);
});

test("ppoKlByPosition: a round without updates, and positions outside 0..N-1", () => {
  const aligned = buildAligned([
    { round: "R0", batches: [batch([0, 0.5])] },
    { round: "R1", batches: [] },
  ]);
  const p = ppoKlByPosition(aligned);
  assert.deepEqual(
    p.rows[1].byPosition.map((m) => [m.mean, m.note]),
    [
      [null, "round R1 has no optimizer updates"],
      [null, "round R1 has no optimizer updates"],
    ],
  );
  aligned.updates[1].updateInRollout = 2;
  assert.throws(() => ppoKlByPosition(aligned), {
    message: "run syn-r0 train/step 3 (update 2, _step 1): position in batch 2 is outside 0..1 (N = 2)",
  });
  aligned.mapping.n = 0;
  assert.throws(() => ppoKlByPosition(aligned), { message: "invalid mapping.n: 0" });
});
