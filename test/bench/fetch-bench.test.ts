import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";

import { CURRENT_PYTHON, VENV_PYTHON } from "../../bench/child";
import { runFetchBench, type FetchSide } from "../../bench/fetch-bench";

function hasWandb(python: string): boolean {
  try {
    execFileSync(python, ["-c", "import importlib.util as u; assert u.find_spec('wandb')"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}
const SKIP = hasWandb(VENV_PYTHON) ? false : `${VENV_PYTHON} lacks wandb (pip install -r requirements-wandb.txt into .venv)`;
const SKIP_CURRENT = hasWandb(CURRENT_PYTHON)
  ? false
  : `${CURRENT_PYTHON} lacks wandb (EXTRA_VENVS=".venv-wandb-current:requirements-wandb-current.txt" bash scripts/setup.sh)`;

test("fetch benchmark, tiny: every side reads every row of every run from the local server", { skip: SKIP }, async () => {
  const sides: FetchSide[] = ["ours-freeze", "official-legacy", "lean", "ours-freeze-parquet", "ours-scan", "server-raw"];
  const r = await runFetchBench({ rowsPerRun: 200, runs: 2, reps: 1, sides });
  assert.equal(r.rowsPerRun, 200);
  assert.equal(r.totalRows, 400);
  assert.equal(r.rowsAgree, true);
  assert.deepEqual(
    r.samples.map((s) => [s.side, s.rows]),
    sides.map((s) => [s, [200, 200]]),
  );
  assert.equal(r.legacyWandbVersion, "0.21.0");
  assert.equal(r.wandbVersion, null);
  assert.ok(r.frozenBytes !== null && r.frozenBytes > 400 * 100);
  assert.deepEqual(
    r.pairs!.map((p) => p.theirs),
    ["official-legacy", "lean"],
  );
  for (const p of r.pairs!) assert.ok(p.inProcess > 0 && p.wall > 0);
  for (const s of r.samples) assert.ok(s.peakRssKb !== null && s.peakRssKb > 0);
});

test("fetch benchmark, tiny: the current official client on both of its paths", { skip: SKIP_CURRENT }, async () => {
  const r = await runFetchBench({ rowsPerRun: 300, runs: 2, reps: 1, sides: ["ours-freeze", "official", "ours-freeze-parquet", "official-parquet"] });
  assert.equal(r.rowsAgree, true);
  assert.match(r.wandbVersion ?? "", /^0\.31\./);
  assert.deepEqual(
    r.pairs!.map((p) => p.theirs),
    ["official", "official-parquet"],
  );
  assert.ok(r.ratioFreeze !== null && r.ratioFreeze > 0);
});

test("fetch benchmark without the official side, with added page latency, still reads everything", async () => {
  const r = await runFetchBench({ rowsPerRun: 50, runs: 1, reps: 1, sides: ["ours-freeze", "ours-scan"], latencyMs: 5 });
  assert.equal(r.latencyMs, 5);
  assert.equal(r.rowsAgree, true);
  assert.equal(r.ratioFreeze, null);
  assert.deepEqual(
    r.samples.map((s) => s.rows),
    [[50], [50]],
  );
});
