/**
 * The follow's in-memory archive (lib/follow/live-archive.ts): after each poll of a growing run it
 * parses only the new rows, and its health report and open batches equal `analyseSnapshot`'s on the
 * same archive; a rewritten lineage is read whole; a prior byte changed on disk is refused, naming
 * run and file, and never analysed.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";

import { Follower } from "../../lib/follow/follower";
import { LiveArchive } from "../../lib/follow/live-archive";
import { analyseSnapshot } from "../../lib/follow/poll-analysis";
import type { SourceManifest } from "../../lib/types";
import { sampleHistory, useFollowTestBed } from "./follow-test-bed";

const bed = useFollowTestBed("live-archive-");
const root = bed.root;

const LATE = "sim-r2-85gs"; // logs rollout/kl = NaN at _step 31 (rollout 47): the sample's one flag
const RUNS = ["sim-r0-ghfk", "sim-r1-kf63", LATE];

/** A follow of the sample's runs where LATE starts with `first` rows and is running. */
async function startFollow(name: string, first: number): Promise<{ follower: Follower; dir: string; project: string }> {
  const project = name;
  bed.addSampleRuns(LATE, first, { entity: "e", project, runIds: RUNS });
  const dir = path.join(root, name);
  const follower = await Follower.open({
    entity: "e",
    project,
    runs: RUNS.map((runId, i) => ({ runId, round: `R${i}` })),
    outDir: dir,
    ...bed.connection(),
    retry: { retries: 0, random: () => 0, sleep: async () => undefined },
    now: () => new Date("2026-01-01T00:00:00Z"),
  });
  return { follower, dir, project };
}

/** The incremental analysis against a full one of the same archive: health report and open batches deep-equal. */
async function assertSameAnalysis(live: LiveArchive, dir: string, what: string): Promise<Awaited<ReturnType<LiveArchive["analyse"]>>> {
  const inc = await live.analyse();
  const full = await analyseSnapshot(dir);
  assert.deepEqual(inc.health, full.health, `${what}: health report`);
  assert.deepEqual(inc.open, full.open, `${what}: open batches`);
  return inc;
}

test("after each poll of a growing run only the new rows are parsed, and the analysis equals analyseSnapshot's", async () => {
  const { follower, dir, project } = await startFollow("grow", 10);
  const live = new LiveArchive(dir);
  const rows = sampleHistory(LATE);
  await follower.poll();
  let inc = await assertSameAnalysis(live, dir, "poll 1");
  assert.deepEqual(
    live.stats.reloaded.map((r) => `${r.runId}: ${r.why}`),
    RUNS.map((r) => `${r}: first read`),
  );
  const sampleRows = RUNS.reduce((n, r) => n + (r === LATE ? 10 : sampleHistory(r).length), 0);
  assert.equal(live.stats.rowsParsed, sampleRows);
  assert.equal(inc.health.flags.filter((f) => f.runId === LATE).length, 0, "rollout 47 not logged yet");
  const flagsBy: number[] = [];
  // Chunks ending inside rollout 47 (open), just after it, and the rest of the run.
  for (const [from, to] of [
    [10, 32],
    [32, 37],
    [37, rows.length],
  ]) {
    bed.server.appendRows("e", project, LATE, rows.slice(from, to));
    if (to === rows.length) bed.server.setState("e", project, LATE, "finished");
    await follower.poll();
    inc = await assertSameAnalysis(live, dir, `rows ${from}..${to}`);
    assert.deepEqual(live.stats.reloaded, [], "nothing read whole");
    assert.equal(live.stats.rowsParsed, to - from, "only the new rows parsed");
    flagsBy.push(inc.health.flags.filter((f) => f.runId === LATE && f.check === "non_finite").length);
  }
  // The NaN batch (rollout 47) is open at _step 31, closed once rollout 48 is logged.
  assert.deepEqual(flagsBy, [0, 1, 1]);
  assert.deepEqual(inc.open, [], "the run finished: no open batch");
  // A poll that froze nothing: nothing parsed, the same analysis.
  await follower.poll();
  await assertSameAnalysis(live, dir, "no new rows");
  assert.equal(live.stats.rowsParsed, 0);
});

/** Every file of an export folder, by name. */
function folderBytes(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of fs.readdirSync(dir).sort()) out[name] = fs.readFileSync(path.join(dir, name), "utf8");
  return out;
}

test("with exportsDir the exports come from the live alignment, byte for byte those of a full reload, health.csv over every record while the flags leave the open batch out", async () => {
  const { follower, dir, project } = await startFollow("exports", 32);
  const live = new LiveArchive(dir);
  const rows = sampleHistory(LATE);
  const liveOut = path.join(root, "exports-live");
  const fullOut = path.join(root, "exports-full");
  await follower.poll();
  const inc = await live.analyse(undefined, liveOut);
  const full = await analyseSnapshot(dir, { exportsDir: fullOut });
  assert.deepEqual(folderBytes(liveOut), folderBytes(fullOut), "snapshot 1: every export file");
  assert.equal(
    live.stats.rowsParsed,
    RUNS.reduce((n, r) => n + (r === LATE ? 32 : sampleHistory(r).length), 0),
  );
  // Rollout 47 (its NaN) is the open batch: health.csv holds it, the printed flags do not.
  assert.equal(inc.open.length, 1);
  assert.equal(inc.health.flags.filter((f) => f.runId === LATE).length, 0);
  assert.equal(inc.exports!.health.flags.filter((f) => f.runId === LATE && f.check === "non_finite").length, 1);
  assert.deepEqual(inc.exports!.health, full.exports!.health);
  bed.server.appendRows("e", project, LATE, rows.slice(32));
  bed.server.setState("e", project, LATE, "finished");
  await follower.poll();
  const done = await live.analyse(undefined, liveOut);
  await analyseSnapshot(dir, { exportsDir: fullOut });
  assert.deepEqual(folderBytes(liveOut), folderBytes(fullOut), "snapshot 2: every export file");
  assert.equal(live.stats.rowsParsed, rows.length - 32, "only the new rows parsed");
  // Nothing open: one report is both views.
  assert.equal(done.exports!.health, done.health);
});

test("a rewound run (a new lineage) is read whole, and the analysis equals analyseSnapshot's", async () => {
  const { follower, dir, project } = await startFollow("rewind", 40);
  const live = new LiveArchive(dir);
  await follower.poll();
  await assertSameAnalysis(live, dir, "first poll");
  const rows = sampleHistory(LATE);
  bed.server.rewindRun("e", project, LATE, 20);
  // Logged again from step 21 with other values (a rewind re-logs different rows).
  const again = rows.slice(
    rows.findIndex((t) => (JSON.parse(t) as { _step: number })._step > 20),
    60,
  );
  bed.server.appendRows(
    "e",
    project,
    LATE,
    again.map((t) => t.replace(/"_runtime":[^,]+/, '"_runtime":1.5')),
  );
  await follower.poll();
  assert.equal(JSON.parse(fs.readFileSync(path.join(dir, "manifest.json"), "utf8")).snapshot.lineage, 2);
  await assertSameAnalysis(live, dir, "after the rewind");
  assert.deepEqual(live.stats.reloaded, [{ runId: LATE, why: "it does not extend what was read (a new lineage)" }]);
  const entry = (JSON.parse(fs.readFileSync(path.join(dir, "manifest.json"), "utf8")) as SourceManifest).runs.find((r) => r.runId === LATE)!;
  assert.equal(entry.frozenBefore?.bytes, 0);
  assert.equal(live.stats.rowsParsed, entry.historyEvents, "the rewound run's rows, all parsed again");
  assert.equal(entry.historyEvents, 60);
});

test("a prior byte changed on disk between polls is refused, naming run and file; the analysis is not given changed data", async () => {
  const { follower, dir, project } = await startFollow("tamper", 20);
  const live = new LiveArchive(dir);
  await follower.poll();
  const before = await live.analyse();
  // A value of the first row (frozen, hashed) changed on disk, same length.
  const file = path.join(dir, "history", `${LATE}.jsonl`);
  const text = fs.readFileSync(file, "utf8");
  const at = text.indexOf('"_step":') + 8;
  fs.writeFileSync(file, text.slice(0, at) + (text[at] === "0" ? "1" : "0") + text.slice(at + 1));
  bed.server.appendRows("e", project, LATE, sampleHistory(LATE).slice(20, 40));
  await follower.poll();
  await assert.rejects(live.analyse(), (e: Error) => {
    assert.match(e.message, new RegExp(`^run ${LATE}: archive file ${file.replace(/[.]/g, "\\.")}: its first \\d+ bytes changed since they were read`));
    return true;
  });
  // Still refused at the next try: the state read before the change is kept, and checked again.
  await assert.rejects(live.analyse(), /changed since they were read/);
  assert.ok(before.health.flags.length >= 0);
  // The full path refuses it too (the manifest's sha256 no longer matches the file).
  await assert.rejects(analyseSnapshot(dir), /sha256 mismatch/);
});

test("npm run follow: a prior byte changed on disk between two polls is not analysed; the follow says so, naming run and file", async () => {
  const project = "cli";
  const rows = sampleHistory(LATE);
  bed.server.addRun({ entity: "e", project, runId: LATE, state: "running", rows: rows.slice(0, 20) });
  const out = path.join(root, "cli-archive");
  const file = path.join(out, "history", `${LATE}.jsonl`);
  let queries = 0;
  bed.server.onRequest = (entry) => {
    if (entry.operationName !== "Run") return;
    // Before poll 2: a frozen value changed on disk (same length), and new rows logged.
    if (++queries !== 2) return;
    const text = fs.readFileSync(file, "utf8");
    fs.writeFileSync(file, text.replace('"_step":0,', '"_step":9,'));
    bed.server.appendRows("e", project, LATE, rows.slice(20, 40));
  };
  const args = ["--entity", "e", "--project", project, "--run", `${LATE}=R0`, "--out", out, "--interval", "0", "--polls", "2"];
  const res = await bed.follow(args);
  bed.server.onRequest = null;
  assert.equal(queries >= 2, true, "two polls read the run");
  assert.match(res.stdout, /^poll 2: snapshot 2: /m);
  assert.match(
    res.stderr,
    new RegExp(`snapshot 2: not analysed \\(run ${LATE}: archive file ${file.replace(/[.]/g, "\\.")}: its first \\d+ bytes changed since they were read`),
  );
  // The chain check at the end sees it too.
  assert.match(res.stdout, /snapshot chain BROKEN/);
});

test("one run's file changed and the next run's file missing: refused naming the missing file, and no rejection is left unhandled", async () => {
  const { follower, dir } = await startFollow("twofaults", 20);
  const live = new LiveArchive(dir);
  await follower.poll();
  await live.analyse();
  const unhandled: unknown[] = [];
  const onUnhandled = (e: unknown) => unhandled.push(e);
  process.on("unhandledRejection", onUnhandled);
  try {
    const first = path.join(dir, "history", `${RUNS[0]}.jsonl`);
    const text = fs.readFileSync(first, "utf8");
    fs.writeFileSync(first, text.replace(/1/, "2")); // same length, another sha256
    fs.rmSync(path.join(dir, "history", `${RUNS[1]}.jsonl`));
    await assert.rejects(live.analyse(), new RegExp(`^Error: run ${RUNS[1]}: archive file .*${RUNS[1]}\\.jsonl is missing \\(listed in manifest\\.json\\)$`));
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.deepEqual(unhandled, []);
  } finally {
    process.off("unhandledRejection", onUnhandled);
  }
  await live.close();
});
