import { test } from "node:test";
import assert from "node:assert/strict";
import { logprobGap } from "../../lib/diagnostics/logprob-gap";
import { METRICS } from "../../lib/schema/slime-metrics";
import { buildAligned, collectingReporter } from "./aligned-builder";

const L = METRICS.logprobAbsDiff.key;

test("logprobGap: mean of the logged absolute difference per round and overall", () => {
  const rep = collectingReporter();
  const aligned = buildAligned([
    { round: "R0", batches: [{ updates: [{ [L]: 0.0078125 }, { [L]: 0.015625 }] }] },
    { round: "R1", batches: [{ updates: [{ [L]: 0.0078125 }, { [L]: Infinity }] }, { updates: [{}] }] },
    { round: "R2", batches: [] },
  ]);
  const g = logprobGap(aligned, { reporter: rep });
  assert.equal(g.metric.key, L);
  assert.deepEqual(
    g.rows.map((r) => [r.round, r.runId, r.updates, r.gap.mean, r.gap.n]),
    [
      ["R0", "syn-r0", 2, 0.01171875, 2],
      ["R1", "syn-r1", 3, 0.0078125, 1],
      ["R2", "syn-r2", 0, null, 0],
    ],
  );
  assert.deepEqual([g.all.round, g.all.updates, g.all.gap.mean, g.all.gap.n], ["all", 5, 0.03125 / 3, 3]);
  assert.equal(g.rows[1].gap.note, `round R1: 1 non-finite value of ${L} excluded; 1 of 3 optimizer updates lack ${L}`);
  assert.equal(g.rows[2].gap.note, "round R2 has no optimizer updates");
  assert.deepEqual(rep.warnings, [`run syn-r1 train/step 5 (update 4, _step 3): ${L} is Infinity; excluded from means`]);
});
