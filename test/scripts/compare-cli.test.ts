import { after, test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

const ROOT = path.resolve(__dirname, "../..");
const work = mkdtempSync(path.join(os.tmpdir(), "compare-cli-test-"));
after(() => rmSync(work, { recursive: true, force: true }));

const cli = (...args: string[]) =>
  spawnSync(process.execPath, ["--import", "tsx", path.join(ROOT, "scripts/compare.ts"), ...args], { cwd: ROOT, encoding: "utf8" });

test("npm run compare: option errors exit 2 naming the option, with the usage", () => {
  const r = cli("--arm", "base", "--out", path.join(work, "x"));
  assert.equal(r.status, 2);
  assert.match(r.stderr, /compare: invalid --arm: base \(NAME=DIR\[,DIR\.\.\.\]\)/);
  assert.match(r.stderr, /usage: npm run compare/);
  const noOut = cli("--arm", "a=data/wandb");
  assert.equal(noOut.status, 2);
  assert.match(noOut.stderr, /invalid --out/);
});

test("npm run compare: the same archive as two arms writes the files and refuses nothing; --seed is recorded", () => {
  const out = path.join(work, "same");
  const r = cli("--arm", "a=data/wandb", "--arm", "b=data/wandb", "--out", out, "--seed", "7", "--resamples", "200");
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /wrote 3 files into .* \(seed 7, 200 resamples\)/);
  assert.doesNotMatch(r.stdout, /refused/);
  assert.equal(JSON.parse(readFileSync(path.join(out, "compare-manifest.json"), "utf8")).seed, 7);
});
