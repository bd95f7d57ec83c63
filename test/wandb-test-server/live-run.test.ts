/** The test server's live mode (live-run.ts): a run replayed tick by tick, with a rewind, a resume in place, a deletion, and through @wandb/sdk. */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { after, before, test } from "node:test";

import { LiveRun } from "../../tools/wandb-test-server/live-run";
import { startWandbTestServer, type WandbTestServer } from "../../tools/wandb-test-server/server";

let server: WandbTestServer;
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "live-run-"));
/** 100 rows, steps 0..99: `x` = 2 * step, `_runtime` = step; step 37 logs x = NaN (as a frozen file writes it). */
const file = path.join(tmp, "history.jsonl");

before(async () => {
  server = await startWandbTestServer({});
  const lines = Array.from({ length: 100 }, (_, s) => JSON.stringify({ _runtime: s, _step: s, x: s === 37 ? "NaN" : 2 * s }));
  fs.writeFileSync(file, `${lines.join("\n")}\n`);
});
after(async () => {
  await server.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

function stored(runId: string): { step: number; runtime: number }[] {
  return server.getRun("e", "p", runId)!.rows.map((t) => {
    const r = JSON.parse(t) as { _step: number; _runtime: number };
    return { step: r._step, runtime: r._runtime };
  });
}

test("each tick logs the next rows of the file while the run is running; the run is finished once the file is replayed", async () => {
  const live = await LiveRun.start(server, { entity: "e", project: "p", runId: "grow", historyFile: file, rowsPerTick: 30 });
  assert.deepEqual(server.getRun("e", "p", "grow"), { state: "running", rows: [], lastStep: -1 });
  const ticks = [];
  for (let i = 0; i < 5; i++) ticks.push(await live.tick());
  assert.deepEqual(
    ticks.map((t) => [t.tick, t.rows, t.steps, t.state]),
    [
      [1, 30, [0, 29], "running"],
      [2, 30, [30, 59], "running"],
      [3, 30, [60, 89], "running"],
      [4, 10, [90, 99], "finished"],
      [5, 0, null, "finished"],
    ],
  );
  const run = server.getRun("e", "p", "grow")!;
  assert.equal(run.state, "finished");
  assert.equal(run.rows.length, 100);
  assert.deepEqual(JSON.parse(run.rows[37]), { _runtime: 37, _step: 37, x: "NaN" });
});

test("a tick in the store is done when tick() returns, before its promise settles (an onRequest hook can tick)", async () => {
  const live = await LiveRun.start(server, { entity: "e", project: "p", runId: "sync", historyFile: file, rowsPerTick: 7 });
  const pending = live.tick();
  assert.equal(server.getRun("e", "p", "sync")!.rows.length, 7);
  await pending;
});

test("a rewind drops the rows after its step at its tick; the replay logs them again from the next tick, with a restarted process's _runtime", async () => {
  const live = await LiveRun.start(server, {
    entity: "e",
    project: "p",
    runId: "rewind",
    historyFile: file,
    rowsPerTick: 30,
    events: [{ kind: "rewind", tick: 2, toStep: 40 }],
  });
  await live.tick();
  const second = await live.tick();
  assert.deepEqual(second.events, ["rewound to step 40 (19 rows dropped; logged again from the next tick)"]);
  assert.equal(server.getRun("e", "p", "rewind")!.lastStep, 40, "fewer rows, an earlier last step");
  const third = await live.tick();
  assert.deepEqual(third.steps, [41, 70]);
  const rows = stored("rewind");
  assert.equal(rows.length, 71);
  assert.deepEqual(rows[40], { step: 40, runtime: 40 }, "rows up to the rewind as first logged");
  assert.deepEqual(rows[41], { step: 41, runtime: 1041 }, "logged again by the resumed process");
});

test("a resume in place logs the dropped rows again in the same tick with other values: the counts look unchanged", async () => {
  const live = await LiveRun.start(server, {
    entity: "e",
    project: "p",
    runId: "resume",
    historyFile: file,
    rowsPerTick: 30,
    events: [{ kind: "resume", tick: 2, toStep: 49 }],
  });
  await live.tick();
  const second = await live.tick();
  assert.deepEqual(second.events, ["resumed in place after step 49 (10 rows logged again with _runtime + 1000)"]);
  const rows = stored("resume");
  assert.equal(rows.length, 60);
  assert.equal(server.getRun("e", "p", "resume")!.lastStep, 59);
  assert.deepEqual(
    [rows[49], rows[50], rows[59]],
    [
      { step: 49, runtime: 49 },
      { step: 50, runtime: 1050 },
      { step: 59, runtime: 1059 },
    ],
  );
  assert.deepEqual((await live.tick()).steps, [60, 89], "the replay goes on after the rows logged again");
});

test("a deletion removes the run at its tick; later ticks log nothing", async () => {
  const live = await LiveRun.start(server, {
    entity: "e",
    project: "p",
    runId: "gone",
    historyFile: file,
    rowsPerTick: 30,
    events: [{ kind: "delete", tick: 2 }],
  });
  await live.tick();
  assert.deepEqual(await live.tick(), { tick: 2, rows: 0, steps: null, events: [], state: "deleted" });
  assert.equal(server.getRun("e", "p", "gone"), undefined);
  assert.deepEqual(await live.tick(), { tick: 3, rows: 0, steps: null, events: [], state: "deleted" });
  assert.equal(live.runState(), "deleted");
});

test("options refused: rows per tick, a tick before 1, events through the SDK (it numbers its own steps), a file without rows", async () => {
  const base = { entity: "e", project: "p", runId: "bad", historyFile: file };
  await assert.rejects(LiveRun.start(server, { ...base, rowsPerTick: 0 }), /invalid rowsPerTick: 0/);
  await assert.rejects(LiveRun.start(server, { ...base, events: [{ kind: "delete", tick: 0 }] }), /invalid delete tick: 0 \(ticks count from 1\)/);
  await assert.rejects(LiveRun.start(server, { ...base, via: "sdk", events: [{ kind: "rewind", tick: 2, toStep: 3 }] }), /invalid events with via sdk: rewind/);
  const empty = path.join(tmp, "empty.jsonl");
  fs.writeFileSync(empty, "");
  await assert.rejects(LiveRun.start(server, { ...base, historyFile: empty }), /invalid history file: .*empty\.jsonl has no rows/);
  assert.equal(server.getRun("e", "p", "bad"), undefined, "no run left behind");
});

test("through @wandb/sdk: each tick's rows logged by the SDK (a NaN sent as null, as the JS SDK does); the SDK's exit record finishes the run", async () => {
  const live = await LiveRun.start(server, { entity: "e", project: "p", runId: "bysdk", historyFile: file, rowsPerTick: 50, via: "sdk" });
  await live.tick();
  const last = await live.tick();
  assert.equal(last.state, "finished");
  const run = server.getRun("e", "p", "bysdk")!;
  assert.equal(run.state, "finished");
  assert.equal(run.rows.length, 100);
  const rows = run.rows.map((t) => JSON.parse(t) as Record<string, unknown>);
  assert.deepEqual(
    rows.map((r) => r._step),
    Array.from({ length: 100 }, (_, s) => s),
    "the SDK numbers the steps",
  );
  assert.equal(rows[36].x, 72);
  // @wandb/sdk 0.5.1 writes its rows with JSON.stringify: a NaN reaches the server as null (the Python SDK sends NaN).
  assert.equal(rows[37].x, null, run.rows[37]);
});
