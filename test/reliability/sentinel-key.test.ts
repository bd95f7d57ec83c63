/**
 * A sentinel API key (random per run, so not even this file's compiled copy holds it) is used for
 * everything a user does: a fetch in-process with faults whose retries and failures are logged
 * through the reporter, the fetch CLI with faults and a failure, the export (lib and CLI), notebook
 * 01 headless with WORKSPACE_FETCH=1 against the local server (a retry note shows in its output),
 * and the HTML report of the executed notebook. Then EVERY file written (the workspace copy, files
 * new in the repository and in the temp folder since the test began) and all captured
 * stdout/stderr are searched for the key, its Basic-auth form base64("api:KEY") and its bare base64.
 * Slow by nature (a tslab kernel and nbconvert): about 40-60 s.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { inspect } from "node:util";
import { test } from "node:test";

import { fetchAndFreeze } from "../../lib/archive/fetch-and-freeze";
import { writeExports } from "../../lib/export/write-exports";
import type { Reporter } from "../../lib/types";
import { startWandbTestServer } from "../../tools/wandb-test-server/server";
import { filesUnder } from "./tree-snapshot";

const ROOT = path.resolve(__dirname, "../..");
const PY = path.join(ROOT, ".venv", "bin", "python");

/** Runs a command without blocking the event loop (the server lives in this process); output captured. */
function run(cmd: string, args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    let out = "";
    const child = spawn(cmd, args, { cwd: ROOT, env });
    child.stdout.on("data", (b) => (out += b));
    child.stderr.on("data", (b) => (out += b));
    child.on("close", (code) => resolve({ code, out }));
  });
}

/** Files modified at or after `since` under `dir`, skipping folders that are not ours to read. */
function newFilesUnder(dir: string, since: number, skip: Set<string>): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(d, { withFileTypes: true });
    } catch {
      return; // unreadable (another user's, or gone meanwhile)
    }
    for (const e of entries) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) {
        if (!skip.has(p)) walk(p);
      } else if (e.isFile()) {
        try {
          const st = fs.statSync(p);
          if (st.mtimeMs >= since && st.size < 256 * 1024 * 1024) out.push(p);
        } catch {
          // gone meanwhile
        }
      }
    }
  };
  walk(dir);
  return out;
}

test("a sentinel key appears in no file, manifest, export, executed notebook, HTML report, log or message", { timeout: 300_000 }, async () => {
  const KEY = `sentinel-${randomBytes(20).toString("hex")}`;
  const FORMS = [KEY, Buffer.from(`api:${KEY}`).toString("base64"), Buffer.from(KEY).toString("base64")];
  const since = Date.now() - 2000; // mtime granularity
  const ws = fs.mkdtempSync(path.join(os.tmpdir(), "rel-sentinel-"));
  const logs = path.join(ws, "logs");
  fs.mkdirSync(logs);
  const data = path.join(ws, "data");
  fs.cpSync(path.join(ROOT, "data"), data, { recursive: true });
  const captured: string[] = [];
  const log = (name: string, text: string) => {
    captured.push(text);
    fs.appendFileSync(path.join(logs, name), text.endsWith("\n") ? text : `${text}\n`);
  };
  const reporterTo = (name: string): Reporter => ({
    info: (m) => log(name, `info: ${m}`),
    warn: (m) => log(name, `warning: ${m}`),
    progress: (task, done, total) => log(name, `${task}: ${done}/${total}`),
  });

  const server = await startWandbTestServer({ apiKey: KEY });
  try {
    const config = JSON.parse(fs.readFileSync(path.join(data, "runs.json"), "utf8"));
    for (const { runId } of config.runs) {
      const rows = fs
        .readFileSync(path.join(ROOT, "data", "wandb", "history", `${runId}.jsonl`), "utf8")
        .trim()
        .split("\n");
      server.addRun({ entity: config.entity, project: config.project, runId, rows });
    }
    const base = { entity: config.entity, project: config.project, runs: config.runs, baseUrl: server.url, apiKey: KEY, env: {} };

    // 1. In-process fetch through every fault kind; retry notes and progress go to a log file.
    for (const fault of [
      { kind: "status", status: 429, retryAfter: "0" },
      { kind: "status", status: 500 },
      { kind: "reset" },
      { kind: "truncate" },
      { kind: "delay", ms: 3000, operationName: "HistoryPage" },
    ] as const)
      server.injectFault(fault);
    await fetchAndFreeze({
      ...base,
      outDir: path.join(data, "wandb"),
      reporter: reporterTo("fetch.log"),
      retry: { timeoutMs: 300, sleep: async () => undefined },
    });
    // ... and failures, each logged with its message, stack and full inspection (cause chain included).
    const failures: [string, () => void, Record<string, unknown>][] = [
      ["502 burst", () => server.injectFault({ kind: "status", status: 502, count: 2 }), { retry: { retries: 1, sleep: async () => undefined } }],
      ["reset burst", () => server.injectFault({ kind: "reset", count: 2 }), { retry: { retries: 1, sleep: async () => undefined } }],
      ["short page", () => server.injectFault({ kind: "short-page", drop: 1 }), {}],
      ["not found", () => server.injectFault({ kind: "status", status: 404 }), {}],
      ["wrong key", () => undefined, { apiKey: `${KEY}-wrong` }],
    ];
    for (const [name, arm, extra] of failures) {
      arm();
      const err = await fetchAndFreeze({ ...base, outDir: path.join(data, "wandb"), reporter: reporterTo("fetch.log"), concurrency: 1, ...extra }).then(
        () => assert.fail(`${name} should fail`),
        (e: Error) => e,
      );
      log("fetch.log", `${name}: ${err.message}\n${err.stack}\n${inspect(err, { depth: 10, showHidden: true })}`);
    }

    // 2. The fetch CLI with faults (Retry-After 0: no real waiting), then a failing run.
    const cliEnv = { PATH: process.env.PATH ?? "", HOME: ws, WANDB_BASE_URL: server.url, WANDB_API_KEY: KEY };
    server.injectFault({ kind: "status", status: 429, retryAfter: "0", count: 2 });
    server.injectFault({ kind: "status", status: 503, retryAfter: "0" });
    const cliOut = path.join(ws, "cli-data", "wandb");
    const fetchCli = await run(process.execPath, ["--import", "tsx", "scripts/fetch.ts", "--config", path.join(data, "runs.json"), "--out", cliOut], cliEnv);
    log("fetch-cli.log", fetchCli.out);
    assert.equal(fetchCli.code, 0, fetchCli.out);
    assert.match(fetchCli.out, /HTTP 429, .*retry 1 of 20/);
    server.injectFault({ kind: "status", status: 403 });
    const failedCli = await run(process.execPath, ["--import", "tsx", "scripts/fetch.ts", "--config", path.join(data, "runs.json"), "--out", cliOut], cliEnv);
    log("fetch-cli-failed.log", failedCli.out);
    assert.equal(failedCli.code, 1);
    assert.match(failedCli.out, /^fetch failed: W&B Run of .* \(HTTP 403, attempt 1 of 21\)/m);

    // 3. Exports, through lib and through the CLI.
    await writeExports({ dataDir: path.join(data, "wandb"), outDir: path.join(ws, "exports"), reporter: reporterTo("export.log") });
    const exportCli = await run(process.execPath, ["--import", "tsx", "scripts/export.ts", "--data", cliOut, "--out", path.join(ws, "exports-cli")], cliEnv);
    log("export-cli.log", exportCli.out);
    assert.equal(exportCli.code, 0, exportCli.out);

    // 4. Notebook 01 fetching live, with a 429 so that its retry note shows in the notebook.
    server.injectFault({ kind: "status", status: 429, retryAfter: "0", operationName: "HistoryPage" });
    const executed = path.join(ws, "executed");
    const nb = await run(PY, [path.join(ROOT, "scripts", "run-notebooks.py"), "--out", executed, path.join(ROOT, "notebooks", "01-fetch.ipynb")], {
      ...process.env,
      WORKSPACE_DATA: data,
      WORKSPACE_EXPORTS: path.join(ws, "exports"),
      WORKSPACE_FETCH: "1",
      WANDB_BASE_URL: server.url,
      WANDB_API_KEY: KEY,
    });
    log("notebook.log", nb.out);
    assert.equal(nb.code, 0, nb.out);
    const nbText = fs.readFileSync(path.join(executed, "01-fetch.ipynb"), "utf8");
    assert.match(nbText, /W&B HistoryPage of sample-entity\/slime-grpo-sample\/sim-r\d-\w+: steps \[0, 100\): HTTP 429, .*retry 1 of 20 in 0\.0 s/);
    assert.match(nbText, /fetched 4 runs \(400 history rows\)/);

    // 5. The HTML report of the executed notebook.
    const report = await run(process.execPath, ["--import", "tsx", "scripts/html-report.ts", executed, path.join(ws, "report")], { ...process.env });
    log("report.log", report.out);
    assert.equal(report.code, 0, report.out);

    // Every file written, and every captured output.
    const wsFiles = filesUnder(ws);
    const skip = new Set([path.join(ROOT, "node_modules"), path.join(ROOT, ".venv"), path.join(ROOT, ".git")]);
    const newInRepo = newFilesUnder(ROOT, since, skip);
    const newInTmp = newFilesUnder(os.tmpdir(), since, new Set([ws]));
    const checked = [...wsFiles, ...newInRepo, ...newInTmp];
    const names = wsFiles.map((f) => path.relative(ws, f));
    for (const expected of [
      "data/wandb/manifest.json",
      "data/wandb/history/sim-r0-ghfk.jsonl",
      "exports/summary.csv",
      "exports/manifest.json",
      "exports-cli/updates.csv",
      "cli-data/wandb/manifest.json",
      "executed/01-fetch.ipynb",
      "report/01-fetch.html",
      "report/index.html",
      "logs/fetch.log",
      "logs/notebook.log",
    ]) {
      assert.ok(names.includes(expected), `${expected} was written and is checked`);
    }
    const leaks: string[] = [];
    for (const file of checked) {
      let bytes: Buffer;
      try {
        bytes = fs.readFileSync(file);
      } catch {
        continue; // gone meanwhile (another process's temp file)
      }
      for (const form of FORMS) if (bytes.includes(form)) leaks.push(`${file} holds ${form === KEY ? "the key" : "a base64 form of the key"}`);
    }
    for (const [i, text] of captured.entries()) for (const form of FORMS) if (text.includes(form)) leaks.push(`captured output ${i} holds the key`);
    assert.deepEqual(leaks, [], `files checked: ${checked.length}`);
    assert.ok(fs.readFileSync(path.join(logs, "fetch.log"), "utf8").includes("retry 1 of 20"), "retries were logged");
  } finally {
    await server.close();
    fs.rmSync(ws, { recursive: true, force: true });
  }
});
