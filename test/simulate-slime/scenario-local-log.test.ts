/**
 * Local logs of scenarios in each era's real format (docs/slime-logging.md, "Local logs"),
 * checked line by line on tiny scenarios.
 */
import assert from "node:assert/strict";
import { test } from "node:test";

import { simulateScenario } from "../../tools/simulate-slime/scenario";
import { scenarioLocalLog, scenarioLogStream } from "../../tools/simulate-slime/scenario-local-log";

const metricLines = (text: string) => text.split("\n").filter((l) => / (perf|rollout|step|critic-step|eval|passrate|multi_turn) \d+: \{/.test(l));

test("print era (2025-10): Ray prefix then the message, no [time] file:line prefix, on stdout", () => {
  const run = simulateScenario({ profile: "2025-10", n: 2, rounds: [{ rollouts: 1 }] }).runs[0];
  assert.equal(scenarioLogStream(run), "stdout");
  const lines = metricLines(scenarioLocalLog(run));
  assert.equal(lines.length, 5);
  assert.match(lines[0], /^\(RolloutManager pid=\d+\) perf 0: \{'rollout\/dynamic_filter|^\(RolloutManager pid=\d+\) perf 0: \{'rollout\/zero_std/);
  assert.match(lines[1], /^\(MegatronTrainRayActor pid=\d+\) rollout 0: \{'rollout\/response_lengths': /);
  assert.match(lines[2], /^\(MegatronTrainRayActor pid=\d+\) step 0: \{'train\/loss': .*'train\/step': 0\}$/);
  assert.match(lines[4], /^\(MegatronTrainRayActor pid=\d+\) perf 0: \{'perf\/sleep_time': .*'perf\/total_train_time': /);
  for (const l of lines) assert.ok(!/\] \S+\.py:\d+ - /.test(l), l.slice(0, 80));
});

test("logger era (2026-08): [time] file:line - prefix on stderr; perf/rollout/eval print the raw rollout id under always-use-train-step", () => {
  const run = simulateScenario({ n: 3, alwaysUseTrainStep: true, evalInterval: 2, rounds: [{ rollouts: 2 }] }).runs[0];
  assert.equal(scenarioLogStream(run), "stderr");
  const lines = metricLines(scenarioLocalLog(run));
  const head = lines.map((l) => /^\((\w+) pid=\d+\) \[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\] ([\w.]+:\d+) - ([\w-]+ \d+):/.exec(l)!.slice(1).join(" "));
  assert.deepEqual(head, [
    "RolloutManager rollout_metrics.py:247 eval 0",
    "RolloutManager rollout_metrics.py:268 perf 0",
    "MegatronTrainRayActor train_metric_utils.py:135 rollout 0",
    "MegatronTrainRayActor model.py:918 step 0",
    "MegatronTrainRayActor model.py:918 step 1",
    "MegatronTrainRayActor model.py:918 step 2",
    "MegatronTrainRayActor train_metric_utils.py:401 perf 0",
    "RolloutManager rollout_metrics.py:268 perf 1",
    "MegatronTrainRayActor train_metric_utils.py:135 rollout 1",
    "MegatronTrainRayActor model.py:918 step 3",
    "MegatronTrainRayActor model.py:918 step 4",
    "MegatronTrainRayActor model.py:918 step 5",
    "MegatronTrainRayActor train_metric_utils.py:401 perf 1",
    "RolloutManager rollout_metrics.py:247 eval 1",
  ]);
  // Dicts are printed before the step key is added, except step lines which hold 'train/step'.
  for (const l of lines) {
    if (/ step \d+:/.test(l)) assert.match(l, /'train\/step': \d+\}$/);
    else assert.ok(!l.includes("'rollout/step'") && !l.includes("'eval/step'"), l.slice(0, 80));
  }
  // The W&B rows of rollout 1 say rollout/step 3; the local line says 1.
  assert.equal(run.history[run.rows.find((x) => x.kind === "rollout-manager" && x.rolloutId === 1)!.historyStep]["rollout/step"], 3);
});

test("critic steps print as critic-step N with 'train/step'", () => {
  const run = simulateScenario({ n: 2, critic: true, rounds: [{ rollouts: 1 }] }).runs[0];
  const critic = metricLines(scenarioLocalLog(run)).filter((l) => l.includes(" critic-step "));
  assert.equal(critic.length, 2);
  assert.match(
    critic[0],
    new RegExp(
      `^\\(MegatronTrainRayActor pid=${run.pids.critic}\\) \\[.*\\] model\\.py:918 - critic-step 0: \\{'train/critic-value_loss': .*'train/step': 0\\}$`,
    ),
  );
});

test("ANSI colours, [repeated Nx across cluster] and tqdm bar text glued before step lines", () => {
  const run = simulateScenario({ n: 2, rounds: [{ rollouts: 1 }] }).runs[0];
  const text = scenarioLocalLog(run, { ansi: true, repeated: true, tqdm: "glued" });
  assert.ok(text.includes(`\x1b[36m(RolloutManager pid=${run.pids.rolloutManager})\x1b[0m [`));
  assert.match(text, / \[repeated 7x across cluster\]\n/);
  const steps = text.split("\n").filter((l) => l.includes(" - step "));
  assert.equal(steps.length, 2);
  assert.match(
    steps[0],
    /^\x1b\[33m\(MegatronTrainRayActor pid=\d+\)\x1b\[0m \ractor train: {2}50%\|█{5} {5}\| 1\/2 \[[^\]]*\]\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\] model\.py:918 - step 0: \{/,
  );
  assert.match(steps[1], /\ractor train: 100%\|█{10}\| 2\/2 .*\] model\.py:918 - step 1: \{/);
  const closed = scenarioLocalLog(run, { tqdm: "closed" })
    .split("\n")
    .filter((l) => l.includes(" - step "));
  assert.match(closed[0], /^\(MegatronTrainRayActor pid=\d+\) \r {79}\r\[/);
  const withIp = scenarioLocalLog(run, { trainerIp: "10.0.3.7" })
    .split("\n")
    .filter((l) => l.includes(" - step "));
  assert.match(withIp[0], /^\(MegatronTrainRayActor pid=\d+, ip=10\.0\.3\.7\) \[/);
  // Without options: no \r, no ESC.
  assert.ok(!/[\r\x1b]/.test(scenarioLocalLog(run)));
});

test("a run resumed in place logs both processes, the re-logged rollouts twice", () => {
  const run = simulateScenario({ n: 1, rounds: [{ rollouts: 4, resumeInPlace: { crashAfter: 2, relog: 1 } }] }).runs[0];
  const text = scenarioLocalLog(run);
  assert.deepEqual(
    metricLines(text)
      .filter((l) => l.includes("RolloutManager"))
      .map((l) => /perf (\d+):/.exec(l)![1]),
    ["0", "1", "2", "1", "2", "3"],
  );
  assert.match(text, /^wandb: Syncing run /);
  assert.match(text, /\nwandb: Resuming run /);
});
