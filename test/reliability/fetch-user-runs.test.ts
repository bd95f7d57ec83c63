/**
 * `npm run fetch` on the mistakes people make with their own runs (issue 38), using the real runs in
 * test/fixtures/real-runs/ as "my runs": each refusal exits non-zero with one message naming the
 * runs and the fix, and leaves the archive fetched before byte-identical.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { after, before, test } from "node:test";

import { assertSameTree, snapshotTree } from "./tree-snapshot";

const ROOT = path.resolve(__dirname, "../..");
const REAL = path.join(ROOT, "test/fixtures/real-runs");
const TRL = path.join(REAL, "trl/grpo-log1/R0-run-trlgrpolog1.wandb");
const VERL = path.join(REAL, "verl/plain/run-verl-plain.wandb");
const root = fs.mkdtempSync(path.join(os.tmpdir(), "rel-user-runs-"));
/** An archive of the TRL run, fetched before each case (its bytes must survive every refusal). */
const good = path.join(root, "my-trl", "wandb");

/** Runs the fetch CLI (no server: every run here is a local file). */
function fetchCli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ["--import", "tsx", path.join(ROOT, "scripts/fetch.ts"), ...args],
      { cwd: ROOT, env: { PATH: process.env.PATH ?? "", HOME: root, SOURCE_DATE_EPOCH: "1767225600" } },
      (err, stdout, stderr) => resolve({ code: err ? (typeof err.code === "number" ? err.code : 1) : 0, stdout, stderr }),
    );
  });
}

before(async () => {
  const r = await fetchCli(["--wandb-file", `${TRL}=R0`, "--out", good]);
  assert.equal(r.code, 0, r.stderr);
});
after(() => fs.rmSync(root, { recursive: true, force: true }));

test("two runs given one round label: refused at fetch (exit 2) naming both runs and the fix; the archive stays byte-identical", async () => {
  const before = snapshotTree(good);
  const r = await fetchCli(["--wandb-file", `${TRL}=R0`, "--wandb-file", `${VERL}=R0`, "--out", good]);
  assert.equal(r.code, 2, r.stderr);
  assert.equal(r.stdout, "");
  assert.equal(
    r.stderr.split("\n")[0],
    "invalid runs: round R0 is given to two runs, run trlgrpolog1 (R0-run-trlgrpolog1.wandb) and run verl-plain (run-verl-plain.wandb): give each run a round label of its own, in the order they trained (e.g. R0, R1); only the .wandb logs of one run resumed into its own id share a round",
  );
  assert.doesNotMatch(r.stderr, /listed twice|aligned\.rounds/);
  assertSameTree(snapshotTree(good), before, "the archive fetched before");
});
