import { test } from "node:test";
import assert from "node:assert/strict";
import { runOverview } from "../../lib/workspace/run-overview";
import type { HistoryRow } from "../../lib/types";

test("counts distinct step values and their ranges per run; an empty run has nulls", () => {
  const archive = {
    dir: "x",
    manifest: {} as never,
    runs: [
      {
        runId: "a",
        round: "R0",
        entity: "e",
        project: "p",
        state: "finished",
        rows: [
          { _step: 0, "rollout/step": 1, "rollout/response_len/mean": 10 },
          { _step: 1, "rollout/step": 1 },
          { _step: 2, "train/step": 2 },
          { _step: 3, "train/step": 3 },
          { _step: 4, "rollout/step": 1, "perf/step_time": 5 },
          { _step: 5, "rollout/step": 2 },
        ] as HistoryRow[],
      },
      { runId: "b", round: "R1", entity: "e", project: "p", state: "running", rows: [] },
    ],
  };
  assert.deepEqual(runOverview(archive), [
    {
      round: "R0",
      runId: "a",
      state: "finished",
      historyEvents: 6,
      rollouts: 2,
      updates: 2,
      firstStep: 0,
      lastStep: 5,
      firstRolloutStep: 1,
      lastRolloutStep: 2,
      firstTrainStep: 2,
      lastTrainStep: 3,
    },
    {
      round: "R1",
      runId: "b",
      state: "running",
      historyEvents: 0,
      rollouts: 0,
      updates: 0,
      firstStep: null,
      lastStep: null,
      firstRolloutStep: null,
      lastRolloutStep: null,
      firstTrainStep: null,
      lastTrainStep: null,
    },
  ]);
});
