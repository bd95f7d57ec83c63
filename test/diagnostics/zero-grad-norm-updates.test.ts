import { test } from "node:test";
import assert from "node:assert/strict";
import { zeroGradNormUpdates } from "../../lib/diagnostics/zero-grad-norm-updates";
import { SLIME_SPECS as METRICS } from "../fixtures/metric-keys";
import { buildAligned } from "./aligned-builder";

const G = METRICS.gradNorm.key;
const batch = (a: number | undefined, b: number | undefined) => ({
  updates: [a, b].map((x) => (x === undefined ? {} : { [G]: x })),
});

test("zeroGradNormUpdates: exact zeros (and -0) only, sorted update numbers, per round", () => {
  const aligned = buildAligned([
    { round: "R0", batches: [batch(1.5, 0), batch(1e-300, -0)] },
    { round: "R1", batches: [batch(0, NaN), batch(undefined, 0)] },
    { round: "R2", batches: [] },
  ]);
  aligned.updates.reverse(); // record order must not matter
  const z = zeroGradNormUpdates(aligned);
  assert.equal(z.metric.key, G);
  assert.deepEqual(z.updates, [2, 4, 5, 8]);
  assert.deepEqual([z.checked, z.missing, z.nonFinite, z.note], [6, 1, 1, null]);
  assert.deepEqual(
    z.rows.map((r) => [r.round, r.updates, r.checked, r.missing, r.nonFinite, r.note]),
    [
      ["R0", [2, 4], 4, 0, 0, null],
      ["R1", [5, 8], 2, 1, 1, null],
      ["R2", [], 0, 0, 0, "round R2: no optimizer updates"],
    ],
  );
});

test("zeroGradNormUpdates: a round where no update has a finite grad norm says so", () => {
  const z = zeroGradNormUpdates(buildAligned([{ round: "R0", batches: [batch(undefined, NaN)] }]));
  assert.deepEqual(z.updates, []);
  assert.equal(z.rows[0].note, `round R0: no update has a finite ${G} (1 lack it, 1 non-finite)`);
  assert.equal(z.note, `all rounds: no update has a finite ${G} (1 lack it, 1 non-finite)`);
});
