import { test } from "node:test";
import assert from "node:assert/strict";
import { MeanAccumulator, roundMeans, collectNotes } from "../../lib/diagnostics/round-mean";
import { buildAligned, collectingReporter, close } from "./aligned-builder";

const NOUN = "optimizer updates";

test("MeanAccumulator: mean over present finite values; NaN/Infinity excluded and counted; absent counted", () => {
  const acc = new MeanAccumulator();
  const flags = [0.25, 0.5, undefined, NaN, 1.5, Infinity, -Infinity].map((v) => acc.add(v));
  assert.deepEqual(flags, [true, true, true, false, true, false, false], "add returns false only for non-finite");
  assert.deepEqual(acc.result("R0", NOUN, "k"), {
    mean: 0.75,
    n: 3,
    nonFinite: 3,
    missing: 1,
    note: "round R0: 3 non-finite values of k excluded; 1 of 7 optimizer updates lack k",
  });
});

test("MeanAccumulator: every value finite and present gives no note", () => {
  const acc = new MeanAccumulator();
  for (const v of [1, 2, 4, 5]) acc.add(v);
  assert.deepEqual(acc.result("R1", NOUN, "k"), { mean: 3, n: 4, nonFinite: 0, missing: 0, note: null });
});

test("MeanAccumulator: empty groups and groups without usable values give null with a note, never 0", () => {
  const cases: [Array<number | undefined>, string | null, string][] = [
    [[], "R2", "round R2 has no optimizer updates"],
    [[], null, "no round has optimizer updates"],
    [[undefined, undefined, undefined], "R1", "round R1: none of the 3 optimizer updates has k"],
    [[NaN, Infinity], "R1", "round R1: all 2 values of k are non-finite (NaN or ±Infinity); no mean"],
    [[NaN, undefined], null, "all rounds: all 1 values of k are non-finite (NaN or ±Infinity); no mean; 1 of 2 optimizer updates lack it"],
  ];
  for (const [values, round, note] of cases) {
    const acc = new MeanAccumulator();
    values.forEach((v) => acc.add(v));
    const r = acc.result(round, NOUN, "k");
    assert.equal(r.mean, null, `mean of ${JSON.stringify(values)}`);
    assert.equal(r.n, 0);
    assert.equal(r.note, note);
  }
});

test("MeanAccumulator: compensated sum keeps 1 in 1e16 + 1 - 1e16", () => {
  const acc = new MeanAccumulator();
  for (const v of [1e16, 1, -1e16]) acc.add(v);
  assert.equal(acc.result("R0", NOUN, "k").mean, 1 / 3, "naive summation would give 0");
});

test("roundMeans: per round over records with the key, all row over all records (not a mean of means)", () => {
  const aligned = buildAligned([
    { round: "R0", batches: [{ updates: [{ "train/loss": 1 }, { "train/loss": 2 }] }, { updates: [{ "train/loss": 3 }, {}] }] },
    { round: "R1", batches: [{ updates: [{ "train/loss": 10 }, { "train/loss": NaN }] }] },
    { round: "R2", batches: [{ rollout: { "rollout/x": 1 } }] },
  ]);
  const rep = collectingReporter();
  const m = roundMeans(aligned, "train/loss", { reporter: rep });
  assert.equal(m.grain, "update", "train/loss is an update metric in the schema");
  assert.equal(m.metric?.label, "loss");
  assert.deepEqual(
    m.rows.map((r) => [r.round, r.runId, r.records, r.value.mean, r.value.n]),
    [
      ["R0", "syn-r0", 4, 2, 3],
      ["R1", "syn-r1", 2, 10, 1],
      ["R2", "syn-r2", 0, null, 0],
    ],
  );
  assert.equal(m.all.records, 6);
  assert.equal(m.all.value.mean, 4, "(1+2+3+10)/4, not (2+10)/2");
  assert.equal(m.rows[2].value.note, "round R2 has no optimizer updates");
  assert.deepEqual(rep.warnings, ["run syn-r1 train/step 7 (update 6, _step 5): train/loss is NaN; excluded from means"]);
  assert.deepEqual(m.notes, [
    "round R0: 1 of 4 optimizer updates lack train/loss",
    "round R1: 1 non-finite value of train/loss excluded",
    "round R2 has no optimizer updates",
    "all rounds: 1 non-finite value of train/loss excluded; 1 of 6 optimizer updates lack train/loss",
  ]);
});

test("roundMeans: grain from the key family for keys the schema does not name; error for unknown families", () => {
  const aligned = buildAligned([{ round: "R0", batches: [{ rollout: { "rollout/unnamed_score": 0.5 } }, { rollout: { "rollout/unnamed_score": 1 } }] }]);
  const m = roundMeans(aligned, "rollout/unnamed_score");
  assert.equal(m.grain, "rollout");
  assert.equal(m.metric, undefined);
  assert.ok(close(m.rows[0].value.mean, 0.75));
  assert.throws(() => roundMeans(aligned, "custom_metric"), {
    message: 'invalid grain: undefined (key custom_metric has no known family; pass grain "update" or "rollout")',
  });
  assert.equal(roundMeans(aligned, "custom_metric", { grain: "rollout" }).rows[0].value.note, "round R0: none of the 2 rollout batches has custom_metric");
});

test("roundMeans: a record whose round is not in aligned.rounds is an error naming run and step", () => {
  const aligned = buildAligned([{ round: "R0", batches: [{ updates: [{ "train/loss": 1 }] }] }]);
  aligned.updates[0].round = "R9";
  assert.throws(() => roundMeans(aligned, "train/loss"), {
    message: 'run syn-r0 train/step 2 (update 1, _step 0): round "R9" is not in aligned.rounds (R0)',
  });
});

test("collectNotes: unique, in order", () => {
  const r = (note: string | null) => ({ mean: null, n: 0, nonFinite: 0, missing: 0, note });
  assert.deepEqual(collectNotes([r("a"), r(null), r("b"), r("a")]), ["a", "b"]);
});
