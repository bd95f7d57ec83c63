import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { startWandbTestServer, type WandbTestServer, DEFAULT_TEST_API_KEY } from "../../tools/wandb-test-server/server";
import { parseExtendedJson } from "../../tools/wandb-test-server/extended-json";
import { basicAuth, graphql, HISTORY_PAGE_QUERY, rawPost, RUN_QUERY } from "./http-helpers";

const KEY = "sentinel-key-server-test-0123456789abcd";

const MEDIA = '{"_type": "image-file", "path": "media/images/a.png", "sha256": "ab", "size": 10, "width": 2, "height": 2, "format": "png"}';
// Stored texts of run e/p/win, in step order (object rows appear as the server serialises them).
const WIN_TEXTS = [
  '{"_step": 0, "loss": 1.5}',
  '{"_step":1,"loss":1.25}',
  '{"_step": 2, "loss": NaN, "grad": Infinity, "neg": -Infinity}',
  '{"_step": 3.0, "loss": 0.5}',
  `{"_step": 10, "loss": 0.25, "img": ${MEDIA}}`,
  '{"_step":11,"loss":NaN}',
  '{"_step": 12, "note": "NaN is a string here"}',
];

let server: WandbTestServer;

function page(runName: string, minStep: unknown, maxStep: unknown, pageSize = 1000) {
  return graphql(server.url, KEY, HISTORY_PAGE_QUERY, { entity: "e", project: "p", run: runName, minStep, maxStep, pageSize });
}

before(async () => {
  server = await startWandbTestServer({ apiKey: KEY });
  server.addRun({
    entity: "e",
    project: "p",
    runId: "win",
    displayName: "windowing run",
    createdAt: "2024-05-01T12:00:00",
    config: { lr: 0.001, name: "grpo" },
    rows: [WIN_TEXTS[0], { _step: 1, loss: 1.25 }, WIN_TEXTS[2], WIN_TEXTS[3], WIN_TEXTS[4], { _step: 11, loss: NaN }, WIN_TEXTS[6]],
  });
});

after(async () => {
  await server.close();
});

describe("auth", () => {
  test("missing and wrong keys get HTTP 401, the right key 200; the log records authOk", async () => {
    const q = "query Viewer { viewer { entity } }";
    const before = server.requests.length;
    const missing = await graphql(server.url, null, q);
    const wrong = await graphql(server.url, "wrong-key", q);
    const right = await graphql(server.url, KEY, q);
    assert.equal(missing.status, 401);
    assert.equal(wrong.status, 401);
    assert.equal(right.status, 200);
    assert.deepEqual(right.json, { data: { viewer: { entity: "test-entity" } } });
    assert.deepEqual(
      server.requests.slice(before).map((r) => [r.path, r.operationName, r.authOk]),
      [
        ["/graphql", "Viewer", false],
        ["/graphql", "Viewer", false],
        ["/graphql", "Viewer", true],
      ],
    );
  });

  test("a key sent with another user name than 'api' is refused", async () => {
    const res = await rawPost(
      server.url,
      "/graphql",
      { query: "{ viewer { id } }" },
      {
        Authorization: `Basic ${Buffer.from(`user:${KEY}`).toString("base64")}`,
      },
    );
    assert.equal(res.status, 401);
  });

  test("file_stream checks the key too", async () => {
    const res = await rawPost(server.url, "/files/e/p/win/file_stream", { files: {} }, { Authorization: basicAuth("nope") });
    assert.equal(res.status, 401);
  });

  test("default key is a fixed obviously fake 40-char key", async () => {
    assert.equal(DEFAULT_TEST_API_KEY, "local-test-key-0000000000000000000000000");
    assert.equal(DEFAULT_TEST_API_KEY.length, 40);
  });
});

describe("Run metadata", () => {
  test("serves W&B field shapes: JSON strings for config/summary, a JSON object for historyKeys", async () => {
    const res = await graphql(server.url, KEY, RUN_QUERY, { entity: "e", project: "p", name: "win" });
    assert.equal(res.status, 200);
    const run = res.json.data.project.run;
    assert.equal(run.name, "win");
    assert.equal(run.displayName, "windowing run");
    assert.equal(run.state, "finished");
    assert.equal(run.createdAt, "2024-05-01T12:00:00");
    assert.equal(run.historyLineCount, 7);
    assert.equal(run.historyKeys.lastStep, 12);
    assert.deepEqual(run.historyKeys.keys.loss, { typeCounts: [{ type: "number", count: 6 }] });
    assert.deepEqual(run.historyKeys.keys.img, { typeCounts: [{ type: "image-file", count: 1 }] });
    assert.deepEqual(run.historyKeys.keys._step, { typeCounts: [{ type: "number", count: 7 }] });
    assert.equal(run.config, '{"lr":{"value":0.001,"desc":null},"name":{"value":"grpo","desc":null}}');
    assert.deepEqual(parseExtendedJson(run.summaryMetrics), {
      _step: 12,
      loss: NaN,
      grad: Infinity,
      neg: -Infinity,
      img: parseExtendedJson(MEDIA),
      note: "NaN is a string here",
    });
    assert.deepEqual(run.tags, []);
    assert.equal(run.group, null);
    assert.equal(run.sweepName, null);
    assert.equal(typeof run.id, "string");
  });

  test("an unknown run is run: null; an unknown project is project: null", async () => {
    const res = await graphql(server.url, KEY, RUN_QUERY, { entity: "e", project: "p", name: "nope" });
    assert.equal(res.status, 200);
    assert.deepEqual(res.json, { data: { project: { run: null } } });
    const res2 = await graphql(server.url, KEY, RUN_QUERY, { entity: "e", project: "no-such-project", name: "win" });
    assert.deepEqual(res2.json, { data: { project: null } });
  });

  test("a run without history has no lastStep", async () => {
    server.addRun({ entity: "e", project: "p", runId: "empty", rows: [] });
    const res = await graphql(server.url, KEY, RUN_QUERY, { entity: "e", project: "p", name: "empty" });
    assert.deepEqual(res.json.data.project.run.historyKeys, { keys: {} });
    assert.equal(res.json.data.project.run.historyLineCount, 0);
    assert.equal(server.getRun("e", "p", "empty")?.lastStep, -1);
  });
});

describe("HistoryPage windows", () => {
  test("[minStep, maxStep) in _step units, rows served exactly as stored", async () => {
    const r = await page("win", 0, 3);
    assert.equal(r.status, 200);
    assert.deepEqual(r.json.data.project.run.history, WIN_TEXTS.slice(0, 3));
  });

  test("a float _step (3.0) is inside [3, 10) and keeps its text", async () => {
    const r = await page("win", 3, 10);
    assert.deepEqual(r.json.data.project.run.history, ['{"_step": 3.0, "loss": 0.5}']);
  });

  test("an empty window mid-run is an empty list, not an error or the end", async () => {
    const r = await page("win", 4, 10);
    assert.deepEqual(r.json.data.project.run.history, []);
    const next = await page("win", 10, 13);
    assert.deepEqual(next.json.data.project.run.history, WIN_TEXTS.slice(4));
  });

  test("Int64 variables accept numeric strings", async () => {
    const r = await page("win", "10", "11");
    assert.deepEqual(r.json.data.project.run.history, [WIN_TEXTS[4]]);
  });

  test("a non-numeric Int64 is a GraphQL error", async () => {
    const r = await page("win", "ten", 11);
    assert.equal(r.status, 200);
    assert.equal(r.json.data, undefined);
    assert.match(r.json.errors[0].message, /Int64 cannot represent value: "ten"/);
  });

  test("history without a window samples evenly (first and last kept)", async () => {
    const q = `query S($e: String!) { project(name: "p", entityName: $e) { run(name: "win") { history(samples: 3) } } }`;
    const r = await graphql(server.url, KEY, q, { e: "e" });
    assert.deepEqual(r.json.data.project.run.history, [WIN_TEXTS[0], WIN_TEXTS[3], WIN_TEXTS[6]]);
  });

  test("sampledHistory keeps only rows holding all keys, maxStep inclusive", async () => {
    const q = `query SampledHistoryPage($spec: JSONString!) { project(name: "p", entityName: "e") { run(name: "win") { sampledHistory(specs: [$spec]) } } }`;
    const r = await graphql(server.url, KEY, q, {
      spec: JSON.stringify({ keys: ["_step", "loss"], minStep: 1, maxStep: 10, samples: 100 }),
    });
    // NaN inside a JSON value cannot cross plain JSON: it arrives as null.
    assert.deepEqual(r.json.data.project.run.sampledHistory, [
      [
        { _step: 1, loss: 1.25 },
        { _step: 2, loss: null },
        { _step: 3, loss: 0.5 },
        { _step: 10, loss: 0.25 },
      ],
    ]);
  });

  test("rows given out of order are stored sorted by step, stable for equal steps", () => {
    server.addRun({
      entity: "e",
      project: "p",
      runId: "unsorted",
      rows: ['{"_step": 5}', '{"_step": 1, "a": 1}', '{"_step": 3}', '{"_step": 1, "a": 2}'],
    });
    assert.deepEqual(server.getRun("e", "p", "unsorted"), {
      state: "finished",
      rows: ['{"_step": 1, "a": 1}', '{"_step": 1, "a": 2}', '{"_step": 3}', '{"_step": 5}'],
      lastStep: 5,
    });
  });

  test("addRun rejects a row without _step, naming run and row, and stores nothing", () => {
    assert.throws(() => server.addRun({ entity: "e", project: "p", runId: "bad", rows: ['{"_step": 0}', '{"loss": 1}'] }), {
      message: "run e/p/bad, row 1: key _step must be a finite number, got undefined",
    });
    assert.equal(server.getRun("e", "p", "bad"), undefined);
    assert.throws(() => server.addRun({ entity: "e", project: "p", runId: "bad", rows: ["{oops"] }), /run e\/p\/bad, row 0: invalid JSON row text/);
  });

  test("addRun refuses an existing run", () => {
    assert.throws(() => server.addRun({ entity: "e", project: "p", runId: "win", rows: [] }), {
      message: "run e/p/win already exists",
    });
  });
});

describe("GraphQL errors", () => {
  test("a syntax error is HTTP 200 with errors[] and locations", async () => {
    const r = await graphql(server.url, KEY, "query { project(name: ");
    assert.equal(r.status, 200);
    assert.equal(r.json.data, undefined);
    assert.match(r.json.errors[0].message, /^Syntax Error/);
    assert.ok(Array.isArray(r.json.errors[0].locations));
  });

  test("an unknown field is a validation error, HTTP 200", async () => {
    const r = await graphql(server.url, KEY, `query Bad { project(name: "p", entityName: "e") { run(name: "win") { noSuchField } } }`);
    assert.equal(r.status, 200);
    assert.equal(r.json.errors[0].message, 'Cannot query field "noSuchField" on type "Run".');
    assert.equal(server.requests[server.requests.length - 1].operationName, "Bad");
  });

  test("a missing query string is an error too", async () => {
    const r = await graphql(server.url, KEY, undefined as unknown as string);
    assert.equal(r.status, 200);
    assert.equal(r.json.errors[0].message, "Must provide query string.");
  });

  test("an unknown path is 404", async () => {
    const res = await rawPost(server.url, "/nope", {}, { Authorization: basicAuth(KEY) });
    assert.equal(res.status, 404);
  });
});

describe("request log", () => {
  test("records path, operationName (from the body or else the document) and variables", async () => {
    const n = server.requests.length;
    await page("win", 0, 1);
    await graphql(server.url, KEY, "query Named { viewer { id } }", {}, "Named");
    await graphql(server.url, KEY, "{ viewer { id } }");
    const got = server.requests.slice(n);
    assert.deepEqual(got[0].variables, { entity: "e", project: "p", run: "win", minStep: 0, maxStep: 1, pageSize: 1000 });
    assert.deepEqual(
      got.map((r) => [r.path, r.operationName]),
      [
        ["/graphql", "HistoryPage"],
        ["/graphql", "Named"],
        ["/graphql", null],
      ],
    );
  });
});

describe("faults", () => {
  test("status 429 with Retry-After, then the next request is served", async () => {
    server.injectFault({ kind: "status", status: 429, retryAfter: "7" });
    const a = await page("win", 0, 1);
    assert.equal(a.status, 429);
    assert.equal(a.headers["retry-after"], "7");
    const b = await page("win", 0, 1);
    assert.equal(b.status, 200);
    assert.equal(server.requests[server.requests.length - 2].fault, "status");
  });

  test("status without Retry-After, count 2 (500 then 500), then served", async () => {
    server.injectFault({ kind: "status", status: 500, count: 2 });
    const codes: (number | null)[] = [];
    for (let i = 0; i < 3; i++) codes.push((await page("win", 0, 1)).status);
    assert.deepEqual(codes, [500, 500, 200]);
  });

  test("502, 503 and an injected 401 are sent as given", async () => {
    for (const status of [502, 503, 401]) {
      server.injectFault({ kind: "status", status });
      const r = await page("win", 0, 1);
      assert.equal(r.status, status);
      assert.equal(r.headers["retry-after"], undefined);
    }
  });

  test("a fault with operationName only hits that operation", async () => {
    server.injectFault({ kind: "status", status: 503, operationName: "HistoryPage" });
    const viewer = await graphql(server.url, KEY, "query Viewer { viewer { id } }");
    assert.equal(viewer.status, 200);
    const hp = await page("win", 0, 1);
    assert.equal(hp.status, 503);
  });

  test("delay stalls the request while later ones are answered, then serves it normally", async () => {
    server.injectFault({ kind: "delay", ms: 50, operationName: "HistoryPage" });
    const r = await page("win", 0, 1);
    assert.equal(r.status, 200);
    assert.deepEqual(r.json.data.project.run.history, [WIN_TEXTS[0]]);
    assert.equal(server.requests[server.requests.length - 1].fault, "delay");
  });

  test("a stalled request stays unanswered while others are served (long delay, released by close)", async () => {
    const own = await startWandbTestServer({ apiKey: KEY });
    own.injectFault({ kind: "delay", ms: 600_000, operationName: "Slow" });
    let settled = false;
    const slow = rawPost(own.url, "/graphql", { query: "query Slow { viewer { id } }" }, { Authorization: basicAuth(KEY) }).then((r) => {
      settled = true;
      return r;
    });
    while (!own.requests.some((r) => r.fault === "delay")) await new Promise((r) => setImmediate(r));
    const fast = await graphql(own.url, KEY, "query Fast { viewer { entity } }");
    assert.equal(fast.status, 200);
    assert.equal(settled, false);
    await own.close();
    const res = await slow;
    assert.equal(res.status, null);
  });

  test("reset destroys the socket without a reply", async () => {
    server.injectFault({ kind: "reset" });
    const res = await rawPost(server.url, "/graphql", { query: HISTORY_PAGE_QUERY }, { Authorization: basicAuth(KEY) });
    assert.equal(res.status, null);
    assert.match(res.error ?? "", /socket hang up|ECONNRESET/);
  });

  test("truncate sends the headers and part of the body, then drops the connection", async () => {
    server.injectFault({ kind: "truncate" });
    const body = {
      query: HISTORY_PAGE_QUERY,
      variables: { entity: "e", project: "p", run: "win", minStep: 0, maxStep: 13, pageSize: 1000 },
    };
    const res = await rawPost(server.url, "/graphql", body, { Authorization: basicAuth(KEY) });
    assert.equal(res.status, 200);
    assert.equal(res.complete, false);
    const full = await rawPost(server.url, "/graphql", body, { Authorization: basicAuth(KEY) });
    assert.equal(full.complete, true);
    assert.equal(Number(res.headers["content-length"]), Buffer.byteLength(full.body));
    assert.equal(res.body, full.body.slice(0, res.body.length));
    assert.ok(res.body.length < full.body.length);
  });

  test("short-page drops rows from the end of the next windowed history answer", async () => {
    server.injectFault({ kind: "short-page", drop: 2 });
    const short = await page("win", 0, 13);
    assert.deepEqual(short.json.data.project.run.history, WIN_TEXTS.slice(0, 5));
    const full = await page("win", 0, 13);
    assert.deepEqual(full.json.data.project.run.history, WIN_TEXTS);
  });

  test("rows appended while a run is being read show up in later pages (run stays running)", async () => {
    server.addRun({
      entity: "e",
      project: "p",
      runId: "live",
      state: "running",
      rows: [
        { _step: 0, x: 0 },
        { _step: 1, x: 1 },
      ],
    });
    let seen = 0;
    server.onRequest = (entry) => {
      if (entry.operationName === "HistoryPage" && (entry.variables as { run: string }).run === "live" && ++seen === 1) {
        server.appendRows("e", "p", "live", [{ _step: 2, x: 2 }, '{"_step": 3, "x": NaN}']);
      }
    };
    try {
      const first = await page("live", 0, 2, 2);
      assert.deepEqual(first.json.data.project.run.history, ['{"_step":0,"x":0}', '{"_step":1,"x":1}']);
      const second = await page("live", 2, 4, 2);
      assert.deepEqual(second.json.data.project.run.history, ['{"_step":2,"x":2}', '{"_step": 3, "x": NaN}']);
      const meta = await graphql(server.url, KEY, RUN_QUERY, { entity: "e", project: "p", name: "live" });
      assert.equal(meta.json.data.project.run.state, "running");
      assert.equal(meta.json.data.project.run.historyKeys.lastStep, 3);
      server.setState("e", "p", "live", "crashed");
      assert.equal(server.getRun("e", "p", "live")?.state, "crashed");
    } finally {
      server.onRequest = null;
    }
  });
});

describe("runs connection", () => {
  const RUNS_QUERY = `
    query Runs($project: String!, $entity: String!, $cursor: String, $perPage: Int = 50, $order: String, $filters: JSONString) {
      project(name: $project, entityName: $entity) {
        runCount(filters: $filters)
        runs(filters: $filters, after: $cursor, first: $perPage, order: $order) {
          edges { node { name state } cursor }
          pageInfo { endCursor hasNextPage }
        }
      }
    }`;

  before(() => {
    server.addRun({ entity: "e", project: "q", runId: "a", createdAt: "2024-01-01T00:00:00", rows: [] });
    server.addRun({ entity: "e", project: "q", runId: "b", state: "running", createdAt: "2024-01-02T00:00:00", rows: [] });
    server.addRun({ entity: "e", project: "q", runId: "c", state: "crashed", createdAt: "2024-01-03T00:00:00", rows: [] });
  });

  test("pages with first/after and reports hasNextPage", async () => {
    const p1 = await graphql(server.url, KEY, RUNS_QUERY, { project: "q", entity: "e", perPage: 2, order: "+created_at" });
    const runs1 = p1.json.data.project.runs;
    assert.deepEqual(
      runs1.edges.map((e: any) => e.node.name),
      ["a", "b"],
    );
    assert.equal(runs1.pageInfo.hasNextPage, true);
    assert.equal(runs1.pageInfo.endCursor, runs1.edges[1].cursor);
    const p2 = await graphql(server.url, KEY, RUNS_QUERY, {
      project: "q",
      entity: "e",
      perPage: 2,
      order: "+created_at",
      cursor: runs1.pageInfo.endCursor,
    });
    assert.deepEqual(
      p2.json.data.project.runs.edges.map((e: any) => e.node.name),
      ["c"],
    );
    assert.equal(p2.json.data.project.runs.pageInfo.hasNextPage, false);
  });

  test("default order is newest first; Mongo-style filters narrow runs and runCount", async () => {
    const all = await graphql(server.url, KEY, RUNS_QUERY, { project: "q", entity: "e" });
    assert.deepEqual(
      all.json.data.project.runs.edges.map((e: any) => e.node.name),
      ["c", "b", "a"],
    );
    const filtered = await graphql(server.url, KEY, RUNS_QUERY, {
      project: "q",
      entity: "e",
      order: "+name",
      filters: JSON.stringify({ state: { $in: ["running", "crashed"] } }),
    });
    assert.equal(filtered.json.data.project.runCount, 2);
    assert.deepEqual(
      filtered.json.data.project.runs.edges.map((e: any) => e.node.name),
      ["b", "c"],
    );
  });

  test("an unsupported filter operator is a GraphQL error", async () => {
    const r = await graphql(server.url, KEY, RUNS_QUERY, { project: "q", entity: "e", filters: '{"state": {"$where": "x"}}' });
    assert.equal(r.status, 200);
    assert.match(r.json.errors[0].message, /unsupported runs filter operator: \$where/);
  });
});

describe("file_stream", () => {
  test("unknown run is 404; lines at a re-sent offset replace, complete with exitcode 1 fails the run", async () => {
    const auth = { Authorization: basicAuth(KEY) };
    const missing = await rawPost(server.url, "/files/e/p/ghost/file_stream", { files: {} }, auth);
    assert.equal(missing.status, 404);
    server.addRun({ entity: "e", project: "p", runId: "fs", state: "running", rows: [] });
    const post = (body: unknown) => rawPost(server.url, "/files/e/p/fs/file_stream", body, auth);
    assert.equal((await post({ files: { "wandb-history.jsonl": { offset: 0, content: ['{"_step":0,"a":1}', '{"_step":1,"a":2}'] } } })).status, 200);
    // The client re-sends line 1 (retry) and adds line 2.
    await post({ files: { "wandb-history.jsonl": { offset: 1, content: ['{"_step":1,"a":2}', '{"_step":2,"a":null}'] } } });
    await post({ files: { "wandb-summary.json": { offset: 0, content: ['{"a":null,"_step":2}'] } } });
    await post({ complete: true, exitcode: 1 });
    assert.deepEqual(server.getRun("e", "p", "fs"), {
      state: "failed",
      rows: ['{"_step":0,"a":1}', '{"_step":1,"a":2}', '{"_step":2,"a":null}'],
      lastStep: 2,
    });
    const meta = await graphql(server.url, KEY, RUN_QUERY, { entity: "e", project: "p", name: "fs" });
    assert.equal(meta.json.data.project.run.summaryMetrics, '{"a":null,"_step":2}');
    assert.equal(meta.json.data.project.run.historyLineCount, 3);
  });
});
