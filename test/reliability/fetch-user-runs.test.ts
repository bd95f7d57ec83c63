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

import { eventFile, scalarEvent, versionEvent } from "../tensorboard/event-builder";
import { buildLog, exitRecord, headerRecord, historyRecord, runRecord } from "../wandb-file/wandb-log-builder";
import { fetchAndFreeze } from "../../lib/archive/fetch-and-freeze";
import { assertSameTree, snapshotTree } from "./tree-snapshot";

const ROOT = path.resolve(__dirname, "../..");
const REAL = path.join(ROOT, "test/fixtures/real-runs");
const TRL = path.join(REAL, "trl/grpo-log1/R0-run-trlgrpolog1.wandb");
const VERL = path.join(REAL, "verl/plain/run-verl-plain.wandb");
const root = fs.mkdtempSync(path.join(os.tmpdir(), "rel-user-runs-"));
/** An archive of the TRL run, fetched before each case (its bytes must survive every refusal). */
const good = path.join(root, "my-trl", "wandb");

/** Runs a CLI script (no server: every run here is a local file). */
function cli(script: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ["--import", "tsx", path.join(ROOT, "scripts", script), ...args],
      { cwd: ROOT, env: { PATH: process.env.PATH ?? "", HOME: root, SOURCE_DATE_EPOCH: "1767225600" } },
      (err, stdout, stderr) => resolve({ code: err ? (typeof err.code === "number" ? err.code : 1) : 0, stdout, stderr }),
    );
  });
}

const fetchCli = (args: string[]) => cli("fetch.ts", args);

/** Exit 1, nothing on stdout, and the one error line. */
function failureLine(r: { code: number; stdout: string; stderr: string }): string {
  assert.equal(r.code, 1, r.stderr);
  assert.equal(r.stdout, "");
  const lines = r.stderr.trimEnd().split("\n");
  return lines[lines.length - 1];
}

/** Keys of a supervised fine-tuning run (transformers' Trainer through W&B), per logging step. */
const SFT_ROW = (i: number): Record<string, number> => ({
  "train/loss": 2 - i / 10,
  "train/learning_rate": 1e-5,
  "train/epoch": i / 10,
  "train/grad_norm": 1.5,
  "eval/loss": 2.1 - i / 10,
  "eval/accuracy": 0.5 + i / 100,
});

/** A supervised (not RL) run as an offline W&B run folder, logged as the SDK writes it. */
function supervisedWandbRun(): string {
  const folder = path.join(root, "wandb", "offline-run-20260101_120000-sft1");
  fs.mkdirSync(folder, { recursive: true });
  const recs = [headerRecord("0.31.0"), runRecord({ runId: "sft1", entity: "me", project: "sft", startSeconds: 1767225600, cliVersion: "0.31.0" })];
  for (let i = 0; i < 10; i++) {
    const items = Object.entries(SFT_ROW(i)).map(([k, v]) => ({ nested: [k], json: String(v) }));
    recs.push(historyRecord([{ nested: ["_step"], json: String(i) }, ...items], i));
  }
  recs.push(exitRecord(0));
  fs.writeFileSync(path.join(folder, "run-sft1.wandb"), buildLog(recs).bytes);
  return folder;
}

/** The same supervised run as TensorBoard event files. */
function supervisedTensorboardRun(): string {
  const dir = path.join(root, "runs", "sft-tb");
  fs.mkdirSync(dir, { recursive: true });
  const events = [versionEvent(1767225600), ...Array.from({ length: 10 }, (_, i) => scalarEvent(i, 1767225600 + i, SFT_ROW(i)))];
  fs.writeFileSync(path.join(dir, "events.out.tfevents.1767225600.host.1.0"), eventFile(events).bytes);
  return dir;
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

test("two frameworks in one fetch: refused (exit 1) naming each run, its framework and the fix; with --profile, the run of the other framework is refused; the archive stays byte-identical", async () => {
  const before = snapshotTree(good);
  const mixed = await fetchCli(["--wandb-file", `${TRL}=R0`, "--wandb-file", `${VERL}=R1`, "--out", good]);
  assert.equal(
    failureLine(mixed),
    "fetch failed: these runs were written by different frameworks: run trlgrpolog1 (round R0): trl (train/completions/, train/clip_ratio/, train/num_tokens, train/frac_reward_zero_std, train/rewards/); run verl-plain (round R1): verl (training/global_step, actor/, timing_s/, response_length/, critic/score/). An archive holds the runs of one framework: fetch each framework's runs into an archive of its own (e.g. --out data/trl/wandb and --out data/verl/wandb)",
  );
  const named = await fetchCli(["--wandb-file", `${TRL}=R0`, "--wandb-file", `${VERL}=R1`, "--profile", "trl", "--out", good]);
  assert.match(
    failureLine(named),
    /^fetch failed: run verl-plain \(round R1\) holds none of trl's keys \(.*\), so the profile named would read it as empty cells; its keys match verl \(training\/global_step, .*\)\. Name the profile the run's keys match \(data\/runs\.json "profile", CLI --profile\), or fetch that run into an archive of its own$/,
  );
  assertSameTree(snapshotTree(good), before, "the archive fetched before");
  // What the fetch decided is in the manifest, where export reads it.
  const run = JSON.parse(fs.readFileSync(path.join(good, "manifest.json"), "utf8")).runs[0];
  assert.deepEqual(run.profile, {
    name: "trl",
    how: "detected",
    evidence: ["train/completions/", "train/clip_ratio/", "train/num_tokens", "train/frac_reward_zero_std", "train/rewards/"],
  });
});

test("export --profile on an archive of two frameworks (fetched before fetch decided): the run of the other framework is refused, not exported empty; exports untouched", async () => {
  const mixed = path.join(root, "mixed", "wandb");
  await fetchAndFreeze({
    entity: "",
    project: "",
    runs: [
      { runId: "trlgrpolog1", round: "R0", file: TRL },
      { runId: "verl-plain", round: "R1", file: VERL },
    ],
    outDir: mixed,
    env: {},
    reporter: {},
  });
  const out = path.join(root, "mixed-exports");
  fs.mkdirSync(out);
  fs.writeFileSync(path.join(out, "mine.txt"), "a file of mine\n");
  const before = snapshotTree(out);
  const r = await cli("export.ts", ["--data", mixed, "--out", out, "--profile", "trl"]);
  assert.match(failureLine(r), /^export failed: run verl-plain \(round R1\) holds none of trl's keys .*its keys match verl /);
  assertSameTree(snapshotTree(out), before, "the exports folder");
});

test("a supervised run (not RL), as an offline W&B run or TensorBoard files: refused naming it, its keys and what was looked for; it never replaces the TRL archive", async () => {
  const before = snapshotTree(good);
  for (const spec of [`--wandb-file=${supervisedWandbRun()}=R0`, `--tensorboard=${supervisedTensorboardRun()}=R0`]) {
    const r = await fetchCli([spec, "--out", good]);
    const line = failureLine(r);
    assert.match(
      line,
      /^fetch failed: not a run of a framework the workspace reads: run (sft1|sft-tb) \(round R0\) holds none of them; its keys: eval\/accuracy, eval\/loss, train\/epoch, train\/grad_norm, train\/learning_rate, train\/loss\. Each framework profile looks for some of these keys \(slime: .*; trl: .*\)\. The notebooks diagnose RL post-training runs of slime, miles, verl, OpenRLHF and TRL: leave this run out of the fetch$/,
      spec,
    );
    const named = await fetchCli([spec, "--profile", "trl", "--out", good]);
    assert.match(failureLine(named), /holds none of trl's keys .*its keys match no profile \(eval\/accuracy, /, `${spec} --profile trl`);
  }
  assertSameTree(snapshotTree(good), before, "the archive fetched before");
});

test("a truncated copy of a run never replaces its complete archive (exit 1, byte-identical) unless --replace; the same file again, or a longer copy, still replaces", async () => {
  const out = path.join(root, "my-trl-4", "wandb");
  assert.equal((await fetchCli(["--wandb-file", `${TRL}=R0`, "--out", out])).code, 0);
  const complete = snapshotTree(out);
  // The first 33,000 bytes of the run's log: a copy taken while TRL was still writing, or cut short.
  const half = path.join(root, "half.wandb");
  fs.writeFileSync(half, fs.readFileSync(TRL).subarray(0, 33_000));
  const r = await fetchCli(["--wandb-file", `${half}=R0`, "--out", out]);
  assert.equal(
    failureLine(r),
    `fetch failed: refusing to replace the archive in ${out} with a worse copy: run trlgrpolog1 (round R0): 38 rows, not 49; state crashed, not finished; its file ends torn (the last 145 bytes hold no whole record), the frozen copy's did not. A copy made while a run was still being written, or cut short, would lose what is frozen; the archive was not changed. If the run really changed (rewound, or rows deleted), replace it anyway with --replace (replace: true)`,
  );
  assertSameTree(snapshotTree(out), complete, "the complete archive");
  // The same file fetched again is not worse (same bytes): the archive is rewritten byte for byte.
  assert.equal((await fetchCli(["--wandb-file", `${TRL}=R0`, "--out", out])).code, 0);
  assertSameTree(snapshotTree(out), complete, "the complete archive fetched again");
  // --replace overrides; then the complete copy replaces the truncated one without it (more rows is better).
  const replaced = await fetchCli(["--wandb-file", `${half}=R0`, "--out", out, "--replace"]);
  assert.equal(replaced.code, 0, replaced.stderr);
  assert.match(replaced.stdout, /trlgrpolog1 {2}crashed {2}38 rows/);
  const manifest = JSON.parse(fs.readFileSync(path.join(out, "manifest.json"), "utf8"));
  assert.deepEqual(manifest.runs[0].source.tornTail, { offset: 32855, bytes: 145 });
  assert.equal((await fetchCli(["--wandb-file", `${TRL}=R0`, "--out", out])).code, 0);
  assertSameTree(snapshotTree(out), complete, "the complete archive, back");
});
