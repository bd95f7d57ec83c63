import assert from "node:assert/strict";
import { after, before, test } from "node:test";

import { startWandbTestServer, type WandbTestServer } from "../../tools/wandb-test-server/server";
import { fetchRuns } from "../../lib/wandb/fetch-runs";
import { WandbError } from "../../lib/wandb/wandb-error";

let server: WandbTestServer;
before(async () => {
  server = await startWandbTestServer({});
  for (const [runId, n] of [
    ["a", 3],
    ["b", 1200],
    ["c", 0],
  ] as const) {
    server.addRun({ entity: "e", project: "p", runId, rows: Array.from({ length: n }, (_, i) => ({ _step: i, v: i })) });
  }
});
after(() => server.close());

test("several runs, bounded concurrency, results in input order, progress per run", async () => {
  let inFlight = 0;
  let maxInFlight = 0;
  const counting: typeof fetch = async (input, init) => {
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    try {
      return await fetch(input, init);
    } finally {
      inFlight--;
    }
  };
  const last = new Map<string, string>();
  const runs = await fetchRuns(
    ["c", "b", "a"].map((runId) => ({ entity: "e", project: "p", runId })),
    {
      baseUrl: server.url,
      apiKey: server.apiKey,
      env: {},
      concurrency: 2,
      fetch: counting,
      reporter: { progress: (task, done, total) => last.set(task, `${done}/${total}`) },
    },
  );
  assert.deepEqual(
    runs.map((r) => [r.meta.runId, r.rows.length, r.meta.lastStep]),
    [
      ["c", 0, -1],
      ["b", 1200, 1199],
      ["a", 3, 2],
    ],
  );
  assert.equal(maxInFlight, 2, "two runs in flight at once, never three");
  assert.deepEqual(Object.fromEntries(last), { "fetch e/p/c": "0/0", "fetch e/p/b": "1200/1200", "fetch e/p/a": "3/3" });
});

test("one missing run fails the whole fetch with that run's error", async () => {
  await assert.rejects(
    fetchRuns(
      [
        { entity: "e", project: "p", runId: "a" },
        { entity: "e", project: "p", runId: "ghost" },
      ],
      { baseUrl: server.url, apiKey: server.apiKey, env: {} },
    ),
    (e: unknown) => e instanceof WandbError && e.message === "W&B Run of e/p/ghost failed: run ghost not found in e/p",
  );
});

test("option errors before any request", async () => {
  const n = server.requests.length;
  await assert.rejects(fetchRuns([], { baseUrl: server.url, apiKey: "k", concurrency: -1 }), /^Error: invalid concurrency: -1$/);
  await assert.rejects(fetchRuns([], { baseUrl: "nope", apiKey: "k" }), /^Error: invalid baseUrl: nope$/);
  assert.equal(server.requests.length, n);
});
