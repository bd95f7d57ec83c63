/**
 * Input limits of the reader (lib/wandb/reader-limits.ts): a history row over `maxRowChars`, a
 * response over `maxResponseBytes` and a run with more than `maxKeys` distinct keys are refused
 * with a message naming the run, the steps and the limit, before memory is spent on them; a
 * refused fetch leaves the previous archive byte-identical.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { after, before, test } from "node:test";

import { fetchAndFreeze, type FetchAndFreezeOptions } from "../../lib/archive/fetch-and-freeze";
import { connectWandb } from "../../lib/wandb/connection";
import { DEFAULT_READER_LIMITS, resolveReaderLimits } from "../../lib/wandb/reader-limits";
import { readRunMeta } from "../../lib/wandb/read-run-meta";
import { WandbError } from "../../lib/wandb/wandb-error";
import { startWandbTestServer, type WandbTestServer } from "../../tools/wandb-test-server/server";
import { assertSameTree, snapshotTree } from "./tree-snapshot";

const MiB = 1024 * 1024;
const root = fs.mkdtempSync(path.join(os.tmpdir(), "rel-limits-"));
let server: WandbTestServer;
let n = 0;
const freshDir = () => path.join(root, `w${n++}`, "archive");

before(async () => {
  server = await startWandbTestServer({});
  server.addRun({ entity: "e", project: "p", runId: "small", rows: [{ _step: 0, x: 1 }] });
  server.addRun({
    entity: "e",
    project: "p",
    runId: "bigrow",
    rows: [{ _step: 0, x: 1 }, `{"_step": 5, "x": 2, "blob": "${"b".repeat(70_000)}"}`, { _step: 6, x: 3 }],
  });
  server.addRun({ entity: "e", project: "p", runId: "hugerow", rows: [{ _step: 0, x: 1 }, `{"_step": 1, "x": 2, "blob": "${"b".repeat(5 * MiB)}"}`] });
  server.addRun({
    entity: "e",
    project: "p",
    runId: "wide",
    rows: Array.from({ length: 2500 }, (_, i) => ({ _step: i, "train/loss": i / 7, "train/grad_norm": i / 3 })),
  });
  // 1,100 rows, each with 100 keys no other row has: 110,001 distinct keys with _step.
  server.addRun({
    entity: "e",
    project: "p",
    runId: "manykeys",
    rows: Array.from({ length: 1100 }, (_, i) => {
      const row: Record<string, number> = { _step: i };
      for (let j = 0; j < 100; j++) row[`k${i * 100 + j}`] = j;
      return row;
    }),
  });
  server.addRun({
    entity: "e",
    project: "p",
    runId: "strkeys",
    rows: Array.from({ length: 10 }, (_, i) => {
      const row: Record<string, unknown> = { _step: i, x: i };
      for (let j = 0; j < 10; j++) row[`s${i * 10 + j}`] = "text";
      return row;
    }),
  });
});
after(async () => {
  await server.close();
  fs.rmSync(root, { recursive: true, force: true });
});

function opts(outDir: string, runId: string, extra: Partial<FetchAndFreezeOptions> = {}): FetchAndFreezeOptions {
  return {
    entity: "e",
    project: "p",
    runs: [{ runId, round: "R0" }],
    outDir,
    baseUrl: server.url,
    apiKey: server.apiKey,
    env: {},
    now: () => new Date("2025-01-01T00:00:00.000Z"),
    retry: { random: () => 0, sleep: async () => undefined },
    ...extra,
  };
}

/** Makes a previous archive in a fresh folder, runs a fetch expected to fail, checks nothing changed. */
async function refusedKeepingPrevious(runId: string, extra: Partial<FetchAndFreezeOptions>, message: string | RegExp): Promise<WandbError> {
  const outDir = freshDir();
  await fetchAndFreeze(opts(outDir, "small"));
  const previous = snapshotTree(path.dirname(outDir));
  const err = await fetchAndFreeze(opts(outDir, runId, extra)).then(
    () => assert.fail("should be refused"),
    (e: Error) => e,
  );
  assert.ok(err instanceof WandbError, String(err));
  if (typeof message === "string") assert.equal(err.message, message);
  else assert.match(err.message, message);
  assertSameTree(snapshotTree(path.dirname(outDir)), previous, "previous archive");
  return err;
}

test("defaults: 256 MiB per response, 4 Mi characters per row, 100,000 keys per run; invalid values refused", () => {
  assert.deepEqual({ ...DEFAULT_READER_LIMITS }, { maxResponseBytes: 256 * MiB, maxRowChars: 4 * MiB, maxKeys: 100_000, maxExportFileBytes: 2048 * MiB });
  assert.deepEqual(connectWandb({ baseUrl: server.url, apiKey: "k", env: {} }).limits, DEFAULT_READER_LIMITS);
  assert.deepEqual(resolveReaderLimits({ maxKeys: 7 }), { maxResponseBytes: 256 * MiB, maxRowChars: 4 * MiB, maxKeys: 7, maxExportFileBytes: 2048 * MiB });
  assert.throws(() => resolveReaderLimits({ maxKeys: 0 }), { message: "invalid maxKeys: 0" });
  assert.throws(() => resolveReaderLimits({ maxResponseBytes: 1.5 }), { message: "invalid maxResponseBytes: 1.5" });
  assert.throws(() => connectWandb({ baseUrl: server.url, apiKey: "k", env: {}, limits: { maxRowChars: -1 } }), { message: "invalid maxRowChars: -1" });
});

test("a history row over maxRowChars is refused naming run, steps, _step and limit; previous archive byte-identical", async () => {
  await refusedKeepingPrevious(
    "bigrow",
    { limits: { maxRowChars: 65_536 } },
    "W&B HistoryPage of e/p/bigrow failed: row 1 of steps [0, 7) (_step 5) is 70032 characters long, over the limit of 65536 (maxRowChars)",
  );
});

test("with the default limits a 5 MB row is refused", async () => {
  await refusedKeepingPrevious(
    "hugerow",
    {},
    `W&B HistoryPage of e/p/hugerow failed: row 1 of steps [0, 2) (_step 1) is ${5 * MiB + 32} characters long, over the limit of ${4 * MiB} (maxRowChars)`,
  );
});

test("a response over maxResponseBytes is refused at once (not retried), naming run, steps and limit; a smaller page size then works", async () => {
  const before = server.requests.length;
  const err = await refusedKeepingPrevious(
    "wide",
    { limits: { maxResponseBytes: 50_000 } },
    /^W&B HistoryPage of e\/p\/wide failed \(HTTP 200, attempt 1 of 21\): steps \[0, 1000\): response body is over the limit of 50000 bytes \(maxResponseBytes; Content-Length \d+\); not retried: a smaller pageSize gives smaller history pages \[POST http:\/\/127\.0\.0\.1:\d+\/graphql\]$/,
  );
  assert.equal(err.attempt, 1);
  // A lone run asks for the next windows too while the first is read: each is asked for once.
  const windows = server.requests
    .slice(before)
    .filter((r) => r.operationName === "HistoryPage" && (r.variables as { run: string }).run === "wide")
    .map((r) => (r.variables as { minStep: number }).minStep);
  assert.equal(windows.filter((w) => w === 0).length, 1, "the refused page was asked for once");
  assert.equal(new Set(windows).size, windows.length, "no window was asked for twice");
  const manifest = await fetchAndFreeze(opts(freshDir(), "wide", { limits: { maxResponseBytes: 50_000 }, pageSize: 200 }));
  assert.equal(manifest.runs[0].historyEvents, 2500);
});

test("an endless body without Content-Length: reading stops just past the limit and the stream is cancelled", async () => {
  const chunk = new Uint8Array(MiB).fill(32); // one buffer, enqueued again and again: the test itself stays small
  let pulled = 0;
  let cancelled = false;
  const endless: typeof fetch = async () =>
    new Response(
      new ReadableStream<Uint8Array>({
        pull(controller) {
          pulled += chunk.byteLength;
          controller.enqueue(chunk);
        },
        cancel() {
          cancelled = true;
        },
      }),
      { status: 200 },
    );
  // With the real default of 256 MiB.
  const conn = connectWandb({ baseUrl: "http://127.0.0.1:9", apiKey: "k", env: {}, fetch: endless });
  await assert.rejects(readRunMeta(conn, { entity: "e", project: "p", runId: "r" }), {
    message: `W&B Run of e/p/r failed (HTTP 200, attempt 1 of 21): response body is over the limit of ${256 * MiB} bytes (maxResponseBytes; more than ${256 * MiB} bytes read); not retried: a smaller pageSize gives smaller history pages [POST http://127.0.0.1:9/graphql]`,
  });
  assert.ok(cancelled, "the body stream was cancelled");
  assert.ok(pulled <= 256 * MiB + 4 * MiB, `read ${pulled} bytes, not much past the limit`);
});

test("a Content-Length over the limit is refused before reading the body", async () => {
  let pulled = 0;
  const declared: typeof fetch = async () =>
    new Response(
      new ReadableStream<Uint8Array>({
        pull(controller) {
          pulled++;
          controller.enqueue(new Uint8Array(10));
        },
      }),
      { status: 200, headers: { "Content-Length": String(300 * MiB) } },
    );
  const conn = connectWandb({ baseUrl: "http://127.0.0.1:9", apiKey: "k", env: {}, fetch: declared });
  await assert.rejects(
    readRunMeta(conn, { entity: "e", project: "p", runId: "r" }),
    /response body is over the limit of 268435456 bytes \(maxResponseBytes; Content-Length 314572800\)/,
  );
  assert.ok(pulled <= 1, `at most the stream's first automatic pull happened (${pulled})`);
});

test("a run with more than 100,000 distinct keys is refused naming run, _step, key and limit", async () => {
  await refusedKeepingPrevious(
    "manykeys",
    {},
    "W&B HistoryPage of e/p/manykeys failed: more than 100000 distinct history keys (maxKeys) by _step 999 (new key k99999): refused rather than held in memory",
  );
});

test("non-numeric (dropped) keys count toward maxKeys too", async () => {
  await refusedKeepingPrevious(
    "strkeys",
    { limits: { maxKeys: 50 } },
    "W&B HistoryPage of e/p/strkeys failed: more than 50 distinct history keys (maxKeys) in steps [0, 10), 100 of them non-numeric: refused rather than held in memory",
  );
});
