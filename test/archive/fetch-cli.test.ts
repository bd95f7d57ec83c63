/** scripts/fetch.ts end to end: a child process against the local test server. */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { after, before, test } from "node:test";

import { startWandbTestServer, type WandbTestServer } from "../../tools/wandb-test-server/server";

const ROOT = path.join(__dirname, "../..");
const root = fs.mkdtempSync(path.join(os.tmpdir(), "fetch-cli-"));
let server: WandbTestServer;

before(async () => {
  server = await startWandbTestServer({});
  server.addRun({
    entity: "e",
    project: "p",
    runId: "r1",
    createdAt: "2024-01-01T00:00:00",
    // A key of verl's (the CLI refuses runs of no RL framework, test/reliability/fetch-user-runs.test.ts).
    rows: Array.from({ length: 1500 }, (_, i) => ({ _step: i, "actor/x": i })),
  });
  server.addRun({ entity: "e", project: "p", runId: "r2", createdAt: "2024-01-02T00:00:00", rows: ['{"_step": 0, "actor/x": NaN}'] });
});
after(async () => {
  await server.close();
  fs.rmSync(root, { recursive: true, force: true });
});

function cli(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ["--import", "tsx", path.join(ROOT, "scripts/fetch.ts"), ...args],
      { cwd: ROOT, env: { PATH: process.env.PATH ?? "", HOME: root, WANDB_BASE_URL: server.url, WANDB_API_KEY: server.apiKey, ...env } },
      (err, stdout, stderr) => resolve({ code: err ? (typeof err.code === "number" ? err.code : 1) : 0, stdout, stderr }),
    );
  });
}

test("--run flags: archive written, summary on stdout, plain progress lines on stderr", async () => {
  const out = path.join(root, "a", "archive");
  const r = await cli(["--entity", "e", "--project", "p", "--run", "r1=R0", "--run", "r2=R1", "--out", out, "--page-size", "500", "--concurrency", "1"]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(
    r.stdout,
    `froze 2 run(s), 1501 rows, into ${out}\n  R0  e/p/r1  finished  1500 rows  history/r1.jsonl\n  R1  e/p/r2  finished  1 rows  history/r2.jsonl\n`,
  );
  assert.equal(
    r.stderr,
    [
      "fetch e/p/r1: 0/1500 rows",
      "fetch e/p/r1: 500/1500 rows",
      "fetch e/p/r1: 1000/1500 rows",
      "fetch e/p/r1: 1500/1500 rows",
      "fetch e/p/r2: 0/1 rows",
      "fetch e/p/r2: 1/1 rows",
      "",
    ].join("\n"),
  );
  assert.equal(fs.readFileSync(path.join(out, "history/r2.jsonl"), "utf8"), '{"_step":0,"actor/x":"NaN"}\n');
});

test("--config reads data/runs.json-style files", async () => {
  const cfg = path.join(root, "runs.json");
  fs.writeFileSync(cfg, JSON.stringify({ entity: "e", project: "p", runs: [{ runId: "r2", round: "R5" }] }));
  const out = path.join(root, "b", "archive");
  const r = await cli(["--config", cfg, "--out", out]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /R5 {2}e\/p\/r2/);
});

test("failures: one clear line, no stack trace, exit 1", async () => {
  const out = path.join(root, "c", "archive");
  const r = await cli(["--entity", "e", "--project", "p", "--run", "nope=R0", "--out", out]);
  assert.equal(r.code, 1);
  assert.equal(r.stderr, "fetch failed: W&B Run of e/p/nope failed: run nope not found in e/p\n");
  const bad = await cli(["--entity", "e", "--project", "p", "--run", "r1=R0", "--out", out], { WANDB_API_KEY: "wrong-key" });
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, /^fetch failed: W&B Run of e\/p\/r1 failed \(HTTP 401, attempt 1 of 21\): .*\n$/);
  assert.ok(!bad.stderr.includes("wrong-key"));
});

test("option errors: invalid <option>: <value> and the usage, exit 2", async () => {
  const cases: [string[], string][] = [
    [["--entity", "e", "--project", "p", "--run", "r1", "--out", "x"], "invalid --run: r1 (expected RUN_ID=ROUND_LABEL, e.g. 8ov14yyc=R0)"],
    [["--entity", "e", "--project", "p", "--run", "r1=R0", "--out", "x", "--page-size", "0"], "invalid --page-size: 0"],
    [["--entity", "e", "--project", "p", "--run", "r1=R0", "--out", "x", "--threads=two"], "invalid --threads: two"],
    [["--entity", "e", "--project", "p", "--run", "r1=R0"], "invalid --out: missing (the archive folder, e.g. data/archive)"],
    [
      ["--config", "c.json", "--run", "r1=R0", "--out", "x"],
      "invalid --config: c.json cannot be combined with --entity, --project, --run, --wandb-file or --tensorboard (list files in the config)",
    ],
  ];
  for (const [args, message] of cases) {
    const r = await cli(args);
    assert.equal(r.code, 2, message);
    assert.equal(r.stderr.split("\n")[0], message);
    assert.match(r.stderr, /\nusage: npm run fetch -- /);
  }
});

test("npm run fetch's prebuilt entry (scripts/prebuilt.cjs) runs the same CLI, with --history-path, and refuses other entries", async () => {
  const run = (args: string[]) =>
    new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      execFile(
        process.execPath,
        [path.join(ROOT, "scripts/prebuilt.cjs"), ...args],
        { cwd: ROOT, env: { PATH: process.env.PATH ?? "", HOME: root, WANDB_BASE_URL: server.url, WANDB_API_KEY: server.apiKey } },
        (err, stdout, stderr) => resolve({ code: err ? (typeof err.code === "number" ? err.code : 1) : 0, stdout, stderr }),
      );
    });
  const out = path.join(root, "prebuilt", "archive");
  const r = await run(["scripts/fetch.ts", "--entity", "e", "--project", "p", "--run", "r2=R1", "--out", out, "--history-path", "pages"]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, `froze 1 run(s), 1 rows, into ${out}\n  R1  e/p/r2  finished  1 rows  history/r2.jsonl\n`);
  const bad = await run(["scripts/fetch.ts", "--entity", "e", "--project", "p", "--run", "r2=R1", "--out", out, "--history-path", "fast"]);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /^invalid --history-path: fast \(auto, parquet or pages\)\nusage: npm run fetch -- /);
  // Freeze threads start from the prebuilt worker bundle (no note that they could not start), same bytes.
  const threaded = path.join(root, "prebuilt-threads", "archive");
  const single = path.join(root, "prebuilt-single", "archive");
  const two = ["--entity", "e", "--project", "p", "--run", "r1=R0", "--run", "r2=R1"];
  const t = await run(["scripts/fetch.ts", ...two, "--out", threaded, "--threads", "2"]);
  assert.equal(t.code, 0, t.stderr);
  assert.doesNotMatch(t.stderr, /freeze thread/);
  assert.equal((await run(["scripts/fetch.ts", ...two, "--out", single, "--threads", "0"])).code, 0);
  for (const f of ["history/r1.jsonl", "history/r2.jsonl"])
    assert.equal(fs.readFileSync(path.join(threaded, f), "utf8"), fs.readFileSync(path.join(single, f), "utf8"), f);
  const other = await run(["../elsewhere.ts"]);
  assert.equal(other.code, 2);
  assert.equal(other.stderr, "invalid entry: ../elsewhere.ts (a .ts file under scripts/, bench/ or tools/)\n");
});
