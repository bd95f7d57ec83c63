import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import wandb from "@wandb/sdk";
import { startWandbTestServer, type WandbTestServer } from "../../tools/wandb-test-server/server";
import { parseExtendedJson } from "../../tools/wandb-test-server/extended-json";
import { graphql, HISTORY_PAGE_QUERY, RUN_QUERY } from "./http-helpers";

const KEY = "sentinel-key-sdk-round-trip-0123456789ab";
let server: WandbTestServer;

before(async () => {
  server = await startWandbTestServer({ apiKey: KEY });
});

after(async () => {
  await server.close();
});

test("@wandb/sdk@0.5.1 logs through the server and the rows read back value for value", async () => {
  // Settings passed as init options (they override WANDB_* env); offline:false = WANDB_MODE online.
  const run = await wandb.init({
    entity: "sdk-entity",
    project: "sdk-project",
    id: "sdkrun01",
    name: "sdk round trip",
    config: { lr: 0.5 },
    settings: { baseUrl: server.url, apiKey: KEY, offline: false, silent: true },
  });
  assert.equal(run.id, "sdkrun01");
  assert.equal(run.name, "sdk round trip");
  const logged = [{ loss: 1.5, acc: 0.25 }, { loss: 1.25 }, { loss: NaN, acc: 0.5 }, { loss: 0.75, "train/step": 3 }];
  for (const data of logged) run.log({ ...data });
  await run.finish();

  const ops = server.requests.filter((r) => r.path === "/graphql").map((r) => r.operationName);
  assert.deepEqual(ops, ["Viewer", "UpsertBucket"]);
  const upsert = server.requests.find((r) => r.operationName === "UpsertBucket");
  assert.deepEqual(upsert?.variables, {
    name: "sdkrun01",
    project: "sdk-project",
    entity: "sdk-entity",
    displayName: "sdk round trip",
    config: '{"lr":0.5}',
  });
  assert.ok(server.requests.every((r) => r.authOk));
  const streamPosts = server.requests.filter((r) => r.path === "/files/sdk-entity/sdk-project/sdkrun01/file_stream");
  assert.deepEqual(streamPosts[streamPosts.length - 1].variables, { complete: true, exitcode: 0 });

  const meta = await graphql(server.url, KEY, RUN_QUERY, { entity: "sdk-entity", project: "sdk-project", name: "sdkrun01" });
  const m = meta.json.data.project.run;
  assert.equal(m.state, "finished");
  assert.equal(m.displayName, "sdk round trip");
  assert.equal(m.historyLineCount, 4);
  assert.equal(m.historyKeys.lastStep, 3);
  assert.equal(m.config, '{"lr":0.5}');

  // Read back with HistoryPage windows of 2 steps, like a reader would.
  const rows: Record<string, unknown>[] = [];
  for (let minStep = 0; minStep <= m.historyKeys.lastStep; minStep += 2) {
    const res = await graphql(server.url, KEY, HISTORY_PAGE_QUERY, {
      entity: "sdk-entity",
      project: "sdk-project",
      run: "sdkrun01",
      minStep,
      maxStep: minStep + 2,
      pageSize: 2,
    });
    assert.equal(res.status, 200);
    for (const text of res.json.data.project.run.history as string[]) rows.push(parseExtendedJson(text) as Record<string, unknown>);
  }
  assert.equal(rows.length, 4);
  rows.forEach((row, i) => {
    const { _runtime, _timestamp, ...rest } = row;
    assert.equal(typeof _runtime, "number");
    assert.equal(typeof _timestamp, "number");
    // The SDK writes NaN with plain JSON.stringify, i.e. as null.
    const expected: Record<string, unknown> = { _step: i };
    for (const [k, v] of Object.entries(logged[i])) expected[k] = Number.isNaN(v) ? null : v;
    assert.deepEqual(rest, expected);
  });
  const summary = parseExtendedJson(m.summaryMetrics) as Record<string, unknown>;
  assert.equal(summary.loss, 0.75);
  assert.equal(summary._step, 3);
});
