/**
 * Following runs while they grow: every poll's snapshot is chained to the one before by hash, only new
 * rows are fetched, and a run followed until it finishes leaves history files byte-identical to a
 * one-shot fetch of the finished run (pages path, parquet path, a `.wandb` log being appended). A failed
 * or interrupted poll leaves the last snapshot as it was.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import os from "node:os";
import * as path from "node:path";
import { after, before, beforeEach, test } from "node:test";

import { fetchAndFreeze } from "../../lib/archive/fetch-and-freeze";
import { verifyArchive } from "../../lib/archive/load-archive";
import { writeExports } from "../../lib/export/write-exports";
import { Follower, type FollowOptions } from "../../lib/follow/follower";
import { EMPTY_SHA256, sha256Hex, snapshotFile, verifySnapshotChain } from "../../lib/archive/snapshot-chain";
import type { SourceManifest } from "../../lib/types";
import { peekWandbFileRunId } from "../../lib/wandb-file/locate-wandb-file";
import { startWandbTestServer, type WandbTestServer } from "../../tools/wandb-test-server/server";
import { snapshotTree, assertSameTree } from "../reliability/tree-snapshot";

let server: WandbTestServer;
let tmp: string;
const warnings: string[] = [];

before(async () => {
  server = await startWandbTestServer({});
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "follow-"));
});
after(async () => {
  await server.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});
beforeEach(() => {
  warnings.length = 0;
  server.onRequest = null;
  server.clearFaults();
  server.setParquetExports({ enabled: false, liveListing: "all" });
});

/** Rows of steps [from, to): `loss` = 1/(s+1), NaN every 37th, `rollout/step` every 3rd, a gap at multiples of 11. */
function rows(from: number, to: number): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (let s = from; s < to; s++) {
    if (s % 11 === 5) continue;
    const row: Record<string, unknown> = { _step: s, loss: s % 37 === 0 ? "NaN" : 1 / (s + 1), _runtime: s * 0.5 };
    if (s % 3 === 0) row["rollout/step"] = s / 3;
    out.push(row);
  }
  return out;
}

function followOptions(runId: string, outDir: string, extra: Partial<FollowOptions> = {}): FollowOptions {
  return {
    entity: "e",
    project: "p",
    runs: [{ runId, round: "R0" }],
    outDir,
    baseUrl: server.url,
    apiKey: server.apiKey,
    env: {},
    retry: { retries: 1, random: () => 0, sleep: async () => undefined },
    reporter: { warn: (m) => warnings.push(m) },
    now: () => new Date("2026-01-01T00:00:00Z"),
    ...extra,
  };
}

function manifestOf(dir: string): SourceManifest {
  return JSON.parse(fs.readFileSync(path.join(dir, "manifest.json"), "utf8")) as SourceManifest;
}

/** Follows `runId` while it grows by `growth` rows per poll for `polls` polls, then ends it; returns the archive folder and the HistoryPage minSteps asked. */
async function followGrowing(runId: string, growth: number, polls: number): Promise<{ dir: string; pageStarts: number[]; rowsAdded: number[] }> {
  const dir = path.join(tmp, `${runId}-followed`);
  const follower = await Follower.open(followOptions(runId, dir));
  const rowsAdded: number[] = [];
  const started = server.requests.length;
  const summary = await follower.follow({
    intervalSeconds: 0,
    until: "finished",
    onPoll: (result, poll) => {
      rowsAdded.push(result.rowsAdded[runId] ?? 0);
      const last = server.getRun("e", "p", runId)!.lastStep;
      if (poll < polls) server.appendRows("e", "p", runId, rows(last + 1, last + 1 + growth));
      if (poll === polls - 1) server.setState("e", "p", runId, "finished");
    },
  });
  assert.equal(summary.stopped, "ended");
  assert.equal(summary.failedPolls, 0);
  const pageStarts = server.requests
    .slice(started)
    .filter((r) => r.operationName === "HistoryPage")
    .map((r) => (r.variables as { minStep: number }).minStep);
  return { dir, pageStarts, rowsAdded };
}

async function oneShot(runId: string): Promise<string> {
  const dir = path.join(tmp, `${runId}-oneshot`);
  await fetchAndFreeze({
    entity: "e",
    project: "p",
    runs: [{ runId, round: "R0" }],
    outDir: dir,
    baseUrl: server.url,
    apiKey: server.apiKey,
    env: {},
    allowRunning: true,
  });
  return dir;
}

function historyBytes(dir: string, runId: string): Buffer {
  return fs.readFileSync(path.join(dir, "history", `${runId}.jsonl`));
}

test("pages path: a run followed while it grows ends byte-identical to a one-shot fetch; each poll pages only the new steps", async () => {
  server.addRun({ entity: "e", project: "p", runId: "growpages", state: "running", rows: rows(0, 1500) });
  const { dir, pageStarts, rowsAdded } = await followGrowing("growpages", 400, 4);
  const once = await oneShot("growpages");
  assert.ok(historyBytes(dir, "growpages").equals(historyBytes(once, "growpages")), "history bytes equal the one-shot fetch");
  // Steps 0..2699 without s % 11 == 5: 2700 - 245 = 2455 rows.
  assert.equal(manifestOf(dir).runs[0].historyEvents, 2455);
  // Poll 1 reads [0, 1500) in two windows; polls 2-4 each read the overlap window again (from the step
  // of the 100th last frozen row: 1390, 1790, 2190) and page from the step after the last frozen one.
  assert.deepEqual(pageStarts, [0, 1000, 1390, 1500, 1790, 1900, 2190, 2300]);
  // Rows per poll: 1364 first, then 400 steps each less their gaps (37 in [1500, 1900), 36 in the next two), then nothing (the end check).
  assert.deepEqual(rowsAdded, [1364, 363, 364, 364, 0]);
  const chain = await verifySnapshotChain(dir);
  assert.deepEqual(chain.problems, []);
  assert.deepEqual(
    chain.links.map((l) => l.sequence),
    [1, 2, 3, 4],
  );
  assert.equal((await verifyArchive(dir)).ok, true);
});

test("a lone followed run asks for 4 windows at once, as a fetch does, and ends byte-identical to a one-shot fetch", async () => {
  server.addRun({ entity: "e", project: "p", runId: "ahead", state: "finished", rows: rows(0, 5000) });
  // Every page answers after 30 ms, so that windows asked for ahead overlap.
  server.injectFault({ kind: "delay", ms: 30, count: 20, operationName: "HistoryPage" });
  server.resetPeaks();
  const dir = path.join(tmp, "ahead-followed");
  const follower = await Follower.open(followOptions("ahead", dir));
  const summary = await follower.follow({ intervalSeconds: 0, until: "finished" });
  assert.equal(summary.stopped, "ended");
  assert.equal(server.peakInFlight("HistoryPage"), 4);
  server.clearFaults();
  const once = await oneShot("ahead");
  assert.ok(historyBytes(dir, "ahead").equals(historyBytes(once, "ahead")), "history bytes equal the one-shot fetch");
});

test("a followed server run carries its config's flags and versions exactly as a one-shot fetch does; nothing else of the config", async () => {
  const config = { use_rollout_logprobs: true, advantage_estimator: "grpo", kl_coef: "x", _wandb: { cli_version: "0.21.0" }, note: "never kept" };
  server.addRun({ entity: "e", project: "p", runId: "flagged", state: "running", config, rows: rows(0, 300) });
  const { dir } = await followGrowing("flagged", 100, 2);
  const once = await oneShot("flagged");
  const followed = manifestOf(dir).runs[0];
  const oneShotRun = manifestOf(once).runs[0];
  assert.deepEqual([followed.flags, followed.flagsDropped, followed.versions], [oneShotRun.flags, oneShotRun.flagsDropped, oneShotRun.versions]);
  assert.deepEqual(followed.flags, {
    advantage_estimator: { value: "grpo", source: "config" },
    use_rollout_logprobs: { value: true, source: "config" },
  });
  assert.deepEqual(followed.versions, { wandb: { value: "0.21.0", source: "config" } });
  assert.ok(!fs.readFileSync(path.join(dir, "manifest.json"), "utf8").includes("never kept"));
});

test("parquet path: the first poll reads the exports (liveData lists one live row), later polls page the new steps; same bytes as a one-shot fetch", async () => {
  server.addRun({ entity: "e", project: "p", runId: "growparquet", state: "running", rows: rows(0, 3000) });
  server.setParquetExports({ enabled: true, lagSteps: 200, filesPerRun: 2, liveListing: "first" });
  const { dir, pageStarts } = await followGrowing("growparquet", 250, 3);
  assert.equal(manifestOf(dir).runs[0].historyPath, "parquet+pages");
  // First poll: steps <= 2799 exported, the last of them 2798 (2799 is a gap), so the tail is paged from
  // 2799; then the overlap windows (100th last frozen row: 2890, 3141) and the new steps from 3000, 3250.
  assert.deepEqual(pageStarts, [2799, 2890, 3000, 3141, 3250]);
  const once = await oneShot("growparquet");
  assert.ok(historyBytes(dir, "growparquet").equals(historyBytes(once, "growparquet")), "history bytes equal the one-shot fetch");
});

test("each snapshot's manifest names the previous one's sha256 and each run's part frozen before", async () => {
  server.addRun({ entity: "e", project: "p", runId: "chained", state: "running", rows: rows(0, 100) });
  const dir = path.join(tmp, "chained");
  const follower = await Follower.open(followOptions("chained", dir));
  const first = await follower.poll();
  assert.equal(first.sequence, 1);
  const m1Text = fs.readFileSync(path.join(dir, snapshotFile(1)), "utf8");
  const m1 = JSON.parse(m1Text) as SourceManifest;
  assert.equal(m1.previous, null);
  assert.deepEqual(m1.runs[0].frozenBefore, { bytes: 0, sha256: EMPTY_SHA256 });
  assert.equal((await follower.poll()).sequence, null, "nothing new: no snapshot");
  server.appendRows("e", "p", "chained", rows(100, 130));
  const third = await follower.poll();
  assert.equal(third.sequence, 2);
  assert.equal(third.rowsAdded.chained, 27, "steps 100..129 less the gaps 104, 115, 126");
  const m2 = manifestOf(dir);
  assert.equal(m2.previous, sha256Hex(m1Text));
  assert.deepEqual(m2.runs[0].frozenBefore, { bytes: m1.runs[0].bytes, sha256: m1.runs[0].sha256 });
  const file = historyBytes(dir, "chained");
  assert.equal(sha256Hex(file.subarray(0, m1.runs[0].bytes)), m1.runs[0].sha256, "the file starts with the bytes snapshot 1 froze");
  assert.equal(fs.readFileSync(path.join(dir, snapshotFile(2)), "utf8"), fs.readFileSync(path.join(dir, "manifest.json"), "utf8"));
});

test("a failed poll keeps the last snapshot byte for byte and the next poll completes it", async () => {
  server.addRun({ entity: "e", project: "p", runId: "flaky", state: "running", rows: rows(0, 200) });
  const dir = path.join(tmp, "flaky");
  const follower = await Follower.open(followOptions("flaky", dir));
  await follower.poll();
  const before = snapshotTree(dir);
  server.appendRows("e", "p", "flaky", rows(200, 400));
  server.injectFault({ kind: "status", status: 503, operationName: "HistoryPage", count: 2 });
  await assert.rejects(follower.poll(), /503/);
  assertSameTree(snapshotTree(dir), before, "after the failed poll");
  const next = await follower.poll();
  assert.equal(next.sequence, 2);
  assert.deepEqual((await verifySnapshotChain(dir)).problems, []);
});

test("an interrupted poll (Ctrl-C) leaves the last snapshot valid and unchanged", async () => {
  server.addRun({ entity: "e", project: "p", runId: "interrupted", state: "running", rows: rows(0, 200) });
  const dir = path.join(tmp, "interrupted");
  const follower = await Follower.open(followOptions("interrupted", dir));
  await follower.poll();
  const before = snapshotTree(dir);
  server.appendRows("e", "p", "interrupted", rows(200, 3000));
  const controller = new AbortController();
  server.onRequest = (entry) => {
    if (entry.operationName === "HistoryPage") controller.abort(new Error("interrupted"));
  };
  const summary = await follower.follow({ intervalSeconds: 0, until: { polls: 5 }, signal: controller.signal });
  assert.equal(summary.stopped, "interrupted");
  assertSameTree(snapshotTree(dir), before, "after the interruption");
  assert.equal((await verifyArchive(dir)).ok, true);
  assert.deepEqual(
    fs.readdirSync(tmp).filter((n) => n.startsWith(".interrupted")),
    [],
    "no lock or temp folder left",
  );
});

test("a followed .wandb log being appended (torn tails included) ends byte-identical to a one-shot freeze of the whole log", async () => {
  const real = path.resolve(__dirname, "../fixtures/real-runs/trl/grpo-log1/R0-run-trlgrpolog1.wandb");
  const bytes = fs.readFileSync(real);
  const runId = peekWandbFileRunId(real);
  const live = path.join(fs.mkdtempSync(path.join(tmp, "live-")), `run-${runId}.wandb`);
  const dir = path.join(tmp, "wandbfile-followed");
  // Cuts inside records: each poll sees the log up to its last whole record.
  const cuts = [Math.floor(bytes.length * 0.3) + 3, Math.floor(bytes.length * 0.62) + 1, bytes.length];
  fs.writeFileSync(live, bytes.subarray(0, cuts[0]));
  const notes: string[] = [];
  const follower = await Follower.open({
    entity: "",
    project: "",
    runs: [{ runId, round: "R0", file: live }],
    outDir: dir,
    env: {},
    reporter: { warn: (m) => warnings.push(m), info: (m) => notes.push(m) },
  });
  const states: string[] = [];
  const summary = await follower.follow({
    intervalSeconds: 0,
    until: "finished",
    onPoll: (result, poll) => {
      states.push(result.states[runId]);
      if (poll < cuts.length) fs.appendFileSync(live, bytes.subarray(cuts[poll - 1], cuts[poll]));
    },
  });
  assert.equal(summary.stopped, "ended");
  assert.deepEqual(states.slice(0, 2), ["running", "running"], "no exit record yet: running, not crashed");
  assert.deepEqual(warnings, [], "a torn tail of a live log is no warning");
  assert.ok(
    notes.some((n) => /hold no whole record yet \(a record being written\)/.test(n)),
    notes.join("\n"),
  );
  assert.equal(states[states.length - 1], "finished");
  const once = path.join(tmp, "wandbfile-oneshot");
  await fetchAndFreeze({ entity: "", project: "", runs: [{ runId, round: "R0", file: real }], outDir: once, env: {} });
  assert.ok(historyBytes(dir, runId).equals(historyBytes(once, runId)), "history bytes equal the one-shot freeze");
  assert.deepEqual((await verifySnapshotChain(dir)).problems, []);
});

test("the chain check names a snapshot whose data changed afterwards", async () => {
  server.addRun({ entity: "e", project: "p", runId: "tampered", state: "running", rows: rows(0, 50) });
  const dir = path.join(tmp, "tampered");
  const follower = await Follower.open(followOptions("tampered", dir));
  await follower.poll();
  server.appendRows("e", "p", "tampered", rows(50, 60));
  await follower.poll();
  const file = path.join(dir, "history", "tampered.jsonl");
  const text = fs.readFileSync(file, "utf8");
  fs.writeFileSync(file, text.replace('"_step":1,', '"_step":1 ,'));
  const report = await verifySnapshotChain(dir);
  assert.equal(report.ok, false);
  assert.match(report.problems.join("\n"), /snapshot snapshots\/000001\.json, run tampered: the first \d+ bytes of .* \(changed after it was frozen\)/);
});

/** Follows `runId` (100 rows) for one poll, applies `rewrite` to the server, polls again; returns the archive and the second poll's snapshot manifest. */
async function rewriteAfterOnePoll(runId: string, rewrite: () => void): Promise<{ dir: string; m: SourceManifest; before: Buffer }> {
  server.addRun({ entity: "e", project: "p", runId, state: "running", rows: rows(0, 100) });
  const dir = path.join(tmp, runId);
  const follower = await Follower.open(followOptions(runId, dir, { overlapRows: 10 }));
  await follower.poll();
  const before = historyBytes(dir, runId);
  rewrite();
  const second = await follower.poll();
  assert.equal(second.sequence, 2);
  return { dir, m: manifestOf(dir), before };
}

test("a rewind (fewer rows, an earlier last step) starts lineage 2 with the reason; the run is read anew, the old file kept beside the snapshots", async () => {
  const { dir, m, before } = await rewriteAfterOnePoll("rewound", () => {
    server.rewindRun("e", "p", "rewound", 40);
    server.appendRows(
      "e",
      "p",
      "rewound",
      rows(41, 61).map((r) => ({ ...r, loss: 2 })),
    );
  });
  assert.deepEqual(
    { ...m.snapshot, takenAt: "" },
    {
      sequence: 2,
      takenAt: "",
      lineage: 2,
      lineageReason:
        "logged history was rewritten (a rewind, a resume in place or a deletion): run e/p/rewound: the server now holds 55 rows up to step 59, the archive froze 91 up to step 99",
    },
  );
  assert.match(warnings.join("\n"), /snapshot 2 starts lineage 2: logged history was rewritten/);
  assert.deepEqual(m.runs[0].frozenBefore, { bytes: 0, sha256: EMPTY_SHA256 }, "nothing of lineage 1 is kept in the run's file");
  const once = await oneShot("rewound");
  assert.ok(historyBytes(dir, "rewound").equals(historyBytes(once, "rewound")), "the new lineage holds what a one-shot fetch reads now");
  assert.ok(fs.readFileSync(path.join(dir, "snapshots", "lineage-1-rewound.jsonl")).equals(before), "lineage 1's file kept");
  assert.deepEqual((await verifySnapshotChain(dir)).problems, []);
});

test("a resume in place that logs the last steps again with other values (same counts) is caught by the overlap window", async () => {
  const { dir, m } = await rewriteAfterOnePoll("inplace", () => {
    // Steps 95..99 logged again: 5 rows replaced, then 10 new ones; the counts alone would say "grew by 10".
    server.rewindRun("e", "p", "inplace", 94);
    server.appendRows(
      "e",
      "p",
      "inplace",
      rows(95, 110).map((r) => ({ ...r, loss: 7 })),
    );
  });
  assert.equal(m.snapshot!.lineage, 2);
  assert.match(
    m.snapshot!.lineageReason!,
    /run e\/p\/inplace: the last 10 frozen rows \(steps 89\.\.99\): step 95 was frozen as \{"_runtime":47\.5,"_step":95,"loss":0\.010416666666666666\}, the server now holds \{"_runtime":47\.5,"_step":95,"loss":7\}/,
  );
  assert.equal(
    historyBytes(dir, "inplace")
      .toString()
      .split("\n")
      .filter((l) => l.includes('"loss":7')).length,
    14,
    "steps 95..109 less the gap at 104",
  );
  assert.deepEqual((await verifySnapshotChain(dir)).problems, []);
});

test("the overlap window does not start a lineage when the last frozen rows are unchanged (a run that only grew)", async () => {
  const { m } = await rewriteAfterOnePoll("onlygrew", () => server.appendRows("e", "p", "onlygrew", rows(100, 120)));
  assert.equal(m.snapshot!.lineage, 1);
  assert.equal(m.snapshot!.lineageReason, null);
  assert.equal(warnings.length, 0, warnings.join("\n"));
});

test("an archive holding runs not selected is not followed into (they would be lost)", async () => {
  server.addRun({ entity: "e", project: "p", runId: "kept", state: "running", rows: rows(0, 10) });
  const dir = path.join(tmp, "kept");
  await (await Follower.open(followOptions("kept", dir))).poll();
  await assert.rejects(
    Follower.open(followOptions("other", dir)),
    /invalid runs: the archive .* also holds run kept; select it too, or follow into another folder/,
  );
});

test("a run deleted mid-follow: the next snapshot says deleted, its frozen rows stay, and the follow ends", async () => {
  server.addRun({ entity: "e", project: "p", runId: "deleted", state: "running", rows: rows(0, 40) });
  const dir = path.join(tmp, "deleted");
  const follower = await Follower.open(followOptions("deleted", dir));
  const summary = await follower.follow({
    intervalSeconds: 0,
    until: "finished",
    onPoll: (_r, poll) => {
      if (poll === 1) server.deleteRun("e", "p", "deleted");
    },
  });
  assert.equal(summary.stopped, "ended");
  const m = manifestOf(dir);
  assert.equal(m.runs[0].state, "deleted");
  assert.equal(m.runs[0].historyEvents, 36, "steps 0..39 less the gaps 5, 16, 27, 38");
  assert.equal(m.snapshot!.sequence, 2);
  assert.deepEqual(warnings, ["run e/p/deleted: the server no longer has it (deleted); its 36 frozen rows stay as frozen"]);
  assert.deepEqual((await verifySnapshotChain(dir)).problems, []);
});

test("a .wandb log that stops growing without an exit record: 'no writes for T' said once, called crashed only in the follow's last snapshot", async () => {
  const real = path.resolve(__dirname, "../fixtures/real-runs/trl/grpo-log1/R0-run-trlgrpolog1.wandb");
  const bytes = fs.readFileSync(real);
  const runId = peekWandbFileRunId(real);
  const live = path.join(fs.mkdtempSync(path.join(tmp, "stale-")), `run-${runId}.wandb`);
  fs.writeFileSync(live, bytes.subarray(0, Math.floor(bytes.length / 2)));
  let clock = Date.parse("2026-01-01T00:00:00Z");
  const follower = await Follower.open({
    entity: "",
    project: "",
    runs: [{ runId, round: "R0", file: live }],
    outDir: path.join(tmp, "stale"),
    env: {},
    staleSeconds: 120,
    now: () => new Date(clock),
    reporter: { warn: (m) => warnings.push(m) },
  });
  const seen: { states: string; stale: string[] }[] = [];
  const summary = await follower.follow({
    intervalSeconds: 0,
    until: "finished",
    onPoll: (result) => {
      seen.push({ states: result.states[runId], stale: result.stale });
      clock += 60_000; // a minute between polls, the log never grows again
    },
  });
  assert.equal(summary.stopped, "ended");
  // Polls at 0, 60 s (running), 120 s (no writes for 120 s: stale), 180 s (still stale: the end check), then the last snapshot.
  assert.deepEqual(
    seen.map((p) => `${p.states}${p.stale.length ? " stale" : ""}`),
    ["running", "running", "running stale", "running stale", "crashed stale"],
  );
  assert.equal(warnings.length, 1, warnings.join("\n"));
  assert.match(warnings[0], /no writes for 120 s and no exit record; called crashed if it stays so until the follow ends/);
  assert.equal(manifestOf(path.join(tmp, "stale")).runs[0].state, "crashed");
});

test("npm run export's writer refuses a followed archive whose chain is broken (an earlier snapshot edited), naming the break", async () => {
  server.addRun({ entity: "e", project: "p", runId: "brokenchain", state: "running", rows: rows(0, 30) });
  const dir = path.join(tmp, "brokenchain");
  const follower = await Follower.open(followOptions("brokenchain", dir));
  await follower.poll();
  server.appendRows("e", "p", "brokenchain", rows(30, 40));
  await follower.poll();
  const first = path.join(dir, snapshotFile(1));
  fs.writeFileSync(first, fs.readFileSync(first, "utf8").replace('"lineage": 1', '"lineage": 1 '));
  await assert.rejects(
    writeExports({ dataDir: dir, outDir: path.join(tmp, "brokenchain-exports") }),
    /refusing to export from .*brokenchain: its snapshot chain is broken: snapshot snapshots\/000002\.json: previous is [0-9a-f]{64}, the snapshot before hashes to [0-9a-f]{64}/,
  );
  assert.equal(fs.existsSync(path.join(tmp, "brokenchain-exports")), false);
});

test("a follow restarted on its archive continues the chain; one started on a fetch's archive chains to it as snapshot 0", async () => {
  server.addRun({ entity: "e", project: "p", runId: "restarted", state: "running", rows: rows(0, 60) });
  const dir = await oneShot("restarted");
  const fetched = fs.readFileSync(path.join(dir, "manifest.json"), "utf8");
  server.appendRows("e", "p", "restarted", rows(60, 80));
  const first = await Follower.open(followOptions("restarted", dir));
  assert.equal((await first.poll()).sequence, 1);
  assert.equal(fs.readFileSync(path.join(dir, snapshotFile(0)), "utf8"), fetched, "the fetch's manifest kept as snapshot 0");
  assert.equal(manifestOf(dir).previous, sha256Hex(fetched));
  server.appendRows("e", "p", "restarted", rows(80, 100));
  const again = await Follower.open(followOptions("restarted", dir));
  const next = await again.poll();
  assert.equal(next.sequence, 2);
  assert.equal(next.rowsAdded.restarted, 18, "steps 80..99 less the gaps 82, 93");
  const chain = await verifySnapshotChain(dir);
  assert.deepEqual(chain.problems, []);
  assert.deepEqual(
    chain.links.map((l) => [l.sequence, l.rowsAdded.restarted]),
    [
      [0, 55],
      [1, 18],
      [2, 18],
    ],
  );
  const once = path.join(tmp, "restarted-again");
  await fetchAndFreeze({
    entity: "e",
    project: "p",
    runs: [{ runId: "restarted", round: "R0" }],
    outDir: once,
    baseUrl: server.url,
    apiKey: server.apiKey,
    env: {},
    allowRunning: true,
  });
  assert.ok(historyBytes(dir, "restarted").equals(historyBytes(once, "restarted")));
});

/** The spare copy beside an archive folder (null when there is none). */
function spareOf(dir: string): string | null {
  const names = fs.readdirSync(path.dirname(dir)).filter((n) => n.startsWith(`.${path.basename(dir)}.spare-`));
  assert.ok(names.length <= 1, `at most one spare: ${names.join(", ")}`);
  return names.length === 0 ? null : path.join(path.dirname(dir), names[0]);
}

/** Follows `runId` for two polls (rows 0..300, then 300..400 appended), so that a spare copy exists. */
async function twoPolls(runId: string): Promise<{ dir: string; follower: Follower }> {
  server.addRun({ entity: "e", project: "p", runId, state: "running", rows: rows(0, 300) });
  const dir = path.join(tmp, runId);
  const follower = await Follower.open(followOptions(runId, dir, { overlapRows: 10 }));
  await follower.poll();
  assert.equal(spareOf(dir), null, "no spare after the first snapshot (there was no archive before it)");
  server.appendRows("e", "p", runId, rows(300, 400));
  await follower.poll();
  assert.equal(follower.lastCatchUp, null, "the second snapshot copied the archive (no spare yet)");
  return { dir, follower };
}

test("from the third snapshot on a poll starts from the spare copy: its history file is reused (same inode) and only the bytes of the last two polls are written; same bytes as a one-shot fetch", async () => {
  const { dir, follower } = await twoPolls("sparegrow");
  const spare = spareOf(dir)!;
  const file = path.join("history", "sparegrow.jsonl");
  const inode = fs.statSync(path.join(spare, file)).ino;
  const sizes = [fs.statSync(path.join(spare, file)).size, fs.statSync(path.join(dir, file)).size];
  server.appendRows("e", "p", "sparegrow", rows(400, 500));
  await follower.poll();
  assert.equal(fs.statSync(path.join(dir, file)).ino, inode, "the archive's file is the spare's, appended to, not a copy");
  // Appended: what snapshot 2 added to the spare's snapshot-1 file; copied: snapshot 2's manifest copy only.
  assert.deepEqual(follower.lastCatchUp, { appended: sizes[1] - sizes[0], copied: fs.statSync(path.join(dir, snapshotFile(2))).size });
  assert.ok(historyBytes(dir, "sparegrow").equals(historyBytes(await oneShot("sparegrow"), "sparegrow")), "history bytes equal the one-shot fetch");
  assert.deepEqual((await verifySnapshotChain(dir)).problems, []);
  assert.equal((await verifyArchive(dir)).ok, true);
  assert.notEqual(spareOf(dir), null);
  await follower.close();
  assert.equal(spareOf(dir), null, "close() removes the spare");
});

test("a spare that is not the snapshot before, or whose history file was cut, is NOT appended to: copied whole instead, and the archive stays byte-exact", async () => {
  const { dir, follower } = await twoPolls("sparebad");
  const file = path.join("history", "sparebad.jsonl");
  // Cut the spare's file by one byte: appending to it would shift every later byte.
  const spare = spareOf(dir)!;
  fs.truncateSync(path.join(spare, file), fs.statSync(path.join(spare, file)).size - 1);
  const whole = fs.statSync(path.join(dir, file)).size;
  server.appendRows("e", "p", "sparebad", rows(400, 450));
  await follower.poll();
  assert.equal(follower.lastCatchUp!.appended, 0);
  assert.ok(follower.lastCatchUp!.copied > whole, `the run's file (${whole} bytes) copied whole: ${follower.lastCatchUp!.copied}`);
  assert.ok(historyBytes(dir, "sparebad").equals(historyBytes(await oneShot("sparebad"), "sparebad")));
  // A spare whose manifest is not the one before the archive's (here: edited) is emptied and the archive copied.
  const next = spareOf(dir)!;
  fs.appendFileSync(path.join(next, "manifest.json"), " ");
  server.appendRows("e", "p", "sparebad", rows(450, 500));
  await follower.poll();
  assert.equal(follower.lastCatchUp, null, "not caught up: copied");
  assert.ok(historyBytes(dir, "sparebad").equals(historyBytes(await oneShot("sparebad"), "sparebad")));
  assert.deepEqual((await verifySnapshotChain(dir)).problems, []);
  await follower.close();
});

test("a rewind after the spare exists: the rewound run starts lineage 2 from the spare, the old lineage kept, the new one equal to a one-shot fetch", async () => {
  const { dir, follower } = await twoPolls("sparerewind");
  const before = historyBytes(dir, "sparerewind");
  server.rewindRun("e", "p", "sparerewind", 250);
  server.appendRows(
    "e",
    "p",
    "sparerewind",
    rows(251, 280).map((r) => ({ ...r, loss: 3 })),
  );
  const third = await follower.poll();
  assert.equal(third.sequence, 3);
  assert.notEqual(follower.lastCatchUp, null, "started from the spare");
  assert.equal(manifestOf(dir).snapshot?.lineage, 2);
  assert.ok(fs.readFileSync(path.join(dir, "snapshots", "lineage-1-sparerewind.jsonl")).equals(before), "lineage 1's file kept as it was");
  assert.ok(historyBytes(dir, "sparerewind").equals(historyBytes(await oneShot("sparerewind"), "sparerewind")));
  assert.deepEqual((await verifySnapshotChain(dir)).problems, []);
  await follower.close();
});
