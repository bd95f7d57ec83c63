/**
 * A TensorBoard log directory goes through every notebook like a W&B run: the real TRL run resumed as
 * a new run (test/fixtures/real-runs/trl/grpo-resume-new-run/, transformers' TensorBoard callback)
 * frozen from its event files, one run per round, then notebooks 01-06 executed headless.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { test } from "node:test";

import { fetchAndFreeze } from "../../lib/archive/fetch-and-freeze";

const ROOT = path.join(__dirname, "../..");
const PY = path.join(ROOT, ".venv/bin/python");
const CASE = path.join(ROOT, "test/fixtures/real-runs/trl/grpo-resume-new-run");

test("notebooks 01-06 run headless on a workspace frozen from TRL's TensorBoard files", {
  timeout: 600_000,
  skip: existsSync(PY) ? false : `no ${PY} (run scripts/setup.sh)`,
}, async (t) => {
  const tmp = mkdtempSync(path.join(tmpdir(), "tb-notebooks-"));
  t.after(() => rmSync(tmp, { recursive: true, force: true }));
  const data = path.join(tmp, "data");
  await fetchAndFreeze({
    entity: "",
    project: "",
    runs: [
      { runId: "grpo-R0", round: "R0", tensorboard: path.join(CASE, "R0-0-events.out.tfevents") },
      { runId: "grpo-R1", round: "R1", tensorboard: path.join(CASE, "R1-0-events.out.tfevents") },
    ],
    outDir: path.join(data, "wandb"),
    env: {},
    now: () => new Date("2026-12-01T00:00:00.000Z"),
  });
  const out = path.join(tmp, "out");
  const nbs = ["01-fetch", "02-alignment", "03-policy-diagnostics", "04-response-length-throughput", "05-export", "06-health"].map((n) =>
    path.join(ROOT, "notebooks", `${n}.ipynb`),
  );
  const env = { ...process.env, WORKSPACE_DATA: data, WORKSPACE_EXPORTS: path.join(tmp, "exports"), TZ: "UTC" };
  const run = spawnSync(PY, [path.join(ROOT, "scripts/run-notebooks.py"), "--jobs", "2", "--out", out, ...nbs], { cwd: ROOT, env, encoding: "utf8" });
  assert.equal(run.status, 0, `${run.stdout}\n${run.stderr}`);
  const text = (nb: string) => readFileSync(path.join(out, `${nb}.ipynb`), "utf8");
  assert.match(text("01-fetch"), /TensorBoard: R0-0-events\.out\.tfevents \(one row per step, no server\)/);
  assert.match(text("03-policy-diagnostics"), /framework profile: TRL GRPOTrainer \(detected/);
  assert.match(text("05-export"), /framework profile: .*\(detected\)/);
  assert.match(text("02-alignment"), /no TensorBoard archive in .*: W&B vs TensorBoard not cross-checked/);
});

test("notebook 02 shows the W&B vs TensorBoard verdict when data/tensorboard holds the same runs frozen from their event files", {
  timeout: 600_000,
  skip: existsSync(PY) ? false : `no ${PY} (run scripts/setup.sh)`,
}, async (t) => {
  const tmp = mkdtempSync(path.join(tmpdir(), "tb-crosscheck-"));
  t.after(() => rmSync(tmp, { recursive: true, force: true }));
  const data = path.join(tmp, "data");
  const now = () => new Date("2026-12-01T00:00:00.000Z");
  const rounds = [
    ["R0", "trlgrporesumene", "R0-0-events.out.tfevents"],
    ["R1", "trlgrporesumener1", "R1-0-events.out.tfevents"],
  ];
  const wandbRuns = rounds.map(([round, id]) => ({ runId: id, round, file: path.join(CASE, `${round}-run-${id}.wandb`) }));
  await fetchAndFreeze({ entity: "", project: "", runs: wandbRuns, outDir: path.join(data, "wandb"), env: {}, now });
  const tbRuns = rounds.map(([round, , tb]) => ({ runId: `tb-${round}`, round, tensorboard: path.join(CASE, tb) }));
  await fetchAndFreeze({ entity: "", project: "", runs: tbRuns, outDir: path.join(data, "tensorboard"), env: {}, now });
  const out = path.join(tmp, "out");
  const env = { ...process.env, WORKSPACE_DATA: data, WORKSPACE_EXPORTS: path.join(tmp, "exports"), TZ: "UTC" };
  const run = spawnSync(PY, [path.join(ROOT, "scripts/run-notebooks.py"), "--out", out, path.join(ROOT, "notebooks/02-alignment.ipynb")], {
    cwd: ROOT,
    env,
    encoding: "utf8",
  });
  assert.equal(run.status, 0, `${run.stdout}\n${run.stderr}`);
  assert.match(
    readFileSync(path.join(out, "02-alignment.ipynb"), "utf8"),
    /W&B vs TensorBoard \(.*tensorboard\): TensorBoard agrees with W&B on all \d+ fields present in both/,
  );
});
