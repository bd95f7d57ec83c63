/**
 * Precision on real slime traits (tools/simulate-slime/scenario.ts): critic rows merged into updates,
 * critic-only steps, --wandb-always-use-train-step, async order, restarts and a resume in place
 * (superseded records), N changed between rounds, sleep/wake timers. A healthy simulated run raises
 * no flag; one planted fault raises exactly its flag.
 */
import assert from "node:assert/strict";
import { test } from "node:test";

import { alignRuns } from "../../lib/align/align-runs";
import { runHealthChecks } from "../../lib/health/run-health-checks";
import { scenarioRunHistories, simulateScenario } from "../../tools/simulate-slime/scenario";
import { EVERYTHING_ONE_N as EVERYTHING, N_PER_ROUND } from "../fixtures/slime-scenarios";

for (const [name, opts] of [
  ["every trait at once", EVERYTHING],
  ["N per round", N_PER_ROUND],
] as const) {
  test(`real slime traits (${name}): every check applicable but those reading what slime does not log, none fires on a healthy run`, () => {
    const aligned = alignRuns(scenarioRunHistories(simulateScenario(opts)));
    assert.ok(aligned.superseded.length > 0, "the scenario has superseded records");
    const report = runHealthChecks(aligned);
    assert.deepEqual(
      report.results.filter((r) => r.status !== "no flags").map((r) => [r.check, r.status]),
      [
        ["learning_stalled", "not applicable"],
        ["zero_advantages", "not applicable"],
        ["kl_ref_drift", "not applicable"],
      ],
    );
    assert.deepEqual(report.flags, []);
  });
}

test("real slime traits: a NaN planted in a critic key is not read, one in an actor key is flagged once", () => {
  const aligned = alignRuns(scenarioRunHistories(simulateScenario(EVERYTHING)));
  const withCritic = aligned.updates.find((u) => Object.keys(u.values).some((k) => k.startsWith("train/critic-")))!;
  assert.ok(withCritic, "critic rows are merged into updates");
  const criticKey = Object.keys(withCritic.values).find((k) => k.startsWith("train/critic-"))!;
  withCritic.values[criticKey] = NaN;
  assert.deepEqual(runHealthChecks(aligned).flags, []);
  withCritic.values["train/pg_loss"] = NaN;
  assert.deepEqual(
    runHealthChecks(aligned).flags.map((f) => [f.check, f.round, f.first, f.key]),
    [["non_finite", withCritic.round, withCritic.update, "train/pg_loss"]],
  );
});
