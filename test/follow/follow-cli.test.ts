/** scripts/follow.ts end to end: a child process following a run of the local test server while it grows. */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";

import { verifyArchive } from "../../lib/archive/load-archive";
import { verifySnapshotChain } from "../../lib/archive/snapshot-chain";
import { ROOT, sampleHistory, useFollowTestBed } from "./follow-test-bed";

const bed = useFollowTestBed("follow-cli-");
const root = bed.root;

function rows(from: number, to: number): Record<string, number>[] {
  return Array.from({ length: to - from }, (_, i) => ({ _step: from + i, x: (from + i) * 2 }));
}

test("--until finished: one line per poll, the run's growth frozen snapshot by snapshot, the chain verified at the end", async () => {
  bed.server.addRun({ entity: "e", project: "p", runId: "cligrow", state: "running", rows: rows(0, 100) });
  let runQueries = 0;
  bed.server.onRequest = (entry) => {
    if (entry.operationName !== "Run") return;
    // Each poll starts with the Run query: the run grows by 50 rows before polls 2 and 3, then finishes.
    runQueries++;
    if (runQueries === 2 || runQueries === 3) bed.server.appendRows("e", "p", "cligrow", rows(runQueries * 50, runQueries * 50 + 50));
    if (runQueries === 3) bed.server.setState("e", "p", "cligrow", "finished");
  };
  const out = path.join(root, "grow", "archive");
  const r = await bed.follow(["--entity", "e", "--project", "p", "--run", "cligrow=R0", "--out", out, "--interval", "0", "--until", "finished"]);
  bed.server.onRequest = null;
  assert.equal(r.code, 0, r.stderr);
  assert.equal(
    r.stdout,
    [
      "poll 1: snapshot 1: cligrow +100 rows (cligrow running)",
      "poll 2: snapshot 2: cligrow +50 rows (cligrow running)",
      "poll 3: snapshot 3: cligrow +50 rows (cligrow finished)",
      "poll 4: nothing new (cligrow finished)",
      `followed 1 run(s) into ${out}: 4 poll(s), 3 snapshot(s), 0 failed; ended; snapshot chain verified`,
      "",
    ].join("\n"),
  );
  const lines = fs
    .readFileSync(path.join(out, "history", "cligrow.jsonl"), "utf8")
    .trimEnd()
    .split("\n");
  assert.equal(lines.length, 200);
  assert.equal(lines[199], '{"_step":199,"x":398}');
  assert.equal((await verifySnapshotChain(out)).links.length, 3);
});

test("Ctrl-C while waiting for the next poll: exit 130, the last snapshot valid", async () => {
  bed.server.addRun({ entity: "e", project: "p", runId: "cliint", state: "running", rows: rows(0, 30) });
  const out = path.join(root, "int", "archive");
  const child = spawn(
    process.execPath,
    ["--import", "tsx", path.join(ROOT, "scripts/follow.ts"), "--entity", "e", "--project", "p", "--run", "cliint=R0", "--out", out, "--interval", "600"],
    {
      cwd: ROOT,
      env: bed.env(),
    },
  );
  let stdout = "";
  child.stdout.on("data", (d: Buffer) => {
    stdout += d.toString();
    if (stdout.includes("poll 1:")) child.kill("SIGINT");
  });
  const exit = await new Promise<{ code: number | null; signal: string | null }>((resolve) => child.on("exit", (code, signal) => resolve({ code, signal })));
  // 130, or the signal itself where tsx's relay re-raises it after our clean-up ran (the last line shows it did).
  assert.ok(exit.code === 130 || exit.signal === "SIGINT", `${JSON.stringify(exit)}\n${stdout}`);
  assert.match(
    stdout,
    /poll 1: snapshot 1: cliint \+30 rows \(cliint running\)\n.*1 poll\(s\), 1 snapshot\(s\), 0 failed; interrupted; snapshot chain verified/,
  );
  assert.equal((await verifyArchive(out)).ok, true);
  assert.deepEqual(fs.readdirSync(path.dirname(out)), ["archive"], "no lock or temp folder left");
});

test("option errors: invalid <option>: <value> and the usage, exit 2", async () => {
  const out = path.join(root, "opts", "archive");
  for (const [args, message] of [
    [["--entity", "e", "--project", "p", "--run", "x=R0", "--out", out, "--until", "soon"], 'invalid --until: soon (only "finished")'],
    [["--entity", "e", "--project", "p", "--run", "x=R0", "--out", out, "--polls", "0"], "invalid --polls: 0"],
    [["--entity", "e", "--project", "p", "--run", "x=R0", "--out", out, "--interval=-1"], "invalid --interval: -1 (seconds between polls)"],
    [
      ["--entity", "e", "--project", "p", "--run", "x=R0", "--out", out, "--until", "finished", "--polls", "2"],
      "invalid --polls: give --until finished or --polls N, not both",
    ],
    [["--entity", "e", "--run", "x=R0", "--out", out], "invalid --project: missing"],
  ] as const) {
    const r = await bed.follow([...args]);
    assert.equal(r.code, 2, `${args.join(" ")}: ${r.stderr}`);
    assert.equal(r.stderr.split("\n")[0], message);
    assert.match(r.stderr, /usage: npm run follow/);
  }
  assert.equal(fs.existsSync(out), false);
});

test("--report with --config: the exports rebuilt after each snapshot, each health flag printed once, when its rows arrive", async () => {
  const late = "sim-r2-85gs"; // its rollout 47 logs rollout/kl = NaN (the sample's one flag), at _step 30
  const config = bed.addSampleRuns(late, 20);
  let lateQueries = 0;
  bed.server.onRequest = (entry) => {
    if (entry.operationName !== "Run" || (entry.variables as { name?: string }).name !== late) return;
    if (++lateQueries === 2) {
      bed.server.appendRows(config.entity, config.project, late, sampleHistory(late).slice(20));
      bed.server.setState(config.entity, config.project, late, "finished");
    }
  };
  const out = path.join(root, "report", "archive");
  const exportsDir = path.join(root, "report", "exports");
  const r = await bed.follow([
    "--config",
    path.join(ROOT, "data/runs.json"),
    "--out",
    out,
    "--interval",
    "0",
    "--polls",
    "3",
    "--report",
    "--report-out",
    exportsDir,
  ]);
  bed.server.onRequest = null;
  assert.equal(r.code, 0, r.stderr);
  const lines = r.stdout.trimEnd().split("\n");
  assert.match(lines[0], /^poll 1: snapshot 1: sim-r0-ghfk \+100, sim-r1-kf63 \+\d+, sim-r2-85gs \+20, sim-r3-1v8k \+\d+ rows/);
  assert.equal(
    lines[1],
    "  open: run sim-r2-85gs (round R2): rollout 44 (1 rollout record(s), 2 update(s) so far) is not analysed until a later one is logged",
  );
  assert.match(lines[2], /^poll 2: snapshot 2: sim-r0-ghfk \+0, sim-r1-kf63 \+0, sim-r2-85gs \+80, sim-r3-1v8k \+0 rows/);
  const flags = lines.filter((l) => l.startsWith("  new flag:"));
  assert.deepEqual(flags, [
    "  new flag: non_finite (warning) run sim-r2-85gs rollout batch 47..47 rollout/kl: a NaN, Inf or -Inf value in a numeric key of an optimizer update or rollout batch (one flag per key and round; critic keys train/critic-* not read)",
  ]);
  assert.ok(lines.indexOf(flags[0]) > 2, "printed after poll 2, when rollout 47 arrived");
  assert.match(lines[lines.length - 2], /^poll 3: nothing new/);
  // The rebuilt exports (planned from the follow's in-memory alignment) are those of the bundled archive.
  for (const name of ["rollouts.csv", "updates.csv", "summary.csv", "health.csv"])
    assert.equal(fs.readFileSync(path.join(exportsDir, name), "utf8"), fs.readFileSync(path.join(ROOT, "exports", name), "utf8"), name);
});

test("a step-axis run (TRL's real .wandb log, still being written): the open line names its last logged step, in no rollout or update wording", async () => {
  const real = path.join(ROOT, "test/fixtures/real-runs/trl/grpo-killed/R0-run-trlgrpokilled.wandb");
  // A copy written now: a log without an exit record and fresh writes is a running run.
  const file = path.join(root, "trl", "run-trlgrpokilled.wandb");
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.copyFileSync(real, file);
  const out = path.join(root, "trl", "archive");
  const r = await bed.follow(["--wandb-file", `${file}=R0`, "--out", out, "--interval", "0", "--polls", "1"]);
  assert.equal(r.code, 0, r.stderr);
  // Its last training row (one holding train/loss; TRL's profiling rows carry the step W&B stamped), read from the frozen file.
  const steps = fs
    .readFileSync(path.join(out, "history", "trlgrpokilled.jsonl"), "utf8")
    .trimEnd()
    .split("\n")
    .map((l) => JSON.parse(l) as Record<string, number>)
    .filter((row) => row["train/loss"] !== undefined)
    .map((row) => row["train/global_step"]);
  assert.deepEqual(steps, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  assert.deepEqual(r.stdout.trimEnd().split("\n").slice(0, 2), [
    "poll 1: snapshot 1: trlgrpokilled +85 rows (trlgrpokilled running)",
    "  open: run trlgrpokilled (round R0): step 10 (1 record(s) so far) is not analysed until a later one is logged",
  ]);
  assert.doesNotMatch(r.stdout, /rollout|update/);
});

test("a run whose keys match no profile yet: the reason in full at snapshot 1, a line pointing back at snapshot 2, a new reason (a new key) in full at snapshot 3", async () => {
  bed.server.addRun({ entity: "e", project: "p", runId: "clinokeys", state: "running", rows: rows(0, 10) });
  let runQueries = 0;
  bed.server.onRequest = (entry) => {
    if (entry.operationName !== "Run") return;
    runQueries++;
    if (runQueries === 2) bed.server.appendRows("e", "p", "clinokeys", rows(10, 20));
    if (runQueries === 3) bed.server.appendRows("e", "p", "clinokeys", [{ _step: 20, x: 40, y: 1 }]);
  };
  const out = path.join(root, "nokeys", "archive");
  const r = await bed.follow(["--entity", "e", "--project", "p", "--run", "clinokeys=R0", "--out", out, "--interval", "0", "--polls", "3"]);
  bed.server.onRequest = null;
  assert.equal(r.code, 0, r.stderr);
  const warnings = r.stderr.split("\n").filter((l) => l.startsWith("warning: snapshot"));
  assert.equal(warnings.length, 3, r.stderr);
  const full = (snapshot: number, keys: string) =>
    new RegExp(
      `^warning: snapshot ${snapshot}: not analysed \\(cannot tell which framework wrote these runs: no key matches a profile \\(slime: .*\\); keys: ${keys}\\. Name the profile .*\\); the next snapshot is analysed again$`,
    );
  assert.match(warnings[0], full(1, "x"));
  assert.equal(warnings[1], "warning: snapshot 2: not analysed, same reason as snapshot 1");
  assert.match(warnings[2], full(3, "x, y"));
});

test("a .wandb log whose run record is not written yet: the follow waits (said once), then freezes it as it grows; alignment's note is said once, not at every snapshot", async () => {
  const real = fs.readFileSync(path.join(ROOT, "test/fixtures/real-runs/trl/grpo-killed/R0-run-trlgrpokilled.wandb"));
  const file = path.join(root, "begun", "run-trlgrpokilled.wandb");
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, real.subarray(0, 7)); // the header alone: the writer has begun the log
  const out = path.join(root, "begun", "archive");
  const child = spawn(
    process.execPath,
    ["--import", "tsx", path.join(ROOT, "scripts/follow.ts"), "--wandb-file", `${file}=R0`, "--out", out, "--interval", "1", "--polls", "3"],
    { cwd: ROOT, env: bed.env() },
  );
  let stdout = "";
  let stderr = "";
  // The log grows between polls (a poll's line is printed a second before the next poll starts).
  child.stdout.on("data", (d: Buffer) => {
    const before = stdout;
    stdout += d.toString();
    if (!before.includes("poll 1:") && stdout.includes("poll 1:")) fs.writeFileSync(file, real.subarray(0, 60_000));
    if (!before.includes("poll 2:") && stdout.includes("poll 2:")) fs.writeFileSync(file, real);
  });
  child.stderr.on("data", (d: Buffer) => {
    stderr += d.toString();
  });
  const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
  assert.equal(code, 0, stderr);
  assert.deepEqual(
    stdout.split("\n").filter((l) => l.startsWith("poll")),
    [
      "poll 1: nothing new (trlgrpokilled waiting)",
      "poll 2: snapshot 1: trlgrpokilled +77 rows (trlgrpokilled running)",
      "poll 3: snapshot 2: trlgrpokilled +8 rows (trlgrpokilled running)",
    ],
  );
  const waits = stderr.split("\n").filter((l) => l.includes("no run record yet"));
  assert.deepEqual(waits, [`run trlgrpokilled (${file}): its log holds no run record yet (its writer has not written its first block): waiting for it`]);
  // Both snapshots are aligned; TRL's profiling-timer note (68 rows, then 76) is said at the first only.
  const notes = stderr.split("\n").filter((l) => l.includes("TRL's profiling timers"));
  assert.equal(notes.length, 1, stderr);
  assert.match(notes[0], /^run trlgrpokilled \(round R0\): 68 row\(s\) of TRL's profiling timers/);
  assert.equal((await verifySnapshotChain(out)).links.length, 2);
});

test("the options the analysis's messages suggest (--profile, --n, --always-use-train-step) are follow options; a bad value is an option error", async () => {
  const file = path.join(root, "opts", "run-trlgrpokilled.wandb");
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.copyFileSync(path.join(ROOT, "test/fixtures/real-runs/trl/grpo-killed/R0-run-trlgrpokilled.wandb"), file);
  const out = path.join(root, "opts", "archive");
  const r = await bed.follow([
    "--wandb-file",
    `${file}=R0`,
    "--out",
    out,
    "--interval",
    "0",
    "--polls",
    "1",
    "--profile",
    "trl",
    "--n",
    "trlgrpokilled=1",
    "--always-use-train-step",
    "trlgrpokilled=false",
  ]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^poll 1: snapshot 1: trlgrpokilled \+85 rows/);
  assert.doesNotMatch(r.stderr, /not analysed/);
  const bad = await bed.follow(["--wandb-file", `${file}=R0`, "--out", out, "--profile", "ppo"]);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /^invalid --profile: ppo \(one of slime, miles, verl, openrlhf, trl\)\nusage: npm run follow/);
});
