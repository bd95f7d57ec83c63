/**
 * Faults of the parquet path, each against the local server's export file port: the API key is
 * never sent to the signed-URL host (a sentinel key is looked for in every header the file port
 * saw and in every message), a cut download and 5xx are retried, an expired URL (403) makes the
 * reader ask for fresh URLs, a URL that stays refused fails naming run and file without the
 * signature, a redirect is refused, a forced parquet path on a server without exports fails, and a
 * failed fetch leaves the previous archive byte-identical.
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { after, before, beforeEach, test } from "node:test";

import { fetchAndFreeze, type FetchAndFreezeOptions } from "../../lib/archive/fetch-and-freeze";
import type { Reporter } from "../../lib/types";
import { startWandbTestServer, type WandbTestServer } from "../../tools/wandb-test-server/server";

const KEY = `sentinel-${randomBytes(16).toString("hex")}`;
const FORMS = [KEY, Buffer.from(`api:${KEY}`).toString("base64"), Buffer.from(KEY).toString("base64")];
let server: WandbTestServer;
const root = fs.mkdtempSync(path.join(os.tmpdir(), "parquet-faults-"));
let n = 0;
let notes: string[] = [];
const reporter: Reporter = { info: (m) => notes.push(m), warn: (m) => notes.push(m) };

const ROWS = Array.from({ length: 2500 }, (_, i) => ({ _step: i, loss: i % 97 === 0 ? NaN : 1 / (i + 1), ...(i % 5 === 0 ? { rare: i } : {}) }));

before(async () => {
  server = await startWandbTestServer({ apiKey: KEY });
  server.addRun({ entity: "e", project: "p", runId: "r1", rows: ROWS });
});
after(async () => {
  await server.close();
  fs.rmSync(root, { recursive: true, force: true });
});
beforeEach(() => {
  notes = [];
  server.setParquetExports({ enabled: true, lagSteps: 0, filesPerRun: 2 });
});

function opts(extra: Partial<FetchAndFreezeOptions> = {}): FetchAndFreezeOptions {
  return {
    entity: "e",
    project: "p",
    runs: [{ runId: "r1", round: "R0" }],
    outDir: path.join(root, `w${n++}`, "archive"),
    baseUrl: server.url,
    apiKey: KEY,
    env: {},
    reporter,
    retry: { random: () => 0, sleep: async () => undefined, retries: 3 },
    ...extra,
  };
}

/** Every text a user could see or keep: messages, the error, archive files. */
function assertNoKey(texts: string[]): void {
  for (const text of texts) for (const form of FORMS) assert.ok(!text.includes(form), `key (or a form of it) found in: ${text.slice(0, 200)}`);
}

test("the API key never reaches the export file port (no Authorization header at all), and the files hold the rows", async () => {
  const started = server.fileRequests.length;
  const o = opts();
  const manifest = await fetchAndFreeze(o);
  assert.equal(manifest.runs[0].historyPath, "parquet");
  assert.equal(manifest.runs[0].historyEvents, 2500);
  const downloads = server.fileRequests.slice(started);
  assert.equal(downloads.length, 2);
  assert.ok(new URL(server.fileUrl).port !== new URL(server.url).port);
  for (const d of downloads) {
    assert.equal(d.authorizationSent, false);
    assert.equal(d.authorization, null);
  }
  // The API port did get the key, on every request.
  assert.ok(server.requests.filter((r) => r.path === "/graphql").every((r) => r.authOk));
  assertNoKey([...notes, fs.readFileSync(path.join(o.outDir, "manifest.json"), "utf8")]);
});

test("a cut download and a 503 are retried; the archive is complete", async () => {
  server.injectFileFault({ kind: "cut" });
  server.injectFileFault({ kind: "status", status: 503 });
  const started = server.fileRequests.length;
  const manifest = await fetchAndFreeze(opts());
  assert.equal(manifest.runs[0].historyEvents, 2500);
  assert.deepEqual(
    server.fileRequests.slice(started).map((d) => d.fault),
    ["cut", "status", null, null],
  );
  assert.equal(notes.filter((m) => /parquet download of e\/p\/r1: exported file 1 of 2/.test(m)).length, 2);
  assert.match(notes.join("\n"), /body is not a whole Parquet file|download failed/);
  assertNoKey(notes);
});

test("an expired signed URL (403) makes the reader ask parquetHistory for fresh URLs, then it completes", async () => {
  server.injectFileFault({ kind: "expired" });
  const before = server.requests.filter((r) => r.operationName === "RunParquetHistory").length;
  const manifest = await fetchAndFreeze(opts());
  assert.equal(manifest.runs[0].historyEvents, 2500);
  assert.equal(server.requests.filter((r) => r.operationName === "RunParquetHistory").length - before, 2);
  assert.match(notes.join("\n"), /exported file 1 of 2 was refused \(HTTP 403: expired or revoked\); asking for fresh URLs \(1 of 3\)/);
});

test("a URL refused every time fails naming run and file, without the signature or the key; the previous archive stays", async () => {
  const o = opts();
  await fetchAndFreeze(o);
  const manifestBefore = fs.readFileSync(path.join(o.outDir, "manifest.json"), "utf8");
  const fileBefore = fs.readFileSync(path.join(o.outDir, "history/r1.jsonl"), "utf8");
  server.injectFileFault({ kind: "expired", count: 4 }); // the first download and one per fresh set of URLs
  const err = await fetchAndFreeze(o).then(
    () => assert.fail("expected a failure"),
    (e: Error) => e,
  );
  assert.equal(
    err.message,
    "W&B parquet download of e/p/r1 failed (HTTP 403): signed URL of exported file 1 of 2 was refused (HTTP 403: expired or revoked), also after asking for fresh URLs 3 times",
  );
  assert.doesNotMatch(err.message + notes.join("\n"), /X-Signature|X-Expires/);
  assertNoKey([err.message, ...notes]);
  assert.equal(fs.readFileSync(path.join(o.outDir, "manifest.json"), "utf8"), manifestBefore);
  assert.equal(fs.readFileSync(path.join(o.outDir, "history/r1.jsonl"), "utf8"), fileBefore);
});

test("a redirect from the file host is refused, not followed", async () => {
  server.injectFileFault({ kind: "redirect", location: `${server.url}/graphql?steal=1` });
  const started = server.requests.length;
  const err = await fetchAndFreeze(opts()).then(
    () => assert.fail("expected a failure"),
    (e: Error) => e,
  );
  assert.match(
    err.message,
    /^W&B parquet download of e\/p\/r1 failed \(HTTP 302, attempt 1 of 4\): exported file 1 of 2: server answered with a redirect to http:\/\/127\.0\.0\.1:\d+\/graphql; redirects are not followed \[GET http:\/\/127\.0\.0\.1:\d+\/wandb-exports\/e\/p\/r1\/r1_0\.runhistory\.parquet\]$/,
  );
  // Nothing went to the redirect target.
  assert.ok(server.requests.slice(started).every((r) => r.path === "/graphql" && r.method === "POST"));
});

test("5xx on every attempt gives up after the policy's retries", async () => {
  server.injectFileFault({ kind: "status", status: 500, count: 4 });
  const err = await fetchAndFreeze(opts()).then(
    () => assert.fail("expected a failure"),
    (e: Error) => e,
  );
  assert.match(
    err.message,
    /^W&B parquet download of e\/p\/r1 failed \(HTTP 500, attempt 4 of 4\): exported file 1 of 2: server answered: .*InjectedFault.* \(gave up after 3 retries\)/,
  );
});

test("--history-path parquet on a server without exports fails; pages and auto read the same run", async () => {
  server.setParquetExports({ enabled: false });
  const err = await fetchAndFreeze(opts({ historyPath: "parquet" })).then(
    () => assert.fail("expected a failure"),
    (e: Error) => e,
  );
  assert.equal(
    err.message,
    "W&B RunParquetHistory of e/p/r1 failed: the server lists no exported parquet files for this run (2500 live rows); use --history-path auto or pages",
  );
  const auto = await fetchAndFreeze(opts());
  assert.equal(auto.runs[0].historyPath, undefined);
  await assert.rejects(fetchAndFreeze(opts({ historyPath: "fast" as never })), { message: "invalid historyPath: fast" });
});

test("--history-path pages never asks for parquetHistory or downloads", async () => {
  const started = server.requests.length;
  const files = server.fileRequests.length;
  await fetchAndFreeze(opts({ historyPath: "pages" }));
  assert.ok(!server.requests.slice(started).some((r) => r.operationName === "RunParquetHistory"));
  assert.equal(server.fileRequests.length, files);
});
