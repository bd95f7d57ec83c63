// fetchAndFreeze on freeze threads (lib/archive/freeze-threads.ts + freeze-worker.ts): the same
// archive bytes, manifest, progress, notes and errors as on the calling thread.
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { after, before, test } from "node:test";

import { fetchAndFreeze, type FetchAndFreezeOptions } from "../../lib/archive/fetch-and-freeze";
import { restoreThreadError } from "../../lib/archive/freeze-threads";
import { threadError } from "../../lib/archive/freeze-worker";
import { PREBUILT_WORKERS } from "../../lib/archive/worker-code";
import { WandbError } from "../../lib/wandb/wandb-error";
import { startWandbTestServer, type WandbTestServer } from "../../tools/wandb-test-server/server";

const KEY = "threads-key-0123456789abcdef0123456789ab";
let server: WandbTestServer;
const root = fs.mkdtempSync(path.join(os.tmpdir(), "freeze-threads-"));
let n = 0;
const freshDir = () => path.join(root, `w${n++}`, "archive");

// Bare NaN/Infinity, a media value (dropped), an absent key, a float written as 12.0 and as 1e-05.
const ODD_ROWS = [
  '{"_step": 0, "a": NaN, "img": {"_type": "image-file", "path": "x.png"}, "b": 1e-05}',
  '{"_step": 1, "a": Infinity, "note": "hi", "c": 12.0}',
  '{"_step": 4, "b": -Infinity}',
];
const RUN_IDS = ["odd", "r1", "r2", "r3"];

before(async () => {
  server = await startWandbTestServer({ apiKey: KEY });
  server.addRun({ entity: "e", project: "p", runId: "odd", rows: ODD_ROWS });
  server.addRun({
    entity: "e",
    project: "p",
    runId: "bad",
    rows: [
      { _step: 0, v: 1 },
      { _step: 1, note: "x".repeat(300) },
    ],
  });
  for (const [i, runId] of RUN_IDS.slice(1).entries()) {
    server.addRun({ entity: "e", project: "p", runId, rows: Array.from({ length: 2500 + i * 700 }, (_, s) => ({ _step: s, v: s / 7, [`k${s % 5}`]: -s })) });
  }
});
after(async () => {
  await server.close();
  fs.rmSync(root, { recursive: true, force: true });
});

function opts(extra: Partial<FetchAndFreezeOptions> = {}): FetchAndFreezeOptions {
  return {
    entity: "e",
    project: "p",
    runs: RUN_IDS.map((runId, i) => ({ runId, round: `R${i}` })),
    outDir: freshDir(),
    baseUrl: server.url,
    apiKey: KEY,
    env: {},
    now: () => new Date("2025-01-02T03:04:05.000Z"),
    retry: { baseWaitMs: 1, maxWaitMs: 2, jitter: 0 }, // data only: threads can take it
    ...extra,
  };
}

function files(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of fs.readdirSync(path.join(dir, "history"))) out[name] = fs.readFileSync(path.join(dir, "history", name), "utf8");
  out["manifest.json"] = fs.readFileSync(path.join(dir, "manifest.json"), "utf8");
  return out;
}

test("two freeze threads write the same archive bytes, manifest and progress as the calling thread", async () => {
  const progress = (log: string[]) => ({ progress: (task: string, done: number, total: number | null) => void log.push(`${task} ${done}/${total}`) });
  const here: string[] = [];
  const there: string[] = [];
  const a = opts({ threads: 0, reporter: progress(here) });
  const b = opts({ threads: 2, reporter: progress(there) });
  const ma = await fetchAndFreeze(a);
  const mb = await fetchAndFreeze(b);
  assert.deepEqual(mb, ma);
  assert.deepEqual(files(b.outDir), files(a.outDir));
  assert.deepEqual(
    ma.runs.map((r) => r.historyEvents),
    [3, 2500, 3200, 3900],
  );
  assert.deepEqual(ma.runs[0].droppedKeys, { img: 1, note: 1 });
  assert.equal(files(a.outDir)["odd.jsonl"], '{"_step":0,"a":"NaN","b":0.00001}\n{"_step":1,"a":"Infinity","c":12}\n{"_step":4,"b":"-Infinity"}\n');
  assert.deepEqual(there.slice().sort(), here.slice().sort(), "every progress report crosses back");
  assert.ok(there.includes("fetch e/p/r3 3900/3900"));
});

test("the parquet path on threads gives the same bytes too", async () => {
  server.setParquetExports({ enabled: true, lagSteps: 100, filesPerRun: 2, rowGroupSize: 500 });
  try {
    const a = opts({ threads: 0 });
    const b = opts({ threads: 2 });
    const ma = await fetchAndFreeze(a);
    assert.deepEqual(await fetchAndFreeze(b), ma);
    assert.deepEqual(files(b.outDir), files(a.outDir));
    // The odd run's 3 rows all lie in the 100 live steps: paged only (no historyPath).
    assert.deepEqual(
      ma.runs.map((r) => r.historyPath),
      [undefined, "parquet+pages", "parquet+pages", "parquet+pages"],
    );
  } finally {
    server.setParquetExports({ enabled: false });
  }
});

test("a run failing on a thread fails the fetch with the same WandbError as on the calling thread, and leaves nothing", async () => {
  const failWith = async (threads: number) => {
    const o = opts({ threads, limits: { maxRowChars: 200 }, runs: ["r1", "bad", "r2", "r3"].map((runId, i) => ({ runId, round: `R${i}` })) });
    const e = await fetchAndFreeze(o).catch((err: unknown) => err);
    assert.ok(!fs.existsSync(path.dirname(o.outDir)) || fs.readdirSync(path.dirname(o.outDir)).length === 0, "no archive, no debris");
    return e as WandbError;
  };
  const here = await failWith(0);
  const there = await failWith(2);
  assert.ok(there instanceof WandbError);
  assert.equal(there.message, here.message);
  assert.deepEqual([there.operation, there.runPath, there.status, there.attempt], [here.operation, here.runPath, here.status, here.attempt]);
  assert.match(
    there.message,
    /^W&B HistoryPage of e\/p\/bad failed: row 1 of steps \[0, 2\) \(_step 1\) is 3\d\d characters long, over the limit of 200 \(maxRowChars\)$/,
  );
});

test("retry notes from a thread reach the reporter", async () => {
  server.injectFault({ kind: "status", status: 500, operationName: "HistoryPage" });
  const notes: string[] = [];
  const m = await fetchAndFreeze(opts({ threads: 2, reporter: { info: (msg) => notes.push(msg) } }));
  assert.equal(m.runs[3].historyEvents, 3900);
  assert.equal(notes.length, 1);
  assert.match(notes[0], /HTTP 500/);
});

test("a freeze thread that cannot start leaves its runs to the calling thread: same archive", async () => {
  const g = globalThis as { [PREBUILT_WORKERS]?: Record<string, string> };
  const a = opts({ threads: 0 });
  await fetchAndFreeze(a);
  g[PREBUILT_WORKERS] = { "freeze-worker": path.join(root, "no-such-worker.cjs") };
  try {
    const notes: string[] = [];
    const b = opts({ threads: 2, reporter: { info: (m) => notes.push(m) } });
    await fetchAndFreeze(b);
    assert.deepEqual(files(b.outDir), files(a.outDir));
    assert.equal(notes.length, 2, "one note per thread");
    assert.match(notes[0], /^freeze thread could not start \(.*no-such-worker\.cjs.*\): its runs are read on the calling thread$/s);
  } finally {
    delete g[PREBUILT_WORKERS];
  }
});

test("threads are checked before any request: invalid threads names the value and why", async () => {
  const requests = server.requests.length;
  await assert.rejects(fetchAndFreeze(opts({ threads: -1 })), /^Error: invalid threads: -1$/);
  await assert.rejects(fetchAndFreeze(opts({ threads: 1.5 })), /invalid threads: 1.5/);
  await assert.rejects(
    fetchAndFreeze(opts({ threads: 2, retry: { sleep: async () => undefined } })),
    /invalid threads: 2 \(retry overrides that are functions cannot be sent to a thread\)/,
  );
  assert.equal(server.requests.length, requests, "no request was made");
});

test("an error crossing threads keeps WandbError fields, message, name and errno code", () => {
  const w = new WandbError({
    operation: "HistoryPage",
    runPath: "e/p/r",
    status: 503,
    attempt: 3,
    maxAttempts: 21,
    detail: "busy",
    endpoint: "POST http://x/graphql",
  });
  const back = restoreThreadError(threadError(w));
  assert.ok(back instanceof WandbError);
  assert.equal(back.message, w.message);
  assert.deepEqual([back.operation, back.runPath, back.status, back.attempt], ["HistoryPage", "e/p/r", 503, 3]);
  const fsError = Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" });
  const back2 = restoreThreadError(threadError(fsError)) as NodeJS.ErrnoException;
  assert.ok(!(back2 instanceof WandbError));
  assert.deepEqual([back2.message, back2.code, back2.name], [fsError.message, "ENOSPC", "Error"]);
  const typeError = restoreThreadError(threadError(new TypeError("bad")));
  assert.equal(typeError.name, "TypeError");
});

test("default threads: one per core, at most one per run and the concurrency, from 20,000 rows in 2+ runs; none for one", async () => {
  const { freezeThreadCount } = await import("../../lib/archive/fetch-and-freeze");
  const meta = (historyLineCount: number) => ({ historyLineCount }) as Parameters<typeof freezeThreadCount>[1][number];
  const cores = os.availableParallelism();
  const base = opts();
  assert.equal(freezeThreadCount(base, [meta(10_000), meta(10_000)]), cores >= 2 ? 2 : 0);
  assert.equal(freezeThreadCount(base, [meta(10_000), meta(9_999)]), 0, "under 20,000 rows: no thread");
  assert.equal(freezeThreadCount(base, [meta(1e6)]), 0, "one run: no thread");
  assert.equal(freezeThreadCount({ ...base, concurrency: 1 }, [meta(1e5), meta(1e5)]), 0, "one at a time: no thread");
  assert.equal(freezeThreadCount({ ...base, retry: { sleep: async () => undefined } }, [meta(1e5), meta(1e5)]), 0, "a function in the retry policy: no thread");
  assert.equal(freezeThreadCount({ ...base, threads: 3 }, [meta(1), meta(1)]), 2, "threads as given, at most one per run");
  assert.equal(freezeThreadCount({ ...base, threads: 0 }, [meta(1e6), meta(1e6)]), 0);
});

test("scripts/prebuilt.cjs bundles every worker entry lib names (lib/archive/worker-code.ts WORKER_ENTRIES)", async () => {
  const { WORKER_ENTRIES } = await import("../../lib/archive/worker-code");
  const text = fs.readFileSync(path.join(__dirname, "../../scripts/prebuilt.cjs"), "utf8");
  const m = /const WORKERS = (\{[^}]*\});/.exec(text);
  assert.ok(m, "prebuilt.cjs declares WORKERS");
  const expected = Object.fromEntries(Object.entries(WORKER_ENTRIES).map(([name, rel]) => [name, `lib/${rel}.ts`]));
  assert.deepEqual(JSON.parse(m[1]), expected);
  for (const file of Object.values(expected)) assert.ok(fs.existsSync(path.join(__dirname, "../..", file)), file);
});

test("aborting a threaded fetch (Ctrl-C) stops the threads: rejects with the caller's reason, previous archive byte-identical, nothing left", async () => {
  const o = opts({ threads: 2 });
  await fetchAndFreeze(o);
  const before = files(o.outDir);
  server.injectFault({ kind: "delay", ms: 300, count: 1000, operationName: "HistoryPage" });
  try {
    const controller = new AbortController();
    const reason = new Error("interrupted");
    const pending = fetchAndFreeze({ ...o, signal: controller.signal, now: () => new Date("2030-01-01T00:00:00Z") });
    let abortedAt = 0;
    setTimeout(() => {
      abortedAt = Date.now();
      controller.abort(reason);
    }, 150);
    await assert.rejects(pending, (e: unknown) => e === reason);
    // Every page waits 300 ms and a run has 3-4 of them: a thread that missed the abort would go on
    // for a second or more (its run's pages one after another).
    assert.ok(Date.now() - abortedAt < 800, `stopped ${Date.now() - abortedAt} ms after the abort`);
  } finally {
    server.clearFaults();
  }
  assert.deepEqual(files(o.outDir), before);
  assert.deepEqual(fs.readdirSync(path.dirname(o.outDir)), ["archive"], "no temp, lock or old folder beside it");
});

test("a freeze thread that dies mid-run fails that run naming the thread's error; it is not run again on the caller", async () => {
  const { startFreezeThreads } = await import("../../lib/archive/freeze-threads");
  const { DEFAULT_READER_LIMITS } = await import("../../lib/wandb/reader-limits");
  let onCaller = 0;
  // A connection the thread cannot build: it throws outside any promise, so the thread itself dies.
  const threads = startFreezeThreads(1, { baseUrl: server.url, apiKey: KEY, retry: { retries: -1 }, limits: DEFAULT_READER_LIMITS }, {}, async () => {
    onCaller++;
    throw new Error("not expected");
  });
  try {
    const meta = { entity: "e", project: "p", runId: "r1" } as Parameters<typeof threads.run>[0]["meta"];
    const job = { meta, filePath: path.join(root, "dies.jsonl"), pageSize: 1000, historyPath: "pages" as const, pagesInFlight: 1 };
    await assert.rejects(threads.run(job, new AbortController().signal), /^Error: freeze thread stopped \(invalid retries: -1\) while reading run r1$/);
    assert.equal(onCaller, 0);
  } finally {
    await threads.close();
  }
});
