import assert from "node:assert/strict";
import { test } from "node:test";

import { simulateSlime, type SimRun, UPDATES_PER_ROLLOUT } from "../../tools/simulate-slime/simulate";

const valueAt = (run: SimRun, i: number, key: string) => run.rows[i].values.find((v) => v.key === key)?.value;

test("the simulation is a pure function of the seed", () => {
  const a = simulateSlime({ seed: 5 });
  const b = simulateSlime({ seed: 5 });
  assert.deepEqual(a, b);
  const c = simulateSlime({ seed: 6 });
  assert.notDeepEqual(
    a.runs.map((r) => r.runId),
    c.runs.map((r) => r.runId),
  );
});

test("run ids are synthetic and rounds are R0..R3", () => {
  const sim = simulateSlime();
  assert.deepEqual(
    sim.runs.map((r) => r.round),
    ["R0", "R1", "R2", "R3"],
  );
  for (const [i, run] of sim.runs.entries()) assert.match(run.runId, new RegExp(`^sim-r${i}-[a-z0-9]{4}$`));
  assert.equal(sim.entity, "sample-entity");
  assert.equal(sim.project, "slime-grpo-sample");
});

test("rows per batch come in slime's order with increasing wall time", () => {
  const sim = simulateSlime();
  assert.equal(UPDATES_PER_ROLLOUT, 2);
  for (const run of sim.runs) {
    assert.equal(run.rows.length, 100);
    const kinds = run.rows.slice(0, 5).map((r) => r.kind);
    assert.deepEqual(kinds, ["rollout-manager", "trainer-rollout", "optimizer-update", "optimizer-update", "trainer-perf"]);
    for (let i = 1; i < run.rows.length; i++) assert.ok(run.rows[i].timeMs > run.rows[i - 1].timeMs, `${run.runId} row ${i} time`);
    assert.ok(run.rows[0].timeMs > run.initMs);
    // The step key is always the last key of the dict, as slime adds it right before wandb.log.
    for (const row of run.rows) assert.match(row.values[row.values.length - 1].key, /^(rollout|train)\/step$/);
  }
});

test("calibration holds for another seed too (means are shifted onto the targets)", () => {
  const sim = simulateSlime({ seed: 7 });
  const entropy = ["0.18025", "0.15557", "0.14212", "0.13258"];
  const grad = ["2.18", "2.16", "1.38", "1.14"];
  sim.runs.forEach((run, r) => {
    const upd = run.rows.map((_, i) => i).filter((i) => run.rows[i].kind === "optimizer-update");
    const mean = (key: string) => upd.reduce((a, i) => a + valueAt(run, i, key)!, 0) / upd.length;
    assert.equal(mean("train/entropy_loss").toFixed(5), entropy[r]);
    assert.equal(mean("train/grad_norm").toFixed(2), grad[r]);
  });
});

test("a zero gradient norm comes with zero advantages: pg_loss 0, clip 0, and only equal-reward groups", () => {
  const sim = simulateSlime();
  let zeros = 0;
  for (const run of sim.runs) {
    run.rows.forEach((row, i) => {
      if (row.kind !== "optimizer-update" || valueAt(run, i, "train/grad_norm") !== 0) return;
      zeros++;
      assert.equal(valueAt(run, i, "train/pg_loss"), 0);
      assert.equal(valueAt(run, i, "train/loss"), 0);
      assert.equal(valueAt(run, i, "train/pg_clipfrac"), 0);
      const manager = run.rows.find((r) => r.kind === "rollout-manager" && r.rolloutId === row.rolloutId)!;
      const zeroStdGroups = manager.values.filter((v) => v.key.startsWith("rollout/zero_std/count_")).reduce((a, v) => a + v.value, 0);
      assert.ok(zeroStdGroups >= 4, `rollout ${row.rolloutId}: ${zeroStdGroups} equal-reward groups, an update has 4`);
    });
  }
  assert.equal(zeros, 8);
});
