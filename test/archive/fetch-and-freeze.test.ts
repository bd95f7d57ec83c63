import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { after, before, test } from "node:test";

import { startWandbTestServer, type WandbTestServer } from "../../tools/wandb-test-server/server";
import { fetchAndFreeze, type FetchAndFreezeOptions } from "../../lib/archive/fetch-and-freeze";
import { loadArchive, verifyArchive } from "../../lib/archive/load-archive";
import { READER_VERSION } from "../../lib/wandb/version";
import { WandbError } from "../../lib/wandb/wandb-error";

const SENTINEL = "SENTINEL-KEY-0c9d8e7f6a5b4c3d2e1f0a9b8c7d6e5f";
let server: WandbTestServer;
const root = fs.mkdtempSync(path.join(os.tmpdir(), "freeze-"));
let n = 0;
const freshDir = () => path.join(root, `w${n++}`, "archive");

const ROWS_A = [
  '{"_step": 0, "_runtime": 1.5, "_timestamp": 1714564800.5, "train/loss": NaN, "rollout/step": 0, "img": {"_type": "image-file", "path": "media/x.png"}}',
  '{"_step": 1.0, "_runtime": 2.25, "_timestamp": 1714564801.25, "train/loss": 0.125, "note": "hi", "gn": Infinity, "neg": -Infinity}',
  '{"_step": 3, "b": null, "a": 1e-05, "c": 12.0, "big": 1e+21}',
];

before(async () => {
  server = await startWandbTestServer({ apiKey: SENTINEL });
  server.addRun({ entity: "e", project: "p", runId: "runa", displayName: "first", createdAt: "2024-05-01T12:00:00", rows: ROWS_A });
  server.addRun({
    entity: "e",
    project: "p",
    runId: "runb",
    createdAt: "2024-05-02T08:00:00",
    state: "crashed",
    rows: Array.from({ length: 2500 }, (_, i) => ({ _step: i * 2, v: i / 8 })),
  });
  server.addRun({ entity: "e", project: "p", runId: "live", state: "running", createdAt: "2024-05-03T00:00:00", rows: [{ _step: 0, v: 1 }] });
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
      { runId: "runa", round: "R0" },
      { runId: "runb", round: "R1" },
    ],
    outDir,
    baseUrl: server.url,
    apiKey: SENTINEL,
    env: {},
    now: () => new Date("2025-01-02T03:04:05.000Z"),
    retry: { random: () => 0, sleep: async () => undefined },
    ...extra,
  };
}

/** Every file under `dir` (relative path -> bytes). */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else out[path.relative(dir, p)] = fs.readFileSync(p, "latin1");
    }
  };
  walk(dir);
  return out;
}

test("freeze format: numeric keys only, sorted, JSON.stringify numbers, non-finite as strings", async () => {
  const outDir = freshDir();
  const manifest = await fetchAndFreeze(opts(outDir));
  assert.equal(
    fs.readFileSync(path.join(outDir, "history/runa.jsonl"), "utf8"),
    [
      '{"_runtime":1.5,"_step":0,"_timestamp":1714564800.5,"rollout/step":0,"train/loss":"NaN"}',
      '{"_runtime":2.25,"_step":1,"_timestamp":1714564801.25,"gn":"Infinity","neg":"-Infinity","train/loss":0.125}',
      '{"_step":3,"a":0.00001,"b":"NaN","big":1e+21,"c":12}',
      "",
    ].join("\n"),
  );
  const runa = manifest.runs[0];
  assert.deepEqual(Object.keys(runa), [
    "entity",
    "project",
    "runId",
    "round",
    "displayName",
    "state",
    "historyEvents",
    "lastStep",
    "createdAt",
    "fetchedAt",
    "file",
    "sha256",
    "bytes",
    "droppedKeys",
    // The run's config was read (RunConfig): flags known, none declared in these configs.
    "flags",
  ]);
  assert.deepEqual(
    { ...runa, sha256: "-", bytes: 0 },
    {
      entity: "e",
      project: "p",
      runId: "runa",
      round: "R0",
      displayName: "first",
      state: "finished",
      historyEvents: 3,
      lastStep: 3,
      createdAt: "2024-05-01T12:00:00",
      fetchedAt: "2025-01-02T03:04:05.000Z",
      file: "history/runa.jsonl",
      sha256: "-",
      bytes: 0,
      droppedKeys: { img: 1, note: 1 },
      flags: {},
    },
  );
  assert.equal(runa.bytes, fs.statSync(path.join(outDir, "history/runa.jsonl")).size);
  assert.deepEqual([manifest.kind, manifest.formatVersion, manifest.readerVersion, manifest.pageSize], ["wandb-frozen-history", 1, READER_VERSION, 1000]);
  assert.deepEqual(
    manifest.runs.map((r) => [r.runId, r.round, r.state, r.historyEvents, r.lastStep]),
    [
      ["runa", "R0", "finished", 3, 3],
      ["runb", "R1", "crashed", 2500, 4998],
    ],
  );
  const text = fs.readFileSync(path.join(outDir, "manifest.json"), "utf8");
  assert.equal(text, JSON.stringify(manifest, null, 2) + "\n", "2-space indent, trailing newline, fixed key order");
  assert.deepEqual(fs.readdirSync(path.dirname(outDir)).sort(), ["archive"], "no temp folder or lock left");
});

test("what was frozen loads back equal, NaN and infinities included", async () => {
  const outDir = freshDir();
  await fetchAndFreeze(opts(outDir));
  const archive = await loadArchive(outDir);
  assert.deepEqual(
    archive.runs.map((r) => [r.runId, r.round, r.state, r.rows.length]),
    [
      ["runa", "R0", "finished", 3],
      ["runb", "R1", "crashed", 2500],
    ],
  );
  const [r0, r1, r2] = archive.runs[0].rows;
  assert.ok(Number.isNaN(r0["train/loss"]));
  assert.equal(r1.gn, Infinity);
  assert.equal(r1.neg, -Infinity);
  assert.deepEqual(Object.keys(r2), ["_step", "a", "b", "big", "c"]);
  assert.equal(archive.runs[1].rows[2499].v, 2499 / 8);
  assert.equal((await verifyArchive(outDir)).ok, true);
});

test("SOURCE_DATE_EPOCH: two fetches give byte-identical archives", async () => {
  const env = { SOURCE_DATE_EPOCH: "1700000000" };
  const a = freshDir();
  const b = freshDir();
  await fetchAndFreeze(opts(a, { now: undefined, env, concurrency: 1 }));
  await fetchAndFreeze(opts(b, { now: undefined, env, concurrency: 3, pageSize: 1000 }));
  assert.deepEqual(snapshot(a), snapshot(b));
  assert.match(snapshot(a)["manifest.json"], /"fetchedAt": "2023-11-14T22:13:20.000Z"/);
});

test("the concurrency bounds the HistoryPage requests in all: one run reads that many windows at once, two runs half each; same bytes", async () => {
  // runb: 2,500 rows over steps 0-4,998, 5 windows of 1,000 steps; every page answers after 30 ms so requests overlap.
  const fetchWith = async (runs: FetchAndFreezeOptions["runs"], concurrency: number) => {
    const dir = freshDir();
    server.injectFault({ kind: "delay", ms: 30, count: 100, operationName: "HistoryPage" });
    server.resetPeaks();
    await fetchAndFreeze(opts(dir, { runs, concurrency, pageSize: 1000 }));
    server.clearFaults();
    return { files: snapshot(dir), peak: server.peakInFlight("HistoryPage") };
  };
  const one = [{ runId: "runb", round: "R0" }];
  const two = [
    { runId: "runb", round: "R0" },
    { runId: "runa", round: "R1" },
  ];
  const oneAtATime = await fetchWith(one, 1);
  const oneRun = await fetchWith(one, 4);
  assert.equal(oneAtATime.peak, 1);
  assert.equal(oneRun.peak, 4);
  assert.deepEqual(oneRun.files, oneAtATime.files);
  const twoRuns = await fetchWith(two, 4);
  assert.ok(twoRuns.peak >= 2 && twoRuns.peak <= 4, `two runs: ${twoRuns.peak} requests at once (2 windows each at most)`);
  assert.deepEqual(twoRuns.files, (await fetchWith(two, 1)).files);
});

test("the API key is written nowhere and shown in no error", async () => {
  const outDir = freshDir();
  await fetchAndFreeze(opts(outDir));
  const basic = Buffer.from(`api:${SENTINEL}`).toString("base64");
  for (const [file, bytes] of Object.entries(snapshot(path.dirname(outDir)))) {
    assert.ok(!bytes.includes(SENTINEL) && !bytes.includes(basic), file);
  }
  server.injectFault({ kind: "status", status: 401 });
  const err = await fetchAndFreeze(opts(freshDir())).catch((e: Error) => e);
  assert.ok(err instanceof WandbError);
  assert.ok(!err.message.includes(SENTINEL) && !String(err.stack).includes(SENTINEL));
});

test("a failed fetch leaves the previous archive byte-identical and no debris", async () => {
  const outDir = freshDir();
  await fetchAndFreeze(opts(outDir));
  const before = snapshot(outDir);
  server.injectFault({ kind: "status", status: 404, operationName: "HistoryPage" });
  await assert.rejects(
    fetchAndFreeze(opts(outDir, { now: () => new Date("2030-01-01T00:00:00Z") })),
    (e: unknown) => e instanceof WandbError && e.status === 404,
  );
  assert.deepEqual(snapshot(outDir), before);
  server.injectFault({ kind: "short-page", drop: 1 });
  await assert.rejects(
    fetchAndFreeze(opts(outDir, { now: () => new Date("2030-01-01T00:00:00Z") })),
    (e: unknown) => e instanceof WandbError && e.operation === "completeness",
  );
  assert.deepEqual(snapshot(outDir), before);
  assert.deepEqual(fs.readdirSync(path.dirname(outDir)), ["archive"]);
});

test("a successful refetch replaces the archive as a whole", async () => {
  const outDir = freshDir();
  await fetchAndFreeze(opts(outDir));
  await fetchAndFreeze(opts(outDir, { runs: [{ runId: "runb", round: "R9" }] }));
  assert.deepEqual(fs.readdirSync(path.join(outDir, "history")), ["runb.jsonl"], "runa's file went with the old archive");
  assert.equal((await loadArchive(outDir)).runs[0].round, "R9");
});

test("retries on 429 and 500 during a fetch still give the complete archive", async () => {
  const outDir = freshDir();
  server.injectFault({ kind: "status", status: 429, operationName: "HistoryPage" });
  server.injectFault({ kind: "status", status: 500, retryAfter: "1", operationName: "HistoryPage" });
  const notes: string[] = [];
  const manifest = await fetchAndFreeze(opts(outDir, { reporter: { info: (m) => notes.push(m) } }));
  assert.equal(manifest.runs[1].historyEvents, 2500);
  assert.equal(notes.length, 2);
});

test("a running run is refused unless allowed", async () => {
  const outDir = freshDir();
  const runs = [{ runId: "live", round: "R0" }];
  await assert.rejects(fetchAndFreeze(opts(outDir, { runs })), {
    message: "run e/p/live is still running: its history may still grow; wait until it ends, or allow it (allowRunning, CLI --allow-running)",
  });
  assert.equal(fs.existsSync(outDir), false);
  const manifest = await fetchAndFreeze(opts(outDir, { runs, allowRunning: true }));
  assert.equal(manifest.runs[0].state, "running");
});

test("two fetches into the same folder at once: one wins, the other is refused by the lock", async () => {
  const outDir = freshDir();
  // Pages answer 100 ms late, so the first fetch still holds the lock when the second asks (without
  // this, a loaded machine could let the first finish first, and then the second rightly proceeds).
  server.injectFault({ kind: "delay", ms: 100, count: 2, operationName: "HistoryPage" });
  const results = await Promise.allSettled([fetchAndFreeze(opts(outDir)), fetchAndFreeze(opts(outDir))]);
  server.clearFaults();
  const rejected = results.filter((r): r is PromiseRejectedResult => r.status === "rejected");
  assert.equal(rejected.length, 1);
  assert.match(rejected[0].reason.message, /^archive .* is locked by another fetch \(lock file .*\.archive\.lock: \{"pid":\d+/);
  assert.equal((await verifyArchive(outDir)).ok, true);
});

test("an out folder holding other files is refused before any request", async () => {
  const outDir = freshDir();
  fs.mkdirSync(outDir, { recursive: true });
  fs.writeFileSync(path.join(outDir, "runs.json"), "{}");
  const count = server.requests.length;
  await assert.rejects(fetchAndFreeze(opts(outDir)), (e: unknown) =>
    (e as Error).message.startsWith(`invalid outDir: ${outDir} holds runs.json, which are not part of an archive`),
  );
  assert.equal(server.requests.length, count);
});

test("option errors", async () => {
  const outDir = freshDir();
  const cases: [Partial<FetchAndFreezeOptions>, string][] = [
    [{ pageSize: 0 }, "invalid pageSize: 0"],
    [{ concurrency: 1.5 }, "invalid concurrency: 1.5"],
    [{ runs: [] }, "invalid runs: no run selected"],
    [{ runs: [{ runId: "a/b", round: "R0" }] }, 'invalid runId: "a/b"'],
    [
      {
        runs: [
          { runId: "a", round: "R0" },
          { runId: "a", round: "R1" },
        ],
      },
      "invalid runs: run a is listed twice",
    ],
    [{ entity: "" }, 'invalid entity: ""'],
  ];
  for (const [extra, message] of cases) await assert.rejects(fetchAndFreeze(opts(outDir, extra)), { message });
});
