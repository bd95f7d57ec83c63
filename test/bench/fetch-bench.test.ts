import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";

import { VENV_PYTHON } from "../../bench/child";
import { runFetchBench } from "../../bench/fetch-bench";

function hasWandb(): boolean {
  try {
    execFileSync(VENV_PYTHON, ["-c", "import importlib.util as u; assert u.find_spec('wandb')"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}
const SKIP = hasWandb() ? false : `${VENV_PYTHON} lacks wandb (pip install -r requirements-wandb.txt into .venv)`;

test("fetch benchmark, tiny: every side reads every row of every run from the local server", { skip: SKIP }, async () => {
  const r = await runFetchBench({ rowsPerRun: 200, runs: 2, reps: 1, sides: ["ours-freeze", "official", "ours-scan", "server-raw"] });
  assert.equal(r.rowsPerRun, 200);
  assert.equal(r.totalRows, 400);
  assert.equal(r.rowsAgree, true);
  assert.deepEqual(
    r.samples.map((s) => [s.side, s.rows]),
    [
      ["ours-freeze", [200, 200]],
      ["official", [200, 200]],
      ["ours-scan", [200, 200]],
      ["server-raw", [200, 200]],
    ],
  );
  assert.equal(r.wandbVersion, "0.21.0");
  assert.ok(r.frozenBytes !== null && r.frozenBytes > 400 * 100);
  for (const ratio of [r.ratioFreeze, r.ratioScan, r.ratioFreezeWall]) assert.ok(ratio !== null && ratio > 0);
  for (const s of r.samples) assert.ok(s.peakRssKb !== null && s.peakRssKb > 0);
});

test("fetch benchmark without the official side, with added page latency, still reads everything", async () => {
  const r = await runFetchBench({ rowsPerRun: 50, runs: 1, reps: 1, sides: ["ours-freeze", "ours-scan"], latencyMs: 5 });
  assert.equal(r.latencyMs, 5);
  assert.equal(r.rowsAgree, true);
  assert.equal(r.ratioFreeze, null);
  assert.deepEqual(r.samples.map((s) => s.rows), [[50], [50]]);
});
