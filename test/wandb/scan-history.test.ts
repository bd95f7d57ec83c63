import assert from "node:assert/strict";
import { after, before, test } from "node:test";

import { startWandbTestServer, type WandbTestServer } from "../../tools/wandb-test-server/server";
import { connectWandb, type WandbConnection } from "../../lib/wandb/connection";
import { readRunMeta } from "../../lib/wandb/read-run-meta";
import { historyWindows, scanHistory } from "../../lib/wandb/scan-history";
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
