import { test } from "node:test";
import assert from "node:assert/strict";
import { entropyChangePercent } from "../../lib/diagnostics/entropy-change";
import { policyRoundTable } from "../../lib/diagnostics/policy-round-table";
import { SLIME_SPECS as METRICS } from "../fixtures/metric-keys";
import { buildAligned } from "./aligned-builder";

const E = METRICS.entropy.key;
const round = (label: string, entropies: number[]) => ({ round: label, batches: [{ updates: entropies.map((x) => ({ [E]: x })) }] });

test("entropyChangePercent: 0.18025 -> 0.13258 is -26.45 %", () => {
  const t = policyRoundTable(buildAligned([round("R0", [0.18025]), round("R1", [0.15557]), round("R2", [0.14212]), round("R3", [0.13258])], { n: 1 }));
  const c = entropyChangePercent(t);
  assert.equal(c.metric.key, E);
  assert.deepEqual([c.from, c.to, c.note], [{ round: "R0", mean: 0.18025 }, { round: "R3", mean: 0.13258 }, null]);
  assert.ok(Math.abs((c.percent as number) - (100 * (0.13258 - 0.18025)) / 0.18025) <= 1e-12);
  assert.equal(Math.round((c.percent as number) * 100) / 100, -26.45);
});

test("entropyChangePercent: rise is positive", () => {
  const c = entropyChangePercent(policyRoundTable(buildAligned([round("A", [0.25]), round("B", [0.5])], { n: 1 })));
  assert.equal(c.percent, 100);
});

test("entropyChangePercent: strictly first and last round; a missing end gives null with a note", () => {
  const firstEmpty = buildAligned([{ round: "R0", batches: [] }, round("R1", [0.5]), round("R2", [0.25])], { n: 1 });
  assert.deepEqual(entropyChangePercent(policyRoundTable(firstEmpty)), {
    metric: METRICS.entropy,
    percent: null,
    from: { round: "R0", mean: null },
    to: { round: "R2", mean: 0.25 },
    note: `first round R0 has no ${E} mean`,
  });
  const lastEmpty = buildAligned([round("R0", [0.5]), { round: "R1", batches: [] }], { n: 1 });
  assert.equal(entropyChangePercent(policyRoundTable(lastEmpty)).note, `last round R1 has no ${E} mean`);
  const zero = buildAligned([round("R0", [0]), round("R1", [0.5])], { n: 1 });
  assert.equal(entropyChangePercent(policyRoundTable(zero)).note, `first round R0 has a ${E} mean of 0; no relative change`);
  const one = entropyChangePercent(policyRoundTable(buildAligned([round("R0", [0.5])], { n: 1 })));
  assert.deepEqual([one.percent, one.note], [null, "needs at least two rounds, the table has 1"]);
});
