import { test } from "node:test";
import assert from "node:assert/strict";
import { policyRoundTable } from "../../lib/diagnostics/policy-round-table";
import { SLIME_SPECS as METRICS } from "../fixtures/metric-keys";
import { buildAligned, collectingReporter, close } from "./aligned-builder";

const E = METRICS.entropy.key;
const C = METRICS.clipfrac.key;
const G = METRICS.gradNorm.key;
const L = METRICS.logprobGap.key;
const K = METRICS.ppoKl.key;
const T = METRICS.actorTokPerS.key;

// R0: two full batches; R1: a batch without updates; R2: a NaN grad norm, a missing grad norm, no tokens/s.
const aligned = buildAligned([
  {
    round: "R0",
    batches: [
      {
        rollout: { [T]: 100 },
        updates: [
          { [E]: 0.5, [C]: 0.125, [G]: 1, [L]: 0.0625, [K]: 0 },
          { [E]: 0.25, [C]: 0.25, [G]: 2, [L]: 0.125, [K]: 0.5 },
        ],
      },
      {
        rollout: { [T]: 300 },
        updates: [
          { [E]: 0.125, [C]: 0, [G]: 3, [L]: 0.0625, [K]: 0 },
          { [E]: 0.125, [C]: 0.125, [G]: 4, [L]: 0.25, [K]: 0.25 },
        ],
      },
    ],
  },
  { round: "R1", batches: [{ rollout: { [T]: 1000 }, updates: [] }] },
  {
    round: "R2",
    batches: [
      {
        rollout: { [METRICS.responseLen.key]: 5 },
        updates: [
          { [E]: 0.75, [C]: 0.5, [G]: NaN, [L]: 0.5, [K]: 0 },
          { [E]: 0.25, [C]: 0.5, [L]: 0.5, [K]: 1 },
        ],
      },
    ],
  },
]);

test("policyRoundTable: exact round means over updates, tokens/s over rollout batches", () => {
  const t = policyRoundTable(aligned);
  const r0 = t.rows[0];
  assert.deepEqual([r0.round, r0.runId, r0.updates, r0.rollouts], ["R0", "syn-r0", 4, 2]);
  assert.equal(r0.entropy.mean, 0.25);
  assert.equal(r0.clipfrac.mean, 0.125);
  assert.equal(r0.gradNorm.mean, 2.5);
  assert.equal(r0.logprobGap.mean, 0.125);
  assert.equal(r0.actorTokPerS.mean, 200, "mean over the 2 rollout batches, not over the 4 updates");
  assert.equal(r0.actorTokPerS.n, 2);
  assert.deepEqual([r0.ppoKlFirst.mean, r0.ppoKlFirst.n, r0.ppoKlLater.mean, r0.ppoKlLater.n], [0, 2, 0.375, 2]);
  for (const c of t.columns) assert.equal(r0[c.field].note, null, `R0 ${c.field} has no note`);
});

test("policyRoundTable: a round without updates gives null means and says so", () => {
  const r1 = policyRoundTable(aligned).rows[1];
  assert.deepEqual([r1.updates, r1.rollouts], [0, 1]);
  for (const f of ["entropy", "clipfrac", "gradNorm", "logprobGap", "ppoKlFirst", "ppoKlLater"] as const) {
    assert.equal(r1[f].mean, null, `R1 ${f}`);
    assert.equal(r1[f].note, "round R1 has no optimizer updates", `R1 ${f} note`);
  }
  assert.equal(r1.actorTokPerS.mean, 1000, "the rollout batch still has its throughput");
});

test("policyRoundTable: NaN excluded and warned, missing keys counted, not zero", () => {
  const rep = collectingReporter();
  const t = policyRoundTable(aligned, { reporter: rep });
  const r2 = t.rows[2];
  assert.deepEqual(r2.gradNorm, {
    mean: null,
    n: 0,
    nonFinite: 1,
    missing: 1,
    note: `round R2: all 1 values of ${G} are non-finite (NaN or ±Infinity); no mean; 1 of 2 optimizer updates lack it`,
  });
  assert.equal(r2.entropy.mean, 0.5);
  assert.deepEqual([r2.ppoKlFirst.mean, r2.ppoKlLater.mean], [0, 1]);
  assert.equal(r2.actorTokPerS.mean, null);
  assert.equal(r2.actorTokPerS.note, `round R2: none of the 1 rollout batches has ${T}`);
  assert.deepEqual(rep.warnings, [`run syn-r2 train/step 8 (update 7, _step 12): ${G} is NaN; excluded from means`]);
  assert.ok(t.notes.includes("round R1 has no optimizer updates"));
});

test("policyRoundTable: the all row uses every record, not a mean of round means", () => {
  const all = policyRoundTable(aligned).all;
  assert.deepEqual([all.round, all.runId, all.updates, all.rollouts], ["all", null, 6, 4]);
  assert.ok(close(all.entropy.mean, 2 / 6), `entropy ${all.entropy.mean}; the mean of round means would be 0.375`);
  assert.equal(all.clipfrac.mean, 0.25);
  assert.deepEqual([all.gradNorm.mean, all.gradNorm.n, all.gradNorm.nonFinite, all.gradNorm.missing], [2.5, 4, 1, 1]);
  assert.equal(all.logprobGap.mean, 0.25);
  assert.deepEqual([all.ppoKlFirst.mean, all.ppoKlFirst.n], [0, 3]);
  assert.ok(close(all.ppoKlLater.mean, 1.75 / 3));
  assert.ok(close(all.actorTokPerS.mean, 1400 / 3));
  assert.deepEqual([all.actorTokPerS.n, all.actorTokPerS.missing], [3, 1]);
});

test("policyRoundTable: ppo_kl split with N = 4 (position 0 vs 1..3)", () => {
  const kl = (v: number[]) => ({ updates: v.map((x) => ({ [K]: x })) });
  const t = policyRoundTable(buildAligned([{ round: "R0", batches: [kl([0, 0.25, 0.5, 0.75]), kl([0, 0.75, 0.5, 0.25])] }], { n: 4 }));
  const r = t.rows[0];
  assert.deepEqual([r.ppoKlFirst.mean, r.ppoKlFirst.n, r.ppoKlLater.mean, r.ppoKlLater.n], [0, 2, 0.5, 6]);
});

test("policyRoundTable: with N = 1 there are no later updates, and the note says so", () => {
  const t = policyRoundTable(buildAligned([{ round: "R0", batches: [{ updates: [{ [K]: 0.5 }] }] }], { n: 1 }));
  assert.equal(t.rows[0].ppoKlFirst.mean, 0.5);
  assert.equal(t.rows[0].ppoKlLater.mean, null);
  assert.equal(t.rows[0].ppoKlLater.note, "round R0 has no later updates of a rollout batch (position >= 1)");
});

test("policyRoundTable: columns carry the schema entries", () => {
  const t = policyRoundTable(aligned);
  assert.deepEqual(
    t.columns.map((c) => [c.field, c.metric!.key]),
    [
      ["entropy", E],
      ["clipfrac", C],
      ["gradNorm", G],
      ["actorTokPerS", T],
      ["logprobGap", L],
      ["ppoKlFirst", K],
      ["ppoKlLater", K],
    ],
  );
  assert.equal(t.columns[0].metric!.isNot, METRICS.entropy.isNot);
  assert.equal(t.columns[3].over, "rollout batches");
});
