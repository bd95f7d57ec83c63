import { after, test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
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

test("npm run compare --axis: a binned axis needs --bin-width (exit 2); tokens refuses every concept (exit 1); update bins land in the files", () => {
  const noWidth = cli("--arm", "a=data/wandb", "--out", path.join(work, "w"), "--axis", "update");
  assert.equal(noWidth.status, 2);
  assert.match(noWidth.stderr, /compare: invalid axis: update needs a bin width > 0 in optimizer update/);
  const badWidth = cli("--arm", "a=data/wandb", "--out", path.join(work, "w"), "--axis", "wall", "--bin-width", "ten");
  assert.equal(badWidth.status, 2);
  assert.match(badWidth.stderr, /invalid --bin-width: ten/);
  const tokens = cli("--arm", "a=data/wandb", "--out", path.join(work, "t"), "--axis", "tokens", "--bin-width", "1000", "--resamples", "100");
  assert.equal(tokens.status, 1);
  // Why first, then each refusal once; no header-only CSVs left behind.
  const lines = tokens.stderr.split("\n");
  assert.match(lines[0], /^compare: nothing compared, nothing written into .*t: every concept was refused, for the reasons below$/);
  assert.match(
    tokens.stderr,
    /\n {2}reward_mean \(reward\) is missing on the tokens axis \(tokens\): data\/wandb: slime logs no tokens seen: slime logs no cumulative token count.*never estimated/,
  );
  assert.equal(lines.filter((l) => l.startsWith("  reward_mean ")).length, 1);
  assert.equal(existsSync(path.join(work, "t")), false, "nothing written");
  assert.equal(tokens.stdout, "");
  const out = path.join(work, "u");
  const update = cli("--arm", "a=data/wandb", "--out", out, "--axis", "update", "--bin-width", "4", "--resamples", "100");
  assert.equal(update.status, 0, update.stderr);
  const manifest = JSON.parse(readFileSync(path.join(out, "compare-manifest.json"), "utf8"));
  assert.deepEqual(manifest.axis.width, 4);
  assert.equal(manifest.scopes[0], "0-4");
  assert.match(readFileSync(path.join(out, "compare.csv"), "utf8"), /\na,entropy_mean,0-4,1,/);
});
