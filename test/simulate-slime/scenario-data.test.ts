/** A scenario written as a data folder loads with lib/archive exactly as the in-memory rows. */
import assert from "node:assert/strict";
import { promises as fsp } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { test } from "node:test";

import { loadArchive } from "../../lib/archive/load-archive";
import { readRunsConfig } from "../../lib/archive/runs-config";
import { scenarioRunHistories, simulateScenario } from "../../tools/simulate-slime/scenario";
import { writeScenarioData } from "../../tools/simulate-slime/scenario-data";

test("writeScenarioData: loadArchive verifies the hashes and returns the scenario's rows; runs.json and local logs beside", async () => {
  const s = simulateScenario({ n: 2, critic: true, evalInterval: 1, restartOverlap: 1, rounds: [{ rollouts: 3, crash: true }, { rollouts: 3 }] });
  const tmp = await fsp.mkdtemp(path.join(os.tmpdir(), "scenario-data-"));
  try {
    await writeScenarioData(s, tmp);
    const archive = await loadArchive(path.join(tmp, "wandb"));
    assert.deepEqual(archive.runs, scenarioRunHistories(s));
    assert.deepEqual(
      archive.manifest.runs.map((r) => [r.state, r.historyEvents, r.lastStep]),
      s.runs.map((r) => [r.state, r.history.length, r.history.length - 1]),
    );
    assert.deepEqual(readRunsConfig(path.join(tmp, "runs.json")).runs, [
      { runId: s.runs[0].runId, round: "R0" },
      { runId: s.runs[1].runId, round: "R1" },
    ]);
    const log = await fsp.readFile(path.join(tmp, "local", `${s.runs[1].runId}.log`), "utf8");
    assert.match(log, / - critic-step \d+: \{/);
  } finally {
    await fsp.rm(tmp, { recursive: true, force: true });
  }
});
