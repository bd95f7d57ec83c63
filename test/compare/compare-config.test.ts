import { after, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

import { parseArmOption, readCompareConfig, runComparison } from "../../lib/compare/compare-config";
import { loadExperiment } from "../../lib/compare/experiment";
import { readExportCsv } from "../../lib/export/read-export-csv";

const ROOT = path.resolve(__dirname, "../..");
const work = mkdtempSync(path.join(os.tmpdir(), "compare-config-test-"));
after(() => rmSync(work, { recursive: true, force: true }));

test("an experiment's values are the summary.csv cells `npm run export` wrote, round rows and the `all` row", async () => {
  const e = await loadExperiment(path.join(ROOT, "data/wandb"), {}, "data/wandb");
  const { rows } = readExportCsv(readFileSync(path.join(ROOT, "exports/summary.csv"), "utf8"), { file: "summary.csv" });
  assert.deepEqual(e.rounds, ["R0", "R1", "R2", "R3"]);
  assert.equal(e.profile.name, "slime");
  assert.deepEqual(e.updatesPerBatch, [2]);
  for (const c of e.columns) {
    for (const row of rows) assert.equal(e.cells[c.name][row.round as string], row[c.name], `${c.name} ${row.round}`);
  }
  assert.equal(e.cells.reward_mean.all, rows[4].reward_mean);
  assert.equal(typeof e.cells.reward_mean.all, "number", "the sample logs rollout/raw_reward");
});

test("runComparison writes the four files, names every archive by its manifest sha256 and replaces a stale corridor.csv", async () => {
  const out = path.join(work, "out");
  const spec = {
    arms: [
      { name: "a", archives: ["data/wandb"] },
      { name: "b", archives: ["data/wandb"] },
    ],
    root: ROOT,
    reference: "data/wandb",
    seed: 5,
    resamples: 200,
    corridor: {},
  };
  const run = await runComparison(spec, out);
  assert.deepEqual(
    run.files.map((f) => f.name),
    ["compare.csv", "improvement.csv", "corridor.csv", "compare-manifest.json"],
  );
  const manifest = JSON.parse(readFileSync(path.join(out, "compare-manifest.json"), "utf8"));
  assert.equal(manifest.seed, 5);
  assert.equal(manifest.arms[0].archives[0].dir, "data/wandb", "paths as given, not machine paths");
  assert.match(manifest.arms[0].archives[0].manifestSha256, /^[0-9a-f]{64}$/);
  assert.equal(manifest.reference.dir, "data/wandb");
  // The same archive against itself: every value inside its corridor.
  assert.ok(!readFileSync(path.join(out, "corridor.csv"), "utf8").includes(",true\n"));
  await runComparison({ ...spec, reference: null }, out);
  assert.equal(existsSync(path.join(out, "corridor.csv")), false, "no reference: no stale corridor.csv");
});

test("a failing archive refuses the whole comparison, naming it, and leaves the out folder as it was", async () => {
  const out = path.join(work, "kept");
  const spec = { arms: [{ name: "a", archives: ["data/wandb", "no/such/archive"] }], root: ROOT, reference: null, seed: 0, resamples: 100, corridor: {} };
  await assert.rejects(runComparison(spec, out), /no\/such\/archive/);
  assert.equal(existsSync(out), false);
});

test("data/compare.json and --arm options are read, and refused by message when malformed", () => {
  const spec = readCompareConfig(
    JSON.stringify({ arms: [{ name: "base", archives: ["data/a", "data/b"] }], reference: "data/paper", seed: 3, corridor: { ppoKl: { rel: 0.3 } } }),
    "data/compare.json",
    "/ws/data",
  );
  assert.deepEqual(spec.arms, [{ name: "base", archives: ["data/a", "data/b"] }]);
  assert.equal(spec.root, "/ws/data");
  assert.equal(spec.reference, "data/paper");
  assert.equal(spec.seed, 3);
  assert.equal(spec.resamples, 50_000);
  assert.deepEqual(spec.corridor, { ppoKl: { rel: 0.3 } });
  const bad = (cfg: unknown) => () => readCompareConfig(JSON.stringify(cfg), "c.json", ".");
  assert.throws(bad({}), /invalid arms: undefined/);
  assert.throws(bad({ arms: [{ name: "x", archives: [] }] }), /invalid arms: x lists no archives/);
  assert.throws(bad({ arms: [{ name: "x", archives: ["a"] }], seed: -1 }), /invalid seed in c.json: -1/);
  assert.throws(bad({ arms: [{ name: "x", archives: ["a"] }], corridor: { kl: {} } }), /invalid corridor: kl is not a concept/);
  assert.throws(bad({ arms: [{ name: "x", archives: ["a"] }], corridor: { ppoKl: { rel: -1 } } }), /invalid corridor: ppoKl.rel = -1/);
  assert.throws(() => readCompareConfig("{", "c.json", "."), /invalid compare config: c.json is not JSON/);
  assert.deepEqual(parseArmOption("base=a/s1,a/s2"), { name: "base", archives: ["a/s1", "a/s2"] });
  assert.throws(() => parseArmOption("base"), /invalid --arm: base/);
  assert.throws(() => parseArmOption("base=a,,b"), /invalid --arm: base=a,,b/);
});
