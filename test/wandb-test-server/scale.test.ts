import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { startWandbTestServer, type WandbTestServer } from "../../tools/wandb-test-server/server";
import { graphql, HISTORY_PAGE_QUERY } from "./http-helpers";

const KEY = "sentinel-key-scale-test-0123456789abcdef";
const ROWS_PER_RUN = 100_000;
let server: WandbTestServer;
const setupMs: number[] = [];

/** Row text of run r at step s; run r has every step except multiples of 10 + r (gaps differ per run). */
function rowText(r: number, s: number): string {
  const grad = s % 97 === 0 ? "NaN" : String(Math.round(Math.cos(s) * 1e6) / 1e6);
  return `{"_step": ${s}, "_runtime": ${s / 2}, "_timestamp": ${1700000000 + s}, "train/loss": ${s % 1000}, "train/grad_norm": ${grad}, "run": ${r}}`;
}

function stepsOf(r: number): number[] {
  const out: number[] = [];
  for (let s = 0; out.length < ROWS_PER_RUN; s++) if (s % 10 !== r) out.push(s);
  return out;
}

before(async () => {
  server = await startWandbTestServer({ apiKey: KEY });
  for (let r = 0; r < 4; r++) {
    const rows = stepsOf(r).map((s) => rowText(r, s));
    const t0 = performance.now();
    server.addRun({ entity: "e", project: "scale", runId: `run${r}`, rows });
    setupMs.push(performance.now() - t0);
  }
});

after(async () => {
  await server.close();
});

test("4 runs x 100,000 rows: a full HistoryPage scan of one run returns every row in order", async (t) => {
  const steps = stepsOf(2);
  const lastStep = steps[steps.length - 1];
  const got: string[] = [];
  let pages = 0;
  const t0 = performance.now();
  for (let min = 0; min <= lastStep; min += 1000) {
    const res = await graphql(server.url, KEY, HISTORY_PAGE_QUERY, {
      entity: "e",
      project: "scale",
      run: "run2",
      minStep: min,
      maxStep: Math.min(min + 1000, lastStep + 1),
      pageSize: 1000,
    });
    for (const text of res.json.data.project.run.history) got.push(text);
    pages++;
  }
  const scanMs = performance.now() - t0;
  assert.equal(got.length, ROWS_PER_RUN);
  for (let i = 0; i < ROWS_PER_RUN; i += 9_973) assert.equal(got[i], rowText(2, steps[i]), `row ${i}`);
  assert.equal(got[ROWS_PER_RUN - 1], rowText(2, lastStep));
  t.diagnostic(`addRun ms per run: ${setupMs.map((m) => m.toFixed(0)).join(", ")}`);
  t.diagnostic(`scan: ${pages} pages in ${scanMs.toFixed(0)} ms`);
});

test("windows of the other runs respect their own gaps", async () => {
  for (const r of [0, 1, 3]) {
    const res = await graphql(server.url, KEY, HISTORY_PAGE_QUERY, {
      entity: "e",
      project: "scale",
      run: `run${r}`,
      minStep: 50_000,
      maxStep: 50_020,
      pageSize: 1000,
    });
    const expected: string[] = [];
    for (let s = 50_000; s < 50_020; s++) if (s % 10 !== r) expected.push(rowText(r, s));
    assert.deepEqual(res.json.data.project.run.history, expected);
  }
});
