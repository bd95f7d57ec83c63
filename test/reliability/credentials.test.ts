/**
 * The API key goes to the configured base URL host only: a server that redirects (to another port,
 * or to itself) is refused with a message naming the target, and the target never sees a request,
 * let alone an Authorization header. `.gitignore` keeps netrc-like files, .env and the Python
 * environment out of the repository. (Where the key is looked up: test/wandb/credentials.test.ts and
 * graphql-request.test.ts; the key never written anywhere, end to end: sentinel-key.test.ts.)
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as http from "node:http";
import type { AddressInfo } from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import { after, before, test } from "node:test";

import { fetchAndFreeze } from "../../lib/archive/fetch-and-freeze";
import { connectWandb } from "../../lib/wandb/connection";
import { readRunMeta } from "../../lib/wandb/read-run-meta";
import { WandbError } from "../../lib/wandb/wandb-error";
import { startWandbTestServer, type WandbTestServer } from "../../tools/wandb-test-server/server";

const ROOT = path.resolve(__dirname, "../..");
const KEY = "reliability-credentials-key-0000000000000";
const BASIC = `Basic ${Buffer.from(`api:${KEY}`).toString("base64")}`;
const root = fs.mkdtempSync(path.join(os.tmpdir(), "rel-cred-"));

/** The real server the redirects point at (it would accept the key). */
let target: WandbTestServer;
/** A raw server recording every request's method, path and Authorization header. */
let other: { url: string; seen: string[]; server: http.Server };

async function listen(handler: http.RequestListener): Promise<{ url: string; server: http.Server }> {
  const server = http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

before(async () => {
  target = await startWandbTestServer({ apiKey: KEY });
  target.addRun({ entity: "e", project: "p", runId: "r1", rows: [{ _step: 0, x: 1 }] });
  const seen: string[] = [];
  const o = await listen((req, res) => {
    seen.push(`${req.method} ${req.url} ${req.headers.authorization ?? "-"}`);
    res.writeHead(200, { "Content-Type": "application/json" });
    res.end('{"data":{"project":null}}');
  });
  other = { ...o, seen };
});
after(async () => {
  await target.close();
  other.server.close();
  fs.rmSync(root, { recursive: true, force: true });
});

test("redirects (301, 302, 307, 308) to another port are refused naming the target; the target sees no request and no header", async () => {
  for (const status of [301, 302, 307, 308]) {
    const hits: string[] = [];
    const redirecting = await listen((req, res) => {
      hits.push(req.headers.authorization ?? "-");
      res.writeHead(status, { Location: `${target.url}/graphql` });
      res.end();
    });
    try {
      const before = target.requests.length;
      const conn = connectWandb({ baseUrl: redirecting.url, apiKey: KEY, env: {}, retry: { sleep: async () => undefined } });
      const err = await readRunMeta(conn, { entity: "e", project: "p", runId: "r1" }).then(
        () => assert.fail("a redirect must not be followed"),
        (e: unknown) => e as WandbError,
      );
      assert.ok(err instanceof WandbError);
      assert.equal(err.status, status);
      assert.equal(
        err.message,
        `W&B Run of e/p/r1 failed (HTTP ${status}, attempt 1 of 21): server answered with a redirect to ${target.url}/graphql; redirects are not followed, so the API key is sent only to ${new URL(redirecting.url).host}: set WANDB_BASE_URL (baseUrl) to the server itself if it is the one you mean [POST ${redirecting.url}/graphql]`,
      );
      assert.deepEqual(hits, [BASIC], `${status}: one request, to the configured host, not retried`);
      assert.equal(target.requests.length, before, `${status}: the redirect target got no request`);
    } finally {
      redirecting.server.close();
    }
  }
});

test("a redirect to a server that would answer without auth: refused, so no data comes from a host nobody configured", async () => {
  const redirecting = await listen((_req, res) => {
    res.writeHead(307, { Location: `${other.url}/graphql` });
    res.end();
  });
  try {
    other.seen.length = 0;
    const outDir = path.join(root, "redirect", "archive");
    await assert.rejects(
      fetchAndFreeze({ entity: "e", project: "p", runs: [{ runId: "r1", round: "R0" }], outDir, baseUrl: redirecting.url, apiKey: KEY, env: {} }),
      (e: unknown) => e instanceof WandbError && e.status === 307 && e.message.includes(`redirect to ${other.url}/graphql`),
    );
    assert.deepEqual(other.seen, [], "the other server never saw a request (so never an Authorization header)");
    assert.equal(fs.existsSync(outDir), false);
  } finally {
    redirecting.server.close();
  }
});

test("a redirect back to the configured host itself is refused too (no silent re-post)", async () => {
  let hits = 0;
  const self = await listen((_req, res) => {
    hits++;
    res.writeHead(308, { Location: "/v2/graphql" });
    res.end();
  });
  try {
    const conn = connectWandb({ baseUrl: self.url, apiKey: KEY, env: {}, retry: { sleep: async () => undefined } });
    await assert.rejects(
      readRunMeta(conn, { entity: "e", project: "p", runId: "r1" }),
      /\(HTTP 308, attempt 1 of 21\): server answered with a redirect to \/v2\/graphql; redirects are not followed/,
    );
    assert.equal(hits, 1);
  } finally {
    self.server.close();
  }
});

test("a complete fetch with retries sends the key to the configured server only, on every request", async () => {
  other.seen.length = 0;
  const before = target.requests.length;
  target.injectFault({ kind: "status", status: 500 });
  target.injectFault({ kind: "reset" });
  const outDir = path.join(root, "ok", "archive");
  await fetchAndFreeze({
    entity: "e",
    project: "p",
    runs: [{ runId: "r1", round: "R0" }],
    outDir,
    baseUrl: target.url,
    apiKey: KEY,
    env: { WANDB_BASE_URL: other.url }, // an explicit baseUrl wins; the other server is never asked
    retry: { sleep: async () => undefined },
  });
  const sent = target.requests.slice(before);
  // The run's config (flags) after its metadata; the default path (auto) asks parquetHistory first;
  // this server lists no exports, so it pages.
  assert.deepEqual(
    sent.map((r) => `${r.operationName}${r.fault ? ` (${r.fault})` : ""}`),
    ["Run (status)", "Run (reset)", "Run", "RunConfig", "RunParquetHistory", "HistoryPage"],
  );
  assert.ok(
    sent.every((r) => r.authOk),
    "every request carried the key",
  );
  assert.deepEqual(other.seen, []);
});

test(".gitignore keeps netrc files, .env and the Python environment out; the frozen data and exports stay in", () => {
  const ignored = (p: string) => spawnSync("git", ["-C", ROOT, "check-ignore", "--no-index", "-q", p]).status === 0;
  for (const p of [
    ".netrc",
    "_netrc",
    "data/.netrc",
    "notebooks/_netrc",
    "my.netrc",
    ".env",
    "data/.env",
    ".venv/",
    ".venv/bin/python",
    ".venv/lib/python3.12/site-packages/x.py",
  ]) {
    assert.ok(ignored(p), `${p} must be ignored`);
  }
  for (const p of [
    "data/wandb/manifest.json",
    "data/wandb/history/sim-r0-ghfk.jsonl",
    "data/local/sim-r0-ghfk.log",
    "data/runs.json",
    "exports/manifest.json",
    "exports/summary.csv",
  ]) {
    assert.ok(!ignored(p), `${p} must not be ignored`);
  }
});
