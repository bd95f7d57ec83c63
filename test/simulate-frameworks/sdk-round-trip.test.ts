/**
 * Each framework's 2-round restart-overlap scenario logged through the real @wandb/sdk into the local
 * test server and frozen back with the workspace's own fetchAndFreeze: the frozen files are byte for
 * byte the simulator's frozen rows (every key compared, `_step`, `_runtime` and `_timestamp` included:
 * the SDK stamps the latter two under the simulator's fake clock), and equal the CLI's archive files.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { after, before, test } from "node:test";

import { fetchAndFreeze } from "../../lib/archive/fetch-and-freeze";
import { parseFrozenRow } from "../../lib/values/frozen-row";
import { loadArchive } from "../../lib/archive/load-archive";
import { frameworkHistoryText, frameworkManifest } from "../../tools/simulate-frameworks/archive-data";
import { logFrameworkRunsWithSdk } from "../../tools/simulate-frameworks/log-with-sdk";
import { simulateFramework } from "../../tools/simulate-frameworks/simulate";
import type { FrameworkOptions } from "../../tools/simulate-frameworks/types";
import { startWandbTestServer, type WandbTestServer } from "../../tools/wandb-test-server/server";

let server: WandbTestServer;
const root = fs.mkdtempSync(path.join(os.tmpdir(), "fw-sdk-"));

before(async () => {
  server = await startWandbTestServer({});
});
after(async () => {
  await server.close();
  fs.rmSync(root, { recursive: true, force: true });
});

const CASES: FrameworkOptions[] = [
  { framework: "verl", rounds: [{ steps: 8, state: "crashed" }, { steps: 6 }], restartOverlap: 3, testFreq: 3 },
  { framework: "openrlhf", rounds: [{ steps: 8 }, { steps: 6 }], restartOverlap: 2, samplesTable: true, evalSteps: 4 },
  { framework: "trl", rounds: [{ steps: 40 }, { steps: 35 }], restartOverlap: 15, loggingSteps: 5, evalSteps: 10, profiling: true, stepSync: true },
];

for (const opts of CASES) {
  test(`${opts.framework}: rows logged through @wandb/sdk and frozen by fetchAndFreeze equal simulateFramework's rows`, async () => {
    const sim = simulateFramework({ ...opts, project: `rt-${opts.framework}` });
    await logFrameworkRunsWithSdk(sim.runs, { baseUrl: server.url, apiKey: server.apiKey, entity: sim.entity, project: sim.project });
    const outDir = path.join(root, opts.framework, "wandb");
    const manifest = await fetchAndFreeze({
      entity: sim.entity,
      project: sim.project,
      runs: sim.runs.map((r) => ({ runId: r.runId, round: r.round })),
      outDir,
      baseUrl: server.url,
      apiKey: server.apiKey,
      env: {},
      now: () => new Date("2026-07-01T00:00:00.000Z"),
    });
    const expected = frameworkManifest(sim);
    for (let i = 0; i < sim.runs.length; i++) {
      const run = sim.runs[i];
      const text = fs.readFileSync(path.join(outDir, "history", `${run.runId}.jsonl`), "utf8");
      const lines = text.split("\n");
      lines.pop();
      assert.equal(lines.length, run.history.length, `run ${run.runId}: rows`);
      lines.forEach((line, k) => {
        const got = parseFrozenRow(line);
        const want = run.history[k];
        assert.deepEqual(Object.keys(got).sort(), Object.keys(want).sort(), `run ${run.runId} row ${k}: keys`);
        for (const key of Object.keys(want)) assert.ok(Object.is(got[key], want[key]), `run ${run.runId} row ${k} key ${key}: ${got[key]} vs ${want[key]}`);
      });
      assert.equal(text, frameworkHistoryText(run), `run ${run.runId}: bytes equal the CLI archive's`);
      const m = manifest.runs[i];
      assert.equal(m.sha256, expected.runs[i].sha256);
      assert.equal(m.historyEvents, expected.runs[i].historyEvents);
      assert.equal(m.lastStep, expected.runs[i].lastStep);
      assert.deepEqual(m.droppedKeys, expected.runs[i].droppedKeys);
      assert.equal(m.createdAt, expected.runs[i].createdAt);
      // A crashed run ends with exit code 1: the test server calls that "failed" (W&B says "crashed" only after lost heartbeats).
      assert.equal(m.state, run.state === "crashed" ? "failed" : "finished");
    }
    const archive = await loadArchive(outDir);
    assert.equal(archive.runs.length, sim.runs.length);
  });
}

test("verl: the SDK keeps explicit steps, so _step is the global step and the restart run's rows start at its checkpoint", () => {
  const sim = simulateFramework(CASES[0]);
  assert.deepEqual(
    sim.runs[1].history.map((h) => h._step),
    [5, 6, 7, 8, 9, 10, 11],
  );
});

test("openrlhf: the samples-table rows are logged, then dropped by the freeze and counted in droppedKeys", () => {
  const sim = simulateFramework(CASES[1]);
  assert.deepEqual(frameworkManifest(sim).runs[0].droppedKeys, { "train/generated_samples": 8 });
  assert.deepEqual(Object.keys(sim.runs[0].history[0]).sort(), ["_runtime", "_step", "_timestamp"]);
});
