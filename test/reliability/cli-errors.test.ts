/**
 * The CLIs on bad input and failing servers: scripts/export.ts and scripts/fetch.ts exit 1 with the
 * error as ONE line on stderr (progress and retry notes may precede it; no stack trace), print
 * nothing on stdout, and leave the exports folder / previous archive byte-identical.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as http from "node:http";
import type { AddressInfo } from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import { after, before, test } from "node:test";

import { archiveSiblings } from "../../lib/archive/replace-dir";
import { fetchAndFreeze } from "../../lib/archive/fetch-and-freeze";
import { startWandbTestServer, type WandbTestServer } from "../../tools/wandb-test-server/server";
import { fileOf, keepRuns, readManifest, readRows, SAMPLE_ARCHIVE, writeManifest, writeRaw, writeRows } from "./sample-archive";
import { assertSameTree, snapshotTree } from "./tree-snapshot";

const ROOT = path.resolve(__dirname, "../..");
const root = fs.mkdtempSync(path.join(os.tmpdir(), "rel-cli-"));
let server: WandbTestServer;
let n = 0;

before(async () => {
  server = await startWandbTestServer({});
  server.addRun({
    entity: "e",
    project: "p",
    runId: "r1",
    createdAt: "2024-01-01T00:00:00",
    rows: Array.from({ length: 1500 }, (_, i) => ({ _step: i, x: i / 4 })),
  });
  server.addRun({ entity: "e", project: "p", runId: "live", state: "running", rows: [{ _step: 0, x: 1 }] });
});
after(async () => {
  await server.close();
  fs.rmSync(root, { recursive: true, force: true });
});

/** Runs a script asynchronously (the test server lives in this process). */
function cli(script: string, args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ["--import", "tsx", path.join(ROOT, "scripts", script), ...args],
      { cwd: ROOT, env: { PATH: process.env.PATH ?? "", HOME: root, WANDB_BASE_URL: server.url, WANDB_API_KEY: server.apiKey, ...env } },
      (err, stdout, stderr) => resolve({ code: err ? (typeof err.code === "number" ? err.code : 1) : 0, stdout, stderr }),
    );
  });
}

/** Exit 1, nothing on stdout, the last stderr line is the one error line, no stack trace anywhere. */
function assertOneLineFailure(r: { code: number; stdout: string; stderr: string }, prefix: string, message: RegExp): string {
  assert.equal(r.code, 1, r.stderr);
  assert.equal(r.stdout, "");
  assert.ok(r.stderr.endsWith("\n"));
  const lines = r.stderr.slice(0, -1).split("\n");
  const last = lines[lines.length - 1];
  assert.ok(last.startsWith(prefix), last);
  assert.match(last.slice(prefix.length), message);
  assert.equal(lines.filter((l) => l.startsWith(prefix)).length, 1, "one error line");
  assert.ok(!lines.some((l) => /^\s+at /.test(l)), "no stack trace");
  return last;
}

const EXPORT_CASES: [string, (data: string) => void, RegExp][] = [
  [
    "corrupt",
    (data) => {
      const lines = fs.readFileSync(fileOf(data, "sim-r2-85gs"), "utf8").split("\n");
      lines[7] = "{not json";
      writeRaw(data, "sim-r2-85gs", lines.join("\n"), true);
    },
    /^archive file .*\/history\/sim-r2-85gs\.jsonl line 8: not valid JSON \(.*\)$/,
  ],
  [
    "empty",
    (data) => {
      writeManifest(data, { ...readManifest(data), runs: [] });
      fs.rmSync(path.join(data, "history"), { recursive: true });
    },
    /^refusing to export from .*: manifest\.json lists no runs \(empty archive\)$/,
  ],
  [
    "n-change",
    (data) => {
      // From rollout 11 on, R0's trainer does three updates per rollout (train/step = rollout * 3 + k).
      keepRuns(data, ["sim-r0-ghfk"]);
      const rows = readRows(data, "sim-r0-ghfk").flatMap((row) => {
        const t = row["train/step"];
        if (t === undefined || t < 22) return [row];
        const r = Math.floor(t / 2);
        return t % 2 === 0 ? [0, 1, 2].map((k) => ({ ...row, "train/step": r * 3 + k })) : [];
      });
      writeRows(data, "sim-r0-ghfk", rows);
    },
    /^N \(updates per rollout batch\) changes within run sim-r0-ghfk \(round R0\): train\/step \d+ \(_step \d+\) was logged between the trainer rows of rollout \d+, .*$/,
  ],
  [
    "no-manifest",
    (data) => fs.rmSync(path.join(data, "manifest.json")),
    /^refusing to export from .*: archive .* has no manifest\.json \(not a frozen archive, or never fetched\)$/,
  ],
];

for (const [name, edit, message] of EXPORT_CASES) {
  test(`export CLI, ${name}: exit 1, one line, exports folder untouched`, async () => {
    const dir = path.join(root, `export-${name}`);
    const data = path.join(dir, "data");
    const out = path.join(dir, "exports");
    fs.cpSync(SAMPLE_ARCHIVE, data, { recursive: true });
    edit(data);
    fs.mkdirSync(out);
    fs.writeFileSync(path.join(out, "summary.csv"), "previous export\n");
    const before = snapshotTree(out);
    const r = await cli("export.ts", ["--data", data, "--out", out]);
    assertOneLineFailure(r, "export failed: ", message);
    assert.equal(r.stderr.split("\n").length, 2, "the error is all of stderr");
    assertSameTree(snapshotTree(out), before, "exports folder");
  });
}

/** A previous archive of run r1 made in-process, and a snapshot of its parent folder. */
async function previousArchive(name: string): Promise<{ out: string; previous: Record<string, string> }> {
  const out = path.join(root, name, "archive");
  await fetchAndFreeze({ entity: "e", project: "p", runs: [{ runId: "r1", round: "R0" }], outDir: out, baseUrl: server.url, apiKey: server.apiKey, env: {} });
  return { out, previous: snapshotTree(path.dirname(out)) };
}

test("fetch CLI, a short page: exit 1, one line naming the run; previous archive untouched", async () => {
  const { out, previous } = await previousArchive("fetch-short");
  server.injectFault({ kind: "short-page", drop: 2 });
  assertOneLineFailure(
    await cli("fetch.ts", ["--entity", "e", "--project", "p", "--run", "r1=R0", "--out", out]),
    "fetch failed: ",
    /^W&B completeness of e\/p\/r1 failed: read 1498 rows in steps \[0, 1499\], the server holds 1500 \(historyLineCount\): history is incomplete$/,
  );
  assertSameTree(snapshotTree(path.dirname(out)), previous, "previous archive");
});

test("fetch CLI, a running run: exit 1, one line naming the run; previous archive untouched", async () => {
  const { out, previous } = await previousArchive("fetch-running");
  assertOneLineFailure(
    await cli("fetch.ts", ["--entity", "e", "--project", "p", "--run", "live=R0", "--out", out]),
    "fetch failed: ",
    /^run e\/p\/live is still running: its history may still grow; wait until it ends, or allow it \(allowRunning, CLI --allow-running\)$/,
  );
  assertSameTree(snapshotTree(path.dirname(out)), previous, "previous archive");
});

test("fetch CLI, a lock held by a live process: exit 1, one line naming the lock file and holder; archive and lock untouched", async () => {
  const { out } = await previousArchive("fetch-locked");
  const { lock } = archiveSiblings(out);
  fs.writeFileSync(lock, JSON.stringify({ pid: process.pid, host: os.hostname(), startedAt: "2025-01-01T00:00:00.000Z" }) + "\n");
  const locked = snapshotTree(path.dirname(out));
  try {
    assertOneLineFailure(
      await cli("fetch.ts", ["--entity", "e", "--project", "p", "--run", "r1=R0", "--out", out]),
      "fetch failed: ",
      new RegExp(`^archive ${out} is locked by another fetch \\(lock file ${lock}: \\{"pid":${process.pid},`),
    );
    assertSameTree(snapshotTree(path.dirname(out)), locked, "archive and lock");
  } finally {
    fs.rmSync(lock);
  }
});

test("fetch CLI: 429 on every attempt (Retry-After 0): 20 retry notes, then one error line with the attempts", async () => {
  const out = path.join(root, "fetch-b", "archive");
  server.injectFault({ kind: "status", status: 429, retryAfter: "0", count: 21, operationName: "Run" });
  const r = await cli("fetch.ts", ["--entity", "e", "--project", "p", "--run", "r1=R0", "--out", out]);
  assertOneLineFailure(
    r,
    "fetch failed: ",
    /^W&B Run of e\/p\/r1 failed \(HTTP 429, attempt 21 of 21\): server answered: .* \(gave up after 20 retries\) \[POST http:\/\/127\.0\.0\.1:\d+\/graphql\]$/,
  );
  const notes = r.stderr.split("\n").filter((l) => l.startsWith("W&B Run of e/p/r1: HTTP 429, "));
  assert.equal(notes.length, 20);
  assert.match(notes[19], /; retry 20 of 20 in 0\.0 s$/);
  assert.equal(fs.existsSync(out), false, "no archive, no debris");
  assert.deepEqual(fs.readdirSync(path.dirname(out)), []);
});

test("fetch CLI: a server that redirects: exit 1, one line naming the redirect target; nothing sent there", async () => {
  const seen: string[] = [];
  const other = http.createServer((req, res) => {
    seen.push(`${req.method} ${req.url} ${req.headers.authorization ?? "-"}`);
    res.end("{}");
  });
  await new Promise<void>((resolve) => other.listen(0, "127.0.0.1", resolve));
  const target = `http://127.0.0.1:${(other.address() as AddressInfo).port}/graphql`;
  const redirecting = http.createServer((_req, res) => {
    res.writeHead(307, { Location: target });
    res.end();
  });
  await new Promise<void>((resolve) => redirecting.listen(0, "127.0.0.1", resolve));
  try {
    const base = `http://127.0.0.1:${(redirecting.address() as AddressInfo).port}`;
    const out = path.join(root, `fetch-c${n++}`, "archive");
    const r = await cli("fetch.ts", ["--entity", "e", "--project", "p", "--run", "r1=R0", "--out", out, "--base-url", base]);
    assertOneLineFailure(
      r,
      "fetch failed: ",
      new RegExp(
        `^W&B Run of e/p/r1 failed \\(HTTP 307, attempt 1 of 21\\): server answered with a redirect to ${target}; redirects are not followed, so the API key is sent only to 127\\.0\\.0\\.1:\\d+: set WANDB_BASE_URL \\(baseUrl\\) to the server itself if it is the one you mean \\[POST ${base}/graphql\\]$`,
      ),
    );
    assert.deepEqual(seen, [], "the redirect target never got a request");
  } finally {
    redirecting.close();
    other.close();
  }
});
