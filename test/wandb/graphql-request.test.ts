import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { after, before, test } from "node:test";

import { startWandbTestServer, type WandbTestServer } from "../../tools/wandb-test-server/server";
import { connectWandb, type WandbReaderOptions } from "../../lib/wandb/connection";
import { graphqlRequest } from "../../lib/wandb/graphql-request";
import { readRunMeta } from "../../lib/wandb/read-run-meta";
import type { RetryPolicy } from "../../lib/wandb/retry-policy";
import { USER_AGENT } from "../../lib/wandb/version";
import { WandbError } from "../../lib/wandb/wandb-error";

const SENTINEL = "SENTINEL-KEY-7f3a9c1e5b2d4f6a8c0e1a3b5c7d9e0f"; // 45 chars, searched for in messages
let server: WandbTestServer;
const ref = { entity: "e", project: "p", runId: "r1" };

before(async () => {
  server = await startWandbTestServer({ apiKey: SENTINEL });
  server.addRun({ entity: "e", project: "p", runId: "r1", createdAt: "2024-05-01T12:00:00", rows: ['{"_step": 0, "a": 1}', '{"_step": 4, "a": 2}'] });
});
after(() => server.close());

/** Options with a recording sleep (no real waiting) and no jitter. */
function quiet(waits: number[], notes: string[], retry: Partial<RetryPolicy> = {}, extra: WandbReaderOptions = {}): WandbReaderOptions {
  return {
    baseUrl: server.url,
    apiKey: SENTINEL,
    env: {},
    reporter: { info: (m) => notes.push(m) },
    retry: { random: () => 0, sleep: async (ms) => void waits.push(ms), ...retry },
    ...extra,
  };
}

function runRequests(): number {
  return server.requests.filter((r) => r.operationName === "Run").length;
}

test("metadata: sends Basic auth and the public-client User-Agent", async () => {
  server.requests.length = 0;
  const meta = await readRunMeta(connectWandb(quiet([], [])), ref);
  assert.deepEqual(meta, {
    entity: "e",
    project: "p",
    runId: "r1",
    displayName: "r1",
    state: "finished",
    createdAt: "2024-05-01T12:00:00",
    heartbeatAt: meta.heartbeatAt,
    historyLineCount: 2,
    lastStep: 4,
  });
  assert.equal(server.requests[0].authOk, true);
  assert.equal(server.requests[0].userAgent, USER_AGENT);
  assert.match(USER_AGENT, /^W&B Public Client \d+\.\d+\.\d+ /);
});

test("429 without Retry-After: back-off 2 s, 4 s, then success", async () => {
  const waits: number[] = [];
  const notes: string[] = [];
  server.requests.length = 0;
  server.injectFault({ kind: "status", status: 429, count: 2 });
  const meta = await readRunMeta(connectWandb(quiet(waits, notes)), ref);
  assert.equal(meta.historyLineCount, 2);
  assert.deepEqual(waits, [2000, 4000]);
  assert.equal(runRequests(), 3);
  assert.equal(notes[0], 'W&B Run of e/p/r1: HTTP 429, server answered: {"errors":[{"message":"injected fault: HTTP 429"}]}; retry 1 of 20 in 2.0 s');
});

test("429 with Retry-After seconds and HTTP date: waits as given", async () => {
  const waits: number[] = [];
  server.injectFault({ kind: "status", status: 429, retryAfter: "3" });
  server.injectFault({ kind: "status", status: 503, retryAfter: "Wed, 01 Jan 2025 12:01:05 GMT" });
  const now = () => Date.UTC(2025, 0, 1, 12, 0, 0);
  await readRunMeta(connectWandb(quiet(waits, [], { now })), ref);
  assert.deepEqual(waits, [3000, 65000], "Retry-After is not capped at 60 s");
});

test("500, connection reset, truncated body and per-attempt timeout are retried", async () => {
  const waits: number[] = [];
  const notes: string[] = [];
  server.requests.length = 0;
  server.injectFault({ kind: "status", status: 500 });
  server.injectFault({ kind: "reset" });
  server.injectFault({ kind: "truncate" });
  server.injectFault({ kind: "delay", ms: 5000 });
  const meta = await readRunMeta(connectWandb(quiet(waits, notes, { timeoutMs: 300 })), ref);
  assert.equal(meta.lastStep, 4);
  assert.equal(runRequests(), 5);
  assert.deepEqual(waits, [2000, 4000, 8000, 16000]);
  assert.match(notes[0], /^W&B Run of e\/p\/r1: HTTP 500, /);
  assert.match(notes[1], /: connection failed: /);
  assert.match(notes[2], /: (response body is not complete JSON|connection failed): /, "half a body then a drop");
  assert.match(notes[3], /: no complete answer within the attempt time limit \(300 ms\); retry 4 of 20/);
});

test("401 (wrong key) fails at once, names the run, never shows the key", async () => {
  const waits: number[] = [];
  server.requests.length = 0;
  const wrong = "WRONG-" + SENTINEL;
  const err = await readRunMeta(connectWandb({ ...quiet(waits, []), apiKey: wrong }), ref).then(
    () => assert.fail("should fail"),
    (e: unknown) => e as WandbError,
  );
  assert.ok(err instanceof WandbError);
  assert.equal(err.status, 401);
  assert.equal(err.attempt, 1);
  assert.equal(err.runPath, "e/p/r1");
  assert.equal(
    err.message,
    `W&B Run of e/p/r1 failed (HTTP 401, attempt 1 of 21): server answered: {"errors":[{"message":"invalid or missing API key (expected Basic auth api:<key>)"}]} (unauthorized: the API key is wrong or missing) [POST ${server.url}/graphql]`,
  );
  assert.deepEqual(waits, []);
  assert.equal(runRequests(), 1);
  assert.equal(server.requests[0].authOk, false);
});

test("404 and the other never-retried statuses fail at once", async () => {
  for (const status of [400, 403, 404, 409, 410, 413, 422, 501]) {
    server.requests.length = 0;
    server.injectFault({ kind: "status", status });
    await assert.rejects(readRunMeta(connectWandb(quiet([], [])), ref), (e: unknown) => e instanceof WandbError && e.status === status && e.attempt === 1);
    assert.equal(runRequests(), 1, String(status));
  }
});

test("GraphQL errors (HTTP 200) fail at once", async () => {
  server.requests.length = 0;
  const conn = connectWandb(quiet([], []));
  await assert.rejects(
    graphqlRequest(conn, { operationName: "Bad", query: 'query Bad { project(name: "p", entityName: "e") { nosuchfield } }', variables: {}, runPath: null }),
    (e: unknown) =>
      e instanceof WandbError &&
      e.status === 200 &&
      e.message.startsWith(`W&B Bad failed (HTTP 200, attempt 1 of 21): GraphQL error: Cannot query field "nosuchfield" on type "Project".`),
  );
  assert.equal(server.requests.length, 1);
});

test("retries run out: the error tells the attempts", async () => {
  server.injectFault({ kind: "status", status: 502, count: 3 });
  await assert.rejects(readRunMeta(connectWandb(quiet([], [], { retries: 2 })), ref), (e: unknown) => {
    const err = e as WandbError;
    return err.status === 502 && err.attempt === 3 && /\(HTTP 502, attempt 3 of 3\): .*\(gave up after 2 retries\)/.test(err.message);
  });
});

test("a caller's abort is not retried", async () => {
  const controller = new AbortController();
  server.requests.length = 0;
  server.injectFault({ kind: "status", status: 500, count: 5 });
  const opts = quiet([], [], {
    sleep: async () => {
      controller.abort(new Error("user stop"));
      throw new Error("user stop");
    },
  });
  await assert.rejects(
    readRunMeta(connectWandb(opts), ref, controller.signal),
    (e: unknown) => e instanceof WandbError && /aborted by the caller/.test(e.message),
  );
  assert.equal(runRequests(), 1);
  const waits: number[] = [];
  await readRunMeta(connectWandb(quiet(waits, [])), ref); // drains the 4 faults left
  assert.equal(waits.length, 4);
});

test("the key is redacted from server text, plain and Basic-encoded", async () => {
  const basic = Buffer.from(`api:${SENTINEL}`).toString("base64");
  const echo: typeof fetch = async () => new Response(JSON.stringify({ errors: [{ message: `bad key ${SENTINEL} / Basic ${basic}` }] }), { status: 403 });
  const notes: string[] = [];
  const err = await readRunMeta(connectWandb(quiet([], notes, {}, { fetch: echo })), ref).catch((e: Error) => e);
  assert.ok(err instanceof WandbError);
  assert.ok(!err.message.includes(SENTINEL) && !err.message.includes(basic), err.message);
  assert.match(err.message, /bad key <redacted> \/ Basic <redacted>/);
  const echo500: typeof fetch = async () => new Response(`oops ${SENTINEL}`, { status: 500 });
  const err2 = await readRunMeta(connectWandb(quiet([], notes, { retries: 1 }, { fetch: echo500 })), ref).catch((e: Error) => e);
  assert.ok(!String((err2 as Error).message).includes(SENTINEL));
  assert.ok(
    notes.every((n) => !n.includes(SENTINEL)),
    "retry notes are redacted too",
  );
});

test("missing project or run: a clear WandbError", async () => {
  await assert.rejects(readRunMeta(connectWandb(quiet([], [])), { entity: "e", project: "nope", runId: "r1" }), {
    message: "W&B Run of e/nope/r1 failed: project e/nope not found",
  });
  await assert.rejects(readRunMeta(connectWandb(quiet([], [])), { entity: "e", project: "p", runId: "zz" }), {
    message: "W&B Run of e/p/zz failed: run zz not found in e/p",
  });
});

test("key from the netrc entry of the server's host:port, WANDB_BASE_URL from env", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "netrc-"));
  try {
    const netrc = path.join(dir, "netrc");
    fs.writeFileSync(netrc, `machine ${new URL(server.url).host} login user password ${SENTINEL}\n`);
    server.requests.length = 0;
    const meta = await readRunMeta(connectWandb({ env: { WANDB_BASE_URL: `${server.url}/`, NETRC: netrc } }), ref);
    assert.equal(meta.runId, "r1");
    assert.equal(server.requests[0].authOk, true);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test("429 with RateLimit-Reset waits that long; a 200 with RateLimit-Remaining 0 pauses before the next request", async () => {
  const waits: number[] = [];
  const notes: string[] = [];
  const answers = [
    new Response('{"errors":[{"message":"rate limited"}]}', { status: 429, headers: { "RateLimit-Remaining": "0", "RateLimit-Reset": "7" } }),
    new Response('{"data":{"viewer":null}}', { status: 200, headers: { "RateLimit-Remaining": "0", "RateLimit-Reset": "3" } }),
  ];
  const fetchStub = (async () => answers.shift()!) as unknown as typeof fetch;
  const conn = connectWandb(quiet(waits, notes, {}, { fetch: fetchStub }));
  const data = await graphqlRequest<{ viewer: null }>(conn, { operationName: "Viewer", query: "{ viewer { id } }", variables: {}, runPath: null });
  assert.deepEqual(data, { viewer: null });
  assert.deepEqual(waits, [7000, 3000]);
  assert.match(notes[0], /HTTP 429, .*retry 1 of 20 in 7\.0 s$/);
  assert.equal(notes[1], "W&B Viewer: rate limit reached (RateLimit-Remaining: 0); waiting 3.0 s (RateLimit-Reset)");
});
