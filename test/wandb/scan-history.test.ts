import assert from "node:assert/strict";
import { after, before, test } from "node:test";

import { startWandbTestServer, type WandbTestServer } from "../../tools/wandb-test-server/server";
import { connectWandb, type WandbConnection } from "../../lib/wandb/connection";
import { readRunMeta } from "../../lib/wandb/read-run-meta";
import { checkPagesInFlight, historyWindows, pagesPerRun, scanHistory } from "../../lib/wandb/scan-history";
import type { RunMeta } from "../../lib/types";
import { WandbError } from "../../lib/wandb/wandb-error";

let server: WandbTestServer;
let conn: WandbConnection;

before(async () => {
  server = await startWandbTestServer({});
  conn = connectWandb({ baseUrl: server.url, apiKey: server.apiKey, env: {}, retry: { random: () => 0, sleep: async () => undefined } });
});
after(() => server.close());

function historyRequests() {
  return server.requests.filter((r) => r.operationName === "HistoryPage").map((r) => r.variables as Record<string, unknown>);
}

async function scan(runId: string, pageSize?: number) {
  const meta = await readRunMeta(conn, { entity: "e", project: "p", runId });
  server.requests.length = 0;
  return { meta, result: await scanHistory(conn, meta, { pageSize }) };
}

test("windows follow the protocol: [offset, min(offset + size, lastStep + 1))", () => {
  assert.deepEqual(historyWindows(-1, 1000), []);
  assert.deepEqual(historyWindows(0, 1000), [{ minStep: 0, maxStep: 1 }]);
  assert.deepEqual(historyWindows(2500, 1000), [
    { minStep: 0, maxStep: 1000 },
    { minStep: 1000, maxStep: 2000 },
    { minStep: 2000, maxStep: 2501 },
  ]);
  assert.deepEqual(historyWindows(3, 2), [
    { minStep: 0, maxStep: 2 },
    { minStep: 2, maxStep: 4 },
  ]);
});

test("step gaps: empty windows mid-scan do not end it", async () => {
  server.addRun({ entity: "e", project: "p", runId: "gaps", rows: [0, 1, 2, 2500, 2501, 5000].map((s) => ({ _step: s, x: s * 2 })) });
  const { result } = await scan("gaps", 1000);
  assert.deepEqual(
    result.rows.map((r) => r._step),
    [0, 1, 2, 2500, 2501, 5000],
  );
  assert.deepEqual(result.rows[3], { _step: 2500, x: 5000 });
  assert.equal(result.pages, 6);
  assert.deepEqual(
    historyRequests().map((v) => [v.minStep, v.maxStep, v.pageSize]),
    [
      [0, 1000, 1000],
      [1000, 2000, 1000],
      [2000, 3000, 1000],
      [3000, 4000, 1000],
      [4000, 5000, 1000],
      [5000, 5001, 1000],
    ],
  );
});

test("first window empty (W&B #5014) still reads the rest", async () => {
  server.addRun({ entity: "e", project: "p", runId: "late", rows: [{ _step: 1200, y: 1 }] });
  const { result } = await scan("late");
  assert.deepEqual(result.rows, [{ _step: 1200, y: 1 }]);
  assert.equal(result.pages, 2);
});

test("NaN tokens, string markers, null, float _step and media objects", async () => {
  server.addRun({
    entity: "e",
    project: "p",
    runId: "mixed",
    rows: [
      '{"_step": 0, "_runtime": 0.5, "_timestamp": 1714564800.25, "loss": NaN, "gn": Infinity, "lr": -Infinity}',
      '{"_step": 1.0, "loss": "NaN", "gn": null, "img": {"_type": "image-file", "path": "media/a.png", "sha256": "00"}}',
      '{"_step": 2, "tbl": {"_type": "table-file", "nrows": 3}, "name": "x", "flag": true, "h": {"_type": "histogram", "values": [NaN, 1]}, "loss": 0.25}',
    ],
  });
  const { result } = await scan("mixed");
  const [a, b, c] = result.rows;
  assert.deepEqual(Object.keys(a).sort(), ["_runtime", "_step", "_timestamp", "gn", "loss", "lr"]);
  assert.ok(Number.isNaN(a.loss) && a.gn === Infinity && a.lr === -Infinity);
  assert.equal(a._timestamp, 1714564800.25);
  assert.equal(b._step, 1);
  assert.ok(Number.isNaN(b.loss) && Number.isNaN(b.gn));
  assert.equal("img" in b, false);
  assert.deepEqual(c, { _step: 2, loss: 0.25 });
  assert.deepEqual(result.droppedKeys, { flag: 1, h: 1, img: 1, name: 1, tbl: 1 });
});

test("2,600 rows over three pages arrive complete and in order; progress per page", async () => {
  const rows = Array.from({ length: 2600 }, (_, i) => ({ _step: i, v: i / 4 }));
  server.addRun({ entity: "e", project: "p", runId: "long", rows });
  const progress: string[] = [];
  const meta = await readRunMeta(conn, { entity: "e", project: "p", runId: "long" });
  const withReporter = { ...conn, reporter: { progress: (t: string, d: number, n: number | null) => progress.push(`${t} ${d}/${n}`) } };
  const result = await scanHistory(withReporter, meta);
  assert.equal(result.rowCount, 2600);
  assert.deepEqual(result.rows, rows);
  assert.deepEqual(progress, ["fetch e/p/long 0/2600", "fetch e/p/long 1000/2600", "fetch e/p/long 2000/2600", "fetch e/p/long 2600/2600"]);
});

test("onRows streams pages instead of collecting them", async () => {
  const meta = await readRunMeta(conn, { entity: "e", project: "p", runId: "long" });
  const sizes: number[] = [];
  const result = await scanHistory(conn, meta, { pageSize: 700, onRows: (rows) => void sizes.push(rows.length) });
  assert.deepEqual(sizes, [700, 700, 700, 500]);
  assert.deepEqual(result.rows, []);
  assert.equal(result.rowCount, 2600);
});

test("a short page (server lost rows) is a completeness error naming the run", async () => {
  server.injectFault({ kind: "short-page", drop: 3 });
  await assert.rejects(scan("long"), (e: unknown) => {
    const err = e as WandbError;
    return (
      err instanceof WandbError &&
      err.operation === "completeness" &&
      err.message === "W&B completeness of e/p/long failed: read 2597 rows in steps [0, 2599], the server holds 2600 (historyLineCount): history is incomplete"
    );
  });
});

test("rows appended while scanning a running run stay outside the scan (lastStep fixed at start)", async () => {
  server.addRun({ entity: "e", project: "p", runId: "live", state: "running", rows: Array.from({ length: 1500 }, (_, i) => ({ _step: i })) });
  const meta = await readRunMeta(conn, { entity: "e", project: "p", runId: "live" });
  server.onRequest = (entry) => {
    if (entry.operationName === "HistoryPage") server.appendRows("e", "p", "live", [{ _step: 1500 + server.requests.length }]);
  };
  try {
    const result = await scanHistory(conn, meta);
    assert.equal(result.rowCount, 1500);
  } finally {
    server.onRequest = null;
  }
});

test("duplicate _step is refused naming the run and step", async () => {
  server.addRun({ entity: "e", project: "p", runId: "dup", rows: [{ _step: 0 }, { _step: 3, a: 1 }, { _step: 3, a: 2 }] });
  await assert.rejects(scan("dup"), { message: "W&B HistoryPage of e/p/dup failed: step 3 follows step 3: _step is not strictly increasing" });
});

test("a server that ignores the window, or returns a bad row, is refused", async () => {
  const meta: RunMeta = {
    entity: "e",
    project: "p",
    runId: "fake",
    displayName: null,
    state: "finished",
    createdAt: null,
    heartbeatAt: null,
    historyLineCount: 2,
    lastStep: 1,
  };
  const page =
    (history: unknown[]): typeof fetch =>
    async () =>
      new Response(JSON.stringify({ data: { project: { run: { history } } } }));
  const stub = (history: unknown[]) => connectWandb({ baseUrl: "http://127.0.0.1:9", apiKey: "k", env: {}, fetch: page(history) });
  await assert.rejects(scanHistory(stub(['{"_step": 0}', '{"_step": 7}']), meta), {
    message: "W&B HistoryPage of e/p/fake failed: step 7 lies outside the requested window [0, 2)",
  });
  await assert.rejects(scanHistory(stub(['{"_step": 0}', '{"a": 1}']), meta), {
    message: 'W&B HistoryPage of e/p/fake failed: row 1 of steps [0, 2) has no integer _step: {"a": 1}',
  });
  await assert.rejects(scanHistory(stub(['{"_step": 0}', '{"_step": 1, "a": nan}']), meta), (e: unknown) =>
    (e as Error).message.startsWith("W&B HistoryPage of e/p/fake failed: steps [0, 2): row 1 is not a valid JSON object ("),
  );
  await assert.rejects(scanHistory(stub(['{"_step": 0}', '{"_step": 1.5}']), meta), /row 1 of steps \[0, 2\) has no integer _step/);
});

test("invalid page size", async () => {
  const meta = await readRunMeta(conn, { entity: "e", project: "p", runId: "long" });
  await assert.rejects(scanHistory(conn, meta, { pageSize: 0 }), /^Error: invalid pageSize: 0$/);
  await assert.rejects(scanHistory(conn, meta, { pageSize: 2.5 }), /^Error: invalid pageSize: 2.5$/);
});

/** A connection to the test server listing each HistoryPage window (its minStep) as it is asked for and as it is answered. */
function recordingConnection(): { conn: WandbConnection; asked: unknown[]; answered: unknown[] } {
  const asked: unknown[] = [];
  const answered: unknown[] = [];
  const recording = connectWandb({
    baseUrl: server.url,
    apiKey: server.apiKey,
    env: {},
    retry: { random: () => 0, sleep: async () => undefined },
    fetch: async (input, init) => {
      const body = JSON.parse(String(init?.body)) as { operationName?: string; variables?: { minStep?: number } };
      const page = body.operationName === "HistoryPage";
      if (page) asked.push(body.variables?.minStep);
      const res = await fetch(input, init);
      if (page) answered.push(body.variables?.minStep);
      return res;
    },
  });
  return { conn: recording, asked, answered };
}

test("pagesInFlight and pagesPerRun refuse what is not a positive integer; runs share the concurrency", () => {
  for (const bad of [0, -1, 1.5, Number.NaN]) assert.throws(() => checkPagesInFlight(bad), new RegExp(`^Error: invalid pagesInFlight: ${bad}$`));
  assert.equal(checkPagesInFlight(3), 3);
  // [concurrency, runs] -> pages per run: never more requests at once than `concurrency` in all.
  const table: [number, number, number][] = [
    [4, 1, 4],
    [4, 2, 2],
    [4, 3, 1],
    [4, 4, 1],
    [4, 9, 1],
    [1, 1, 1],
    [8, 3, 2],
    [4, 0, 4],
  ];
  for (const [concurrency, runs, pages] of table) {
    assert.equal(pagesPerRun(concurrency, runs), pages, `pagesPerRun(${concurrency}, ${runs})`);
    assert.ok(pages * Math.min(Math.max(runs, 1), concurrency) <= concurrency);
  }
});

test("pagesInFlight 4: the same rows, pages and windows as one at a time, with 4 requests at once and never more", async () => {
  server.addRun({ entity: "e", project: "p", runId: "ahead", rows: Array.from({ length: 9500 }, (_, i) => ({ _step: i, v: i / 8 })) });
  const meta = await readRunMeta(conn, { entity: "e", project: "p", runId: "ahead" });
  const runs = [];
  for (const pagesInFlight of [1, 4]) {
    // Every page answers after 30 ms, so that a scan asking ahead has its requests overlap.
    server.injectFault({ kind: "delay", ms: 30, count: 10, operationName: "HistoryPage" });
    server.resetPeaks();
    server.requests.length = 0;
    const result = await scanHistory(conn, meta, { pageSize: 1000, pagesInFlight });
    runs.push({ result, peak: server.peakInFlight("HistoryPage"), windows: historyRequests().map((v) => [v.minStep, v.maxStep]) });
  }
  const [one, four] = runs;
  assert.equal(one.result.rows.length, 9500);
  assert.equal(one.result.pages, 10);
  assert.deepEqual(four.result, one.result);
  assert.deepEqual(four.windows, one.windows);
  assert.equal(one.peak, 1);
  assert.equal(four.peak, 4);
});

test("pagesInFlight: a window answering after later ones is still read first, and rows reach onRows in step order", async () => {
  server.addRun({ entity: "e", project: "p", runId: "slowfirst", rows: Array.from({ length: 4000 }, (_, i) => ({ _step: i, v: i })) });
  const { conn: counting, answered } = recordingConnection();
  const meta = await readRunMeta(counting, { entity: "e", project: "p", runId: "slowfirst" });
  server.injectFault({ kind: "delay", ms: 300, count: 1, operationName: "HistoryPage" });
  const steps: number[] = [];
  const result = await scanHistory(counting, meta, { pageSize: 1000, pagesInFlight: 4, onRows: (rows) => void steps.push(...rows.map((r) => r._step)) });
  assert.notEqual(answered[0], 0, `window 0 answered after a later one (answers by minStep: ${answered.join(", ")})`);
  assert.deepEqual(
    steps,
    Array.from({ length: 4000 }, (_, i) => i),
  );
  assert.equal(result.rowCount, 4000);
});

test("pagesInFlight: a refused window fails the scan at its turn, after the pages before it, and no window is asked for after it", async () => {
  server.addRun({ entity: "e", project: "p", runId: "failmid", rows: Array.from({ length: 8000 }, (_, i) => ({ _step: i, v: i })) });
  const { conn: recording, asked } = recordingConnection();
  const meta = await readRunMeta(recording, { entity: "e", project: "p", runId: "failmid" });
  let pagesServed = 0;
  // The third window is refused (400: not retried); every window after it stalls for 5 s.
  server.onRequest = (entry) => {
    if (entry.operationName !== "HistoryPage") return;
    pagesServed++;
    if (pagesServed === 3) server.injectFault({ kind: "status", status: 400, operationName: "HistoryPage" });
    if (pagesServed > 3) server.injectFault({ kind: "delay", ms: 5000, operationName: "HistoryPage" });
  };
  const steps: number[] = [];
  const t0 = performance.now();
  try {
    await assert.rejects(
      scanHistory(recording, meta, { pageSize: 1000, pagesInFlight: 4, onRows: (rows) => void steps.push(...rows.map((r) => r._step)) }),
      (e: unknown) => e instanceof WandbError && /steps \[2000, 3000\)/.test(e.message),
    );
  } finally {
    server.onRequest = null;
    server.clearFaults();
  }
  assert.ok(performance.now() - t0 < 2500, "the stalled windows were not waited for");
  assert.deepEqual(
    steps,
    Array.from({ length: 2000 }, (_, i) => i),
  );
  // Windows 0-3 at the start, 4 and 5 as windows 0 and 1 were read; none after window 2 failed.
  assert.deepEqual(asked, [0, 1000, 2000, 3000, 4000, 5000]);
});
