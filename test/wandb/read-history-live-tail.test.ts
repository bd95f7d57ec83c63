/**
 * The live tail of the parquet path as wandb-core 0.31 reads it: `liveData` gives only where the tail
 * starts (its smallest `_step`), so a server listing all live rows, only the first or none is read
 * completely; completeness is checked against the counts read with the listing, and rows appended
 * after that snapshot are left for the next read, never an error.
 */
import assert from "node:assert/strict";
import { after, before, beforeEach, test } from "node:test";

import type { HistoryRow } from "../../lib/types";
import { connectWandb, type WandbConnection } from "../../lib/wandb/connection";
import { readHistory } from "../../lib/wandb/read-history";
import { readRunMeta } from "../../lib/wandb/read-run-meta";
import { WandbError } from "../../lib/wandb/wandb-error";
import { LIVE_LISTINGS } from "../../tools/wandb-test-server/parquet-exports";
import { startWandbTestServer, type WandbTestServer } from "../../tools/wandb-test-server/server";

let server: WandbTestServer;
let conn: WandbConnection;
const notes: string[] = [];

/** Steps in [from, to) without multiples of 7 (0..2499: 2142 rows, last step 2498); `loss` = 1/(s+1), `rollout/step` on every 4th. */
function rows(from: number, to: number): Record<string, number>[] {
  const out: Record<string, number>[] = [];
  for (let s = from; s < to; s++) {
    if (s % 7 === 0) continue;
    const row: Record<string, number> = { _step: s, loss: 1 / (s + 1) };
    if (s % 4 === 0) row["rollout/step"] = s / 4;
    out.push(row);
  }
  return out;
}
const ALL = rows(0, 2500);

before(async () => {
  server = await startWandbTestServer({});
  conn = connectWandb({
    baseUrl: server.url,
    apiKey: server.apiKey,
    env: {},
    retry: { random: () => 0, sleep: async () => undefined },
    reporter: { info: (m) => notes.push(m) },
  });
});
after(() => server.close());
beforeEach(() => {
  notes.length = 0;
  server.onRequest = null;
  server.clearFaults();
});

async function read(runId: string) {
  const meta = await readRunMeta(conn, { entity: "e", project: "p", runId });
  const result = await readHistory(conn, meta, { historyPath: "parquet" });
  return { meta, result };
}

function steps(list: readonly HistoryRow[]): number[] {
  return list.map((r) => r._step);
}

for (const liveListing of LIVE_LISTINGS) {
  test(`liveData listing ${liveListing} live rows: every row is read, exports then the paged tail`, async () => {
    const runId = `listing${liveListing}`;
    server.addRun({ entity: "e", project: "p", runId, state: "running", rows: ALL });
    // lastStep 2498, lag 600: steps 1899.. are live (1899..2498 without the 85 multiples of 7: 515 rows).
    server.setParquetExports({ enabled: true, lagSteps: 600, filesPerRun: 2, liveListing });
    const started = server.requests.length;
    const { result } = await read(runId);
    const listed = server.requests.slice(started).filter((r) => r.operationName === "RunParquetHistory");
    assert.equal(listed.length, 1);
    assert.equal(result.rowCount, 2142);
    assert.equal(result.path, "parquet+pages");
    assert.deepEqual(result.rows, ALL, "rows equal what the server holds, in order");
    const pages = server.requests
      .slice(started)
      .filter((r) => r.operationName === "HistoryPage")
      .map((r) => (r.variables as { minStep: number }).minStep);
    // The tail is paged from the step after the last exported one (1898): one window of 1000 steps.
    assert.deepEqual(pages, [1898 + 1]);
    assert.deepEqual(result.snapshot, { historyLineCount: 2142, lastStep: 2498 });
    const said = notes.filter((n) => /liveData lists no rows/.test(n));
    assert.equal(said.length, liveListing === "none" ? 1 : 0, notes.join("\n"));
    if (liveListing === "none") assert.match(said[0], /but 515 rows follow the exports/);
  });
}

test("rows appended after the listing's snapshot are not read and are no error; the snapshot says where the read stopped", async () => {
  server.addRun({ entity: "e", project: "p", runId: "growing", state: "running", rows: rows(0, 2000) });
  server.setParquetExports({ enabled: true, lagSteps: 300, filesPerRun: 1, liveListing: "first" });
  let appended = 0;
  server.onRequest = (entry) => {
    // After the listing (the snapshot), before each tail page and download: the run grows.
    if (entry.operationName === "HistoryPage" || entry.operationName === "RunParquetHistory") {
      const from = 2000 + appended * 50;
      server.appendRows("e", "p", "growing", rows(from, from + 50));
      appended++;
    }
  };
  const { meta, result } = await read("growing");
  // The Run query saw 1714 rows (steps < 2000); the listing came after one append (steps < 2050).
  assert.equal(meta.historyLineCount, 1714);
  const expected = rows(0, 2050);
  assert.deepEqual(result.snapshot, { historyLineCount: expected.length, lastStep: 2049 });
  assert.deepEqual(steps(result.rows), steps(expected));
  assert.ok(server.getRun("e", "p", "growing")!.lastStep > 2049, "the run grew past the snapshot while it was read");
});

test("a row of the live tail that the server does not return is refused, naming the counts (the check is not weakened)", async () => {
  server.addRun({ entity: "e", project: "p", runId: "shorttail", state: "running", rows: ALL });
  server.setParquetExports({ enabled: true, lagSteps: 600, filesPerRun: 1, liveListing: "first" });
  server.injectFault({ kind: "short-page", drop: 1 });
  await assert.rejects(read("shorttail"), (e: unknown) => {
    assert.ok(e instanceof WandbError);
    assert.match(e.message, /e\/p\/shorttail/);
    assert.match(
      e.message,
      /read 514 rows in steps \[1899, 2498\] and 1627 exported rows before them, the server holds 2142 \(historyLineCount\): history is incomplete/,
    );
    return true;
  });
});

test("pages path: rows appended while the run is paged stay out, the read ends at the Run query's last step", async () => {
  server.addRun({ entity: "e", project: "p", runId: "growpages", state: "running", rows: rows(0, 1500) });
  server.setParquetExports({ enabled: false });
  server.onRequest = (entry) => {
    if (entry.operationName !== "HistoryPage") return;
    const last = server.getRun("e", "p", "growpages")!.lastStep;
    server.appendRows("e", "p", "growpages", rows(last + 1, last + 101));
  };
  const meta = await readRunMeta(conn, { entity: "e", project: "p", runId: "growpages" });
  const result = await readHistory(conn, meta, { historyPath: "pages" });
  assert.deepEqual(steps(result.rows), steps(rows(0, 1500)));
  assert.deepEqual(result.snapshot, { historyLineCount: meta.historyLineCount, lastStep: 1499 });
});
