/**
 * The framework CLI's options and the archive it writes: `loadArchive` verifies it and returns the
 * simulator's rows; runs.json names the runs in round order.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { after, test } from "node:test";

import { loadArchive } from "../../lib/archive/load-archive";
import { writeFrameworkData } from "../../tools/simulate-frameworks/archive-data";
import { cliOptions, parseRounds } from "../../tools/simulate-frameworks/cli-options";
import { simulateFramework } from "../../tools/simulate-frameworks/simulate";

const repoRoot = path.resolve(__dirname, "../..");
const root = fs.mkdtempSync(path.join(os.tmpdir(), "fw-cli-"));
after(() => fs.rmSync(root, { recursive: true, force: true }));

test("--rounds: steps per round, a trailing c for a crashed round; anything else refused", () => {
  assert.deepEqual(parseRounds("12,8c"), [
    { steps: 12, state: "finished" },
    { steps: 8, state: "crashed" },
  ]);
  assert.throws(() => parseRounds("12,"), /invalid --rounds: 12,/);
  assert.throws(() => parseRounds("0"), /invalid --rounds: 0/);
  assert.throws(() => parseRounds("3x"), /invalid --rounds: 3x/);
});

test("command-line options become FrameworkOptions; bad values are refused by name", () => {
  const { opts, outDir, truth } = cliOptions([
    "--framework",
    "trl",
    "--out-dir",
    "x",
    "--rounds",
    "20,20",
    "--restart-overlap",
    "5",
    "--options",
    '{"beta":0.04}',
  ]);
  assert.deepEqual(opts, {
    beta: 0.04,
    framework: "trl",
    rounds: [
      { steps: 20, state: "finished" },
      { steps: 20, state: "finished" },
    ],
    restartOverlap: 5,
  });
  assert.equal(outDir, path.resolve("x"));
  assert.equal(truth, null);
  assert.throws(() => cliOptions(["--framework", "verl"]), /invalid --out-dir: \(missing\)/);
  assert.throws(() => cliOptions(["--out-dir", "x", "--restart-overlap", "1.5"]), /invalid --restart-overlap: 1.5/);
  assert.throws(() => cliOptions(["--out-dir", "x", "--options", "[1]"]), /invalid --options: \[1\]/);
});

test("the written archive loads and verifies, rows equal the simulator's, and droppedKeys names the samples table", async () => {
  const sim = simulateFramework({ framework: "openrlhf", rounds: [{ steps: 4 }, { steps: 3 }], restartOverlap: 1, samplesTable: true });
  const dir = path.join(root, "orl");
  await writeFrameworkData(sim, dir);
  const archive = await loadArchive(path.join(dir, "wandb"));
  assert.deepEqual(
    archive.runs.map((r) => [r.round, r.runId, r.state]),
    sim.runs.map((r) => [r.round, r.runId, r.state]),
  );
  archive.runs.forEach((r, i) => assert.deepEqual(r.rows, sim.runs[i].history));
  assert.deepEqual(archive.manifest.runs[0].droppedKeys, { "train/generated_samples": 4 });
  assert.deepEqual(JSON.parse(fs.readFileSync(path.join(dir, "runs.json"), "utf8")), {
    entity: sim.entity,
    project: sim.project,
    runs: sim.runs.map((r) => ({ runId: r.runId, round: r.round })),
  });
});

test("npm run simulate:framework writes a verl folder and the truth; an unknown framework exits 1 naming it", () => {
  const dir = path.join(root, "verl");
  const truthFile = path.join(root, "verl-truth.json");
  const tsx = path.join(repoRoot, "node_modules", ".bin", "tsx");
  const cli = path.join(repoRoot, "tools", "simulate-frameworks", "cli.ts");
  execFileSync(tsx, [cli, "--framework", "verl", "--out-dir", dir, "--rounds", "5c,4", "--restart-overlap", "2", "--truth", truthFile], { stdio: "pipe" });
  const manifest = JSON.parse(fs.readFileSync(path.join(dir, "wandb", "manifest.json"), "utf8"));
  assert.deepEqual(
    manifest.runs.map((r: { state: string; lastStep: number }) => [r.state, r.lastStep]),
    [
      ["crashed", 5],
      ["finished", 7],
    ],
  );
  const truth = JSON.parse(fs.readFileSync(truthFile, "utf8"));
  assert.deepEqual(
    truth.runs.map((r: { ownedSteps: number[] }) => r.ownedSteps),
    [
      [1, 2, 3],
      [4, 5, 6, 7],
    ],
  );
  assert.throws(
    () => execFileSync(tsx, [cli, "--framework", "slime", "--out-dir", dir], { stdio: "pipe" }),
    (e: { status: number; stderr: Buffer }) => e.status === 1 && /invalid framework: "slime"/.test(e.stderr.toString()),
  );
});
