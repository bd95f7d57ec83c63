/**
 * Two fetches into the same archive folder cannot interleave: while one holds the lock, another
 * (in this process or another one) is refused with a message naming the lock file; fetches that
 * follow each other both complete. Either way the final archive is complete, verifies, and is
 * byte-identical to a clean fetch. The overlap is made deterministic by holding the first fetch in
 * its retry wait (a 429 on its first request and a sleep that waits for the test), not by timing.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { after, before, test } from "node:test";

import { fetchAndFreeze, type FetchAndFreezeOptions } from "../../lib/archive/fetch-and-freeze";
import { verifyArchive } from "../../lib/archive/load-archive";
import { archiveSiblings } from "../../lib/archive/replace-dir";
import { startWandbTestServer, type WandbTestServer } from "../../tools/wandb-test-server/server";
import { assertSameTree, snapshotTree } from "./tree-snapshot";

const ROOT = path.resolve(__dirname, "../..");
const NOW = new Date("2025-02-03T04:05:06.000Z");
const root = fs.mkdtempSync(path.join(os.tmpdir(), "rel-lock-"));
let server: WandbTestServer;
let reference: Record<string, string>;
let n = 0;
const freshDir = () => path.join(root, `w${n++}`, "archive");

before(async () => {
  server = await startWandbTestServer({});
  server.addRun({
    entity: "e",
    project: "p",
    runId: "r1",
    createdAt: "2024-01-01T00:00:00",
    // A key of verl's: the fetch CLI decides each run's framework (and refuses runs of none).
    rows: Array.from({ length: 2300 }, (_, i) => ({ _step: i, "actor/x": i / 3 })),
  });
  server.addRun({
    entity: "e",
    project: "p",
    runId: "r2",
    createdAt: "2024-01-02T00:00:00",
    rows: ['{"_step": 0, "actor/x": NaN}', '{"_step": 5, "actor/x": 1.5}'],
  });
  const ref = freshDir();
  await fetchAndFreeze(opts(ref));
  reference = snapshotTree(ref);
});
after(async () => {
  await server.close();
  fs.rmSync(root, { recursive: true, force: true });
});

function opts(outDir: string, extra: Partial<FetchAndFreezeOptions> = {}): FetchAndFreezeOptions {
  return {
    entity: "e",
    project: "p",
    runs: [
      { runId: "r1", round: "R0" },
      { runId: "r2", round: "R1" },
    ],
    outDir,
    baseUrl: server.url,
    apiKey: server.apiKey,
    env: {},
    now: () => NOW,
    profile: "detect", // as the CLI: its archives are compared byte for byte with these
    ...extra,
  };
}

/** scripts/fetch.ts as another process, fetchedAt pinned to NOW through SOURCE_DATE_EPOCH. */
function cliFetch(outDir: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const args = ["--import", "tsx", path.join(ROOT, "scripts/fetch.ts"), "--entity", "e", "--project", "p", "--run", "r1=R0", "--run", "r2=R1", "--out", outDir];
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      args,
      {
        cwd: ROOT,
        env: {
          PATH: process.env.PATH ?? "",
          HOME: root,
          WANDB_BASE_URL: server.url,
          WANDB_API_KEY: server.apiKey,
          SOURCE_DATE_EPOCH: String(NOW.getTime() / 1000),
        },
      },
      (err, stdout, stderr) => resolve({ code: err ? (typeof err.code === "number" ? err.code : 1) : 0, stdout, stderr }),
    );
  });
}

/** Starts a fetch that takes the lock, then waits in its first retry until `release()` is called. */
async function heldFetch(outDir: string): Promise<{ done: Promise<unknown>; release: () => void }> {
  let entered!: () => void;
  const sleeping = new Promise<void>((resolve) => (entered = resolve));
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  server.injectFault({ kind: "status", status: 429, operationName: "Run" });
  const done = fetchAndFreeze(
    opts(outDir, {
      retry: {
        sleep: async () => {
          entered();
          return gate;
        },
      },
    }),
  );
  await sleeping; // the lock is taken before any request, so it is held now
  return { done, release };
}

test("another process fetching into a folder while this one holds it is refused naming the lock; then both complete in turn", async () => {
  const outDir = freshDir();
  const { lock } = archiveSiblings(outDir);
  const held = await heldFetch(outDir);
  try {
    assert.match(fs.readFileSync(lock, "utf8"), new RegExp(`^\\{"pid":${process.pid},"host":`));
    const r = await cliFetch(outDir);
    assert.equal(r.code, 1, r.stderr);
    assert.equal(r.stdout, "");
    assert.match(
      r.stderr,
      new RegExp(
        `^fetch failed: archive ${outDir} is locked by another fetch \\(lock file ${lock}: \\{"pid":${process.pid},"host":"[^"]+","startedAt":"[^"]+"\\}\\); if no fetch is running, delete the lock file and try again\\n$`,
      ),
    );
    assert.equal(fs.existsSync(outDir), false, "the refused fetch wrote nothing");
  } finally {
    held.release();
  }
  await held.done;
  assert.equal((await verifyArchive(outDir)).ok, true);
  assertSameTree(snapshotTree(outDir), reference, "archive of the fetch that held the lock");
  assert.deepEqual(fs.readdirSync(path.dirname(outDir)), ["archive"], "lock released, no temp folder");

  // One after the other: the second process completes and replaces it with the same bytes.
  const again = await cliFetch(outDir);
  assert.equal(again.code, 0, again.stderr);
  assert.equal((await verifyArchive(outDir)).ok, true);
  assertSameTree(snapshotTree(outDir), reference, "archive of the second, sequential fetch (another process)");
});

test("five fetches into one folder at once: one completes, the others are refused naming the lock; the archive verifies", async () => {
  const outDir = freshDir();
  const results = await Promise.allSettled(Array.from({ length: 5 }, () => fetchAndFreeze(opts(outDir))));
  const won = results.filter((r) => r.status === "fulfilled").length;
  const refused = results.filter((r): r is PromiseRejectedResult => r.status === "rejected");
  assert.ok(won >= 1, "at least one fetch completes");
  assert.equal(won + refused.length, 5);
  for (const r of refused) assert.match((r.reason as Error).message, /^archive .* is locked by another fetch \(lock file .*\.archive\.lock: \{"pid":\d+/);
  assert.equal((await verifyArchive(outDir)).ok, true);
  assertSameTree(snapshotTree(outDir), reference, "final archive");
  assert.deepEqual(fs.readdirSync(path.dirname(outDir)), ["archive"]);
});

test("a fetch refused by the lock does not disturb the one holding it, even when the holder then fails", async () => {
  const outDir = freshDir();
  await fetchAndFreeze(opts(outDir));
  const previous = snapshotTree(path.dirname(outDir));
  // The holder will fail after its wait (404 on its retried request): the previous archive must survive both.
  const held = await heldFetch(outDir);
  server.injectFault({ kind: "status", status: 404, operationName: "Run" });
  try {
    await assert.rejects(fetchAndFreeze(opts(outDir)), /is locked by another fetch/);
  } finally {
    held.release();
  }
  await assert.rejects(held.done, /^WandbError: W&B Run of e\/p\/r1 failed \(HTTP 404, attempt 2 of 21\)/);
  assertSameTree(snapshotTree(path.dirname(outDir)), previous, "previous archive, lock released");
});

test("fetches into different folders at once do not block each other", async () => {
  const a = freshDir();
  const b = freshDir();
  await Promise.all([fetchAndFreeze(opts(a)), fetchAndFreeze(opts(b))]);
  assertSameTree(snapshotTree(a), reference, "a");
  assertSameTree(snapshotTree(b), reference, "b");
});
