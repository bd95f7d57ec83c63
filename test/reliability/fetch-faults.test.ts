/**
 * Faults during a fetch, injected by the local W&B test server: each fetch either completes with a
 * frozen archive byte-identical to a clean fetch of the same data (fetchedAt pinned), or fails with
 * one message naming the run and what failed and leaves the previous archive byte-identical (and
 * nothing beside it: no lock, temp or old folder).
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { after, before, test } from "node:test";

import { fetchAndFreeze, type FetchAndFreezeOptions } from "../../lib/archive/fetch-and-freeze";
import { verifyArchive } from "../../lib/archive/load-archive";
import { WandbError } from "../../lib/wandb/wandb-error";
import { startWandbTestServer, type Fault, type WandbTestServer } from "../../tools/wandb-test-server/server";
import { assertSameTree, snapshotTree } from "./tree-snapshot";

const KEY = "reliability-fetch-faults-key-00000000000";
const NOW = () => new Date("2025-02-03T04:05:06.000Z");
const LATER = () => new Date("2031-01-01T00:00:00.000Z"); // a fetch that wrongly succeeded would differ

const ROWS_A = [
  '{"_step": 0, "_runtime": 1.5, "train/loss": NaN, "rollout/step": 0, "img": {"_type": "image-file", "path": "x.png"}}',
  '{"_step": 1.0, "_runtime": 2.25, "train/loss": 0.125, "note": "hi", "gn": Infinity}',
  '{"_step": 3, "b": null, "a": 1e-05}',
];
const ROWS_B = Array.from({ length: 2500 }, (_, i) => ({ _step: i, "train/loss": i / 7, "rollout/step": Math.floor(i / 10) }));

let server: WandbTestServer;
const root = fs.mkdtempSync(path.join(os.tmpdir(), "rel-faults-"));
let n = 0;
/** A fresh archive folder `<root>/wN/archive`; its parent holds nothing else. */
const freshDir = () => path.join(root, `w${n++}`, "archive");
let clean: Record<string, string>;

before(async () => {
  server = await startWandbTestServer({ apiKey: KEY });
  server.addRun({ entity: "e", project: "p", runId: "runa", createdAt: "2024-05-01T12:00:00", rows: ROWS_A });
  server.addRun({ entity: "e", project: "p", runId: "runb", createdAt: "2024-05-02T12:00:00", state: "crashed", rows: ROWS_B });
  // The clean reference, fetched with the default concurrency (the faulted fetches use 1).
  const ref = freshDir();
  await fetchAndFreeze(opts(ref, { concurrency: 4 }));
  clean = snapshotTree(ref);
  assert.equal((await verifyArchive(ref)).ok, true);
});
after(async () => {
  server.onRequest = null;
  await server.close();
  fs.rmSync(root, { recursive: true, force: true });
});

/** Fetch options: both runs, pinned clock, one run at a time (deterministic fault order), no real waiting. */
function opts(outDir: string, extra: Partial<FetchAndFreezeOptions> = {}, waits: number[] = [], notes: string[] = []): FetchAndFreezeOptions {
  return {
    entity: "e",
    project: "p",
    runs: [
      { runId: "runa", round: "R0" },
      { runId: "runb", round: "R1" },
    ],
    outDir,
    baseUrl: server.url,
    apiKey: KEY,
    env: {},
    now: NOW,
    concurrency: 1,
    reporter: { info: (m) => notes.push(m) },
    ...extra,
    retry: { random: () => 0, sleep: async (ms) => void waits.push(ms), ...extra.retry },
  };
}

/** Injects faults, fetches, and asserts the archive equals the clean one; returns waits and retry notes. */
async function completesIdentically(faults: Fault[], extra: Partial<FetchAndFreezeOptions> = {}) {
  const outDir = freshDir();
  const waits: number[] = [];
  const notes: string[] = [];
  const before = server.requests.length;
  for (const f of faults) server.injectFault(f);
  await fetchAndFreeze(opts(outDir, extra, waits, notes));
  const faulted = server.requests.slice(before).filter((r) => r.fault).length;
  assertSameTree(snapshotTree(outDir), clean, "archive after faults vs clean fetch");
  assert.deepEqual(fs.readdirSync(path.dirname(outDir)), ["archive"], "no lock, temp or old folder left");
  return { waits, notes, faulted };
}

/**
 * Makes a previous archive, injects faults (or calls a function that arms them), expects the fetch into the same folder to fail with a
 * message matching `message`, and asserts the folder (and its parent) is byte-identical afterwards.
 */
async function failsKeepingPrevious(faults: Fault[] | (() => void), message: RegExp, extra: Partial<FetchAndFreezeOptions> = {}): Promise<Error> {
  const outDir = freshDir();
  await fetchAndFreeze(opts(outDir));
  const parent = path.dirname(outDir);
  const previous = snapshotTree(parent);
  if (typeof faults === "function") faults();
  else for (const f of faults) server.injectFault(f);
  const notes: string[] = [];
  const err = await fetchAndFreeze(opts(outDir, { now: LATER, ...extra }, [], notes))
    .then(
      () => assert.fail("the fetch should fail"),
      (e: Error) => e,
    )
    // A fault the fetch did not use up must not reach the next test's requests.
    .finally(() => server.clearFaults());
  assert.match(err.message, message);
  assert.ok(!err.message.includes("\n"), "one line");
  assertSameTree(snapshotTree(parent), previous, "previous archive after a failed fetch");
  return err;
}

// ---------------------------------------------------------------- faults the reader rides out

test("429 without Retry-After: back-off 2 s, 4 s (recorded, not slept); archive byte-identical", async () => {
  const r = await completesIdentically([
    { kind: "status", status: 429, operationName: "Run" },
    { kind: "status", status: 429, count: 2, operationName: "HistoryPage" },
  ]);
  assert.equal(r.faulted, 3);
  assert.deepEqual(r.waits, [2000, 2000, 4000]);
  assert.equal(r.notes.length, 3);
  assert.match(r.notes[0], /^W&B Run of e\/p\/runa: HTTP 429, server answered: .*; retry 1 of 20 in 2\.0 s$/);
  assert.match(r.notes[1], /^W&B HistoryPage of e\/p\/runa: steps \[0, 4\): HTTP 429, .*; retry 1 of 20 in 2\.0 s$/);
  assert.match(r.notes[2], /retry 2 of 20 in 4\.0 s$/);
});

test("429 with Retry-After seconds and 503 with Retry-After date: waits as given; archive byte-identical", async () => {
  const r = await completesIdentically(
    [
      { kind: "status", status: 429, retryAfter: "7", operationName: "HistoryPage" },
      { kind: "status", status: 503, retryAfter: "Wed, 01 Jan 2025 12:00:09 GMT", operationName: "HistoryPage" },
    ],
    { retry: { now: () => Date.UTC(2025, 0, 1, 12, 0, 0) } },
  );
  assert.deepEqual(r.waits, [7000, 9000]);
});

test("bursts of 500, 502 and 503 on pages and on run metadata are retried; archive byte-identical", async () => {
  const r = await completesIdentically([
    { kind: "status", status: 500, count: 3, operationName: "HistoryPage" },
    { kind: "status", status: 502, count: 3, operationName: "HistoryPage" },
    { kind: "status", status: 503, count: 3, operationName: "Run" },
  ]);
  assert.equal(r.faulted, 9);
  // Run of runa: 3 x 503; HistoryPage of runa: 3 x 500 then 3 x 502 (one request, six retries, capped at 60 s).
  assert.deepEqual(r.waits, [2000, 4000, 8000, 2000, 4000, 8000, 16000, 32000, 60000]);
  for (const status of [500, 502, 503])
    assert.ok(
      r.notes.some((m) => m.includes(`HTTP ${status}, `)),
      `a note for ${status}`,
    );
});

test("a response cut mid-body (truncate) is retried; archive byte-identical", async () => {
  const r = await completesIdentically([
    { kind: "truncate", operationName: "Run" },
    { kind: "truncate", count: 2, operationName: "HistoryPage" },
  ]);
  assert.equal(r.faulted, 3);
  assert.ok(
    r.notes.every((m) => /: (response body is not complete JSON|connection failed): /.test(m)),
    r.notes.join("\n"),
  );
});

test("a connection reset (no reply at all) is retried; archive byte-identical", async () => {
  const r = await completesIdentically([
    { kind: "reset", operationName: "Run" },
    { kind: "reset", count: 2, operationName: "HistoryPage" },
  ]);
  assert.equal(r.faulted, 3);
  assert.ok(
    r.notes.every((m) => m.includes(": connection failed: ")),
    r.notes.join("\n"),
  );
});

test("a server stalling past the per-attempt timeout is retried; archive byte-identical", async () => {
  const r = await completesIdentically([{ kind: "delay", ms: 5000, count: 2, operationName: "HistoryPage" }], { retry: { timeoutMs: 200 } });
  assert.equal(r.faulted, 2);
  assert.equal(r.notes.length, 2);
  assert.ok(
    r.notes.every((m) => m.includes(": no complete answer within the attempt time limit (200 ms); retry")),
    r.notes.join("\n"),
  );
});

test("every fault kind at once, with four runs at a time: archive byte-identical", async () => {
  const r = await completesIdentically(
    [
      { kind: "status", status: 429 },
      { kind: "reset" },
      { kind: "truncate" },
      { kind: "status", status: 502, retryAfter: "0" },
      { kind: "delay", ms: 5000 },
      { kind: "status", status: 500, count: 2, operationName: "HistoryPage" },
    ],
    { concurrency: 4, retry: { timeoutMs: 200 } },
  );
  assert.equal(r.faulted, 7);
});

test("a run whose lastStep grows during the fetch: the archive holds exactly the rows of the first look", async () => {
  server.addRun({ entity: "e", project: "p", runId: "grow", state: "running", createdAt: "2024-05-03T00:00:00", rows: ROWS_B.slice(0, 1200) });
  const runs = [{ runId: "grow", round: "R0" }];
  const ref = freshDir();
  await fetchAndFreeze(opts(ref, { runs, allowRunning: true, pageSize: 500 })); // before any growth
  const reference = snapshotTree(ref);
  let appended = 0;
  server.onRequest = (entry) => {
    // Each page request logs more rows first (steps after the current last one), as a live run would.
    if (entry.operationName === "HistoryPage") {
      const last = server.getRun("e", "p", "grow")!.lastStep;
      server.appendRows("e", "p", "grow", [
        { _step: last + 1, "train/loss": 1 },
        { _step: last + 3, "train/loss": 2 },
      ]);
      appended += 2;
    }
  };
  try {
    const outDir = freshDir();
    const manifest = await fetchAndFreeze(opts(outDir, { runs, allowRunning: true, pageSize: 500 }));
    assert.equal(appended, 6, "three pages, each answered after new rows arrived");
    assert.equal(server.getRun("e", "p", "grow")!.rows.length, 1206);
    assert.deepEqual([manifest.runs[0].historyEvents, manifest.runs[0].lastStep, manifest.runs[0].state], [1200, 1199, "running"]);
    assertSameTree(snapshotTree(outDir), reference, "growing run vs its first look");
    // Without allowRunning the same run is refused up front, naming it; the archive stays.
    const before = snapshotTree(path.dirname(outDir));
    await assert.rejects(fetchAndFreeze(opts(outDir, { runs, now: LATER })), {
      message: "run e/p/grow is still running: its history may still grow; wait until it ends, or allow it (allowRunning, CLI --allow-running)",
    });
    assertSameTree(snapshotTree(path.dirname(outDir)), before, "previous archive after refusing a running run");
  } finally {
    server.onRequest = null;
  }
});

// ---------------------------------------------------------------- faults that end the fetch

test("500s beyond the retries: names run, steps, status and attempts; previous archive byte-identical", async () => {
  const err = await failsKeepingPrevious(
    [{ kind: "status", status: 500, count: 3, operationName: "HistoryPage" }],
    /^W&B HistoryPage of e\/p\/runa failed \(HTTP 500, attempt 3 of 3\): steps \[0, 4\): server answered: \{"errors":\[\{"message":"injected fault: HTTP 500"\}\]\} \(gave up after 2 retries\) \[POST http:\/\/127\.0\.0\.1:\d+\/graphql\]$/,
    { retry: { retries: 2 } },
  );
  assert.ok(err instanceof WandbError && err.status === 500 && err.attempt === 3 && err.runPath === "e/p/runa");
});

test("429 beyond the retries (Retry-After 0): same, previous archive byte-identical", async () => {
  await failsKeepingPrevious(
    [{ kind: "status", status: 429, retryAfter: "0", count: 2, operationName: "Run" }],
    /^W&B Run of e\/p\/runa failed \(HTTP 429, attempt 2 of 2\): server answered: .* \(gave up after 1 retries\) \[POST /,
    { retry: { retries: 1 } },
  );
});

test("connection resets beyond the retries: 'connection failed'; previous archive byte-identical", async () => {
  await failsKeepingPrevious(
    [{ kind: "reset", count: 2, operationName: "HistoryPage" }],
    /^W&B HistoryPage of e\/p\/runa failed \(attempt 2 of 2\): steps \[0, 4\): connection failed: .* \(gave up after 1 retries\) \[POST /,
    { retry: { retries: 1 } },
  );
});

test("bodies cut mid-way beyond the retries: previous archive byte-identical", async () => {
  await failsKeepingPrevious(
    [{ kind: "truncate", count: 2, operationName: "HistoryPage" }],
    /^W&B HistoryPage of e\/p\/runa failed (\(HTTP 200, attempt 2 of 2\): steps \[0, 4\): response body is not complete JSON|\(attempt 2 of 2\): steps \[0, 4\): connection failed): .* \(gave up after 1 retries\)/,
    { retry: { retries: 1 } },
  );
});

test("a server stalling on every attempt: 'no complete answer within the attempt time limit'; previous archive byte-identical", async () => {
  await failsKeepingPrevious(
    [{ kind: "delay", ms: 5000, count: 2, operationName: "HistoryPage" }],
    /^W&B HistoryPage of e\/p\/runa failed \(attempt 2 of 2\): steps \[0, 4\): no complete answer within the attempt time limit \(200 ms\) \(gave up after 1 retries\)/,
    { retry: { retries: 1, timeoutMs: 200 } },
  );
});

test("a short page (fewer rows than the window holds): completeness error naming the run; previous archive byte-identical", async () => {
  const err = await failsKeepingPrevious(
    [{ kind: "short-page", drop: 1 }],
    /^W&B completeness of e\/p\/runa failed: read 2 rows in steps \[0, 3\], the server holds 3 \(historyLineCount\): history is incomplete$/,
  );
  assert.ok(err instanceof WandbError && err.operation === "completeness");
  // The same on the last page of a long run, fetched four at a time: a lone run then asks for 4
  // windows at once, so the fault is armed by the last window's own request.
  const lastWindow = () => {
    server.onRequest = (entry) => {
      const v = entry.variables as { run?: string; minStep?: number } | null;
      if (entry.operationName === "HistoryPage" && v?.run === "runb" && v.minStep === 2000) server.injectFault({ kind: "short-page", drop: 3 });
    };
  };
  try {
    await failsKeepingPrevious(
      lastWindow,
      /^W&B completeness of e\/p\/runb failed: read 2497 rows in steps \[0, 2499\], the server holds 2500 \(historyLineCount\): history is incomplete$/,
      { runs: [{ runId: "runb", round: "R1" }], concurrency: 4 },
    );
  } finally {
    server.onRequest = null;
  }
});

test("a not-retried status on the second page, after the first was written: previous archive byte-identical", async () => {
  let pages = 0;
  const arm = () => {
    server.onRequest = (entry) => {
      if (entry.operationName === "HistoryPage" && (entry.variables as { run: string }).run === "runb" && ++pages === 2) {
        server.injectFault({ kind: "status", status: 404, operationName: "HistoryPage" });
      }
    };
  };
  try {
    await failsKeepingPrevious(
      arm,
      /^W&B HistoryPage of e\/p\/runb failed \(HTTP 404, attempt 1 of 21\): steps \[1000, 2000\): server answered: .* \(not found: wrong base URL, entity, project or run\) \[POST /,
    );
  } finally {
    server.onRequest = null;
  }
});

test("a run that does not exist: names it; previous archive byte-identical", async () => {
  await failsKeepingPrevious([], /^W&B Run of e\/p\/nosuch failed: run nosuch not found in e\/p$/, {
    runs: [
      { runId: "runa", round: "R0" },
      { runId: "nosuch", round: "R1" },
    ],
  });
});
