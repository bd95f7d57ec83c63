import { test } from "node:test";
import assert from "node:assert/strict";
import { roundTableFrame, roundTableRows } from "../../lib/tables/round-table-frame";
import { SLIME_SPECS as METRICS } from "../fixtures/metric-keys";

const mean = (m: number | null, n = 2) => ({ mean: m, n, nonFinite: 0, missing: 0, note: m === null ? "round R1 has no optimizer updates" : null });
const table = {
  columns: [{ field: "entropy" as const, label: "entropy", metric: METRICS.entropy, over: "optimizer updates" }],
  rows: [
    { round: "R0", runId: "a", updates: 2, entropy: mean(0.25) },
    { round: "R1", runId: "b", updates: 0, entropy: mean(null, 0) },
  ],
  all: { round: "all", runId: null, updates: 2, entropy: mean(0.25) },
};

test("rows keep round order, put all last and keep a missing mean as null", () => {
  assert.deepEqual(roundTableRows(table, ["updates"]), [
    { round: "R0", run: "a", updates: 2, entropy: 0.25 },
    { round: "R1", run: "b", updates: 0, entropy: null },
    { round: "all", run: "", updates: 2, entropy: 0.25 },
  ]);
});

test("an unknown count column is refused by name", () => {
  assert.throws(() => roundTableRows(table, ["rollouts"]), /invalid count column: rollouts/);
});

test("the DataFrame has the same columns and keeps the missing mean null, not NaN", () => {
  const df = roundTableFrame(table, ["updates"]);
  assert.deepEqual(df.columns, ["round", "run", "updates", "entropy"]);
  assert.deepEqual(df.shape, [3, 4]);
  const col = df.column("entropy").values as number[];
  assert.equal(col[0], 0.25);
  assert.equal(col[1], null);
});

test("takes the policy table of the diagnostics as it is returned", async () => {
  const { policyRoundTable } = await import("../../lib/diagnostics/policy-round-table");
  const aligned = {
    mapping: { n: 1, r0: 1, formulas: { update: "", rollout: "", updateInRollout: "" }, runs: [] },
    rounds: ["R0"],
    runs: [{ runId: "a", round: "R0", state: "finished", historyEvents: 2 }],
    rollouts: [{ runId: "a", round: "R0", rollout: 1, historySteps: [0], values: { "perf/actor_train_tok_per_s": 100 } }],
    updates: [{ runId: "a", round: "R0", trainStep: 1, update: 1, rollout: 1, updateInRollout: 0, historyStep: 1, values: { "train/entropy_loss": 0.5 } }],
    evals: [],
    superseded: [],
    criticOnly: [],
    coverage: [],
    issues: [],
    notes: [],
    profile: { name: "slime", how: "given" as const, evidence: [] },
  };
  const rows = roundTableRows(policyRoundTable(aligned), ["updates", "rollouts"]);
  assert.equal(rows.length, 2);
  assert.equal(rows[0].entropy, 0.5);
  assert.equal(rows[0]["actor tokens/s"], 100);
  assert.equal(rows[1].round, "all");
  assert.equal(rows[0]["gradient norm"], null, "a key never logged stays null");
});
