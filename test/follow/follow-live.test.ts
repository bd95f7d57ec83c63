/**
 * `npm run follow` over the test server's live mode (tools/wandb-test-server/live-run.ts): the sample's
 * run R2 replayed 10 rows per poll, deleted mid-follow. The follow says so, keeps every frozen row and
 * a valid archive, and its flags as they came.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";

import { verifyArchive } from "../../lib/archive/load-archive";
import { verifySnapshotChain } from "../../lib/archive/snapshot-chain";
import { readFlagsPrinted } from "../../lib/follow/new-flags";
import type { SourceManifest } from "../../lib/types";
import { LiveRun } from "../../tools/wandb-test-server/live-run";
import { ROOT, useFollowTestBed } from "./follow-test-bed";

const bed = useFollowTestBed("follow-live-");
const SAMPLE = path.join(ROOT, "data/wandb/history/sim-r2-85gs.jsonl");
const root = bed.root;

test("a run deleted mid-follow: the poll says deleted, a warning names the rows kept, every frozen row stays, the archive verifies, the flag printed before stays recorded", async () => {
  const server = bed.server;
  const live = await LiveRun.start(server, {
    entity: "e",
    project: "p",
    runId: "live",
    historyFile: SAMPLE,
    rowsPerTick: 10,
    events: [{ kind: "delete", tick: 5 }],
  });
  // One tick before each poll's Run query: poll k sees 10k rows, poll 5 a deleted run.
  server.onRequest = (entry) => {
    if (entry.operationName === "Run" && (entry.variables as { name?: string }).name === "live") void live.tick();
  };
  const out = path.join(root, "archive");
  const r = await bed.follow(["--entity", "e", "--project", "p", "--run", "live=R2", "--out", out, "--interval", "0", "--until", "finished"]);
  server.onRequest = null;
  assert.equal(r.code, 0, r.stderr);
  const polls = r.stdout.split("\n").filter((l) => l.startsWith("poll "));
  assert.deepEqual(polls, [
    "poll 1: snapshot 1: live +10 rows (live running)",
    "poll 2: snapshot 2: live +10 rows (live running)",
    "poll 3: snapshot 3: live +10 rows (live running)",
    "poll 4: snapshot 4: live +10 rows (live running)",
    "poll 5: snapshot 5: live +0 rows (live deleted)",
    "poll 6: nothing new (live deleted)",
  ]);
  assert.match(r.stderr, /warning: run e\/p\/live: the server no longer has it \(deleted\); its 40 frozen rows stay as frozen/);
  // Rollout 47 (steps 30..34) logs rollout/kl = NaN: closed once rollout 48 began (steps 35..39), at poll 4.
  const lines = r.stdout.split("\n");
  const flag = lines.findIndex((l) => l.startsWith("  new flag: non_finite (warning) run live rollout batch 47..47 rollout/kl: a NaN, Inf or -Inf value"));
  assert.ok(flag > lines.indexOf(polls[3]) && flag < lines.indexOf(polls[4]), r.stdout);
  assert.equal(lines.filter((l) => l.startsWith("  new flag:")).length, 1);
  assert.match(r.stdout, /followed 1 run\(s\) into .*: 6 poll\(s\), 5 snapshot\(s\), 0 failed; ended; snapshot chain verified/);

  const manifest = JSON.parse(fs.readFileSync(path.join(out, "manifest.json"), "utf8")) as SourceManifest;
  assert.equal(manifest.runs[0].state, "deleted");
  assert.equal(manifest.runs[0].historyEvents, 40);
  const frozen = fs.readFileSync(path.join(out, "history/live.jsonl"), "utf8");
  const sample = fs.readFileSync(SAMPLE, "utf8").split("\n").slice(0, 40).join("\n");
  assert.equal(frozen, `${sample}\n`, "the 40 rows frozen before the deletion, as logged");
  assert.equal((await verifyArchive(out)).ok, true);
  assert.deepEqual((await verifySnapshotChain(out)).problems, []);
  assert.deepEqual(
    (await readFlagsPrinted(out)).map((f) => `${f.check} ${f.key} ${f.first} snapshot ${f.snapshot}`),
    ["non_finite rollout/kl 47 snapshot 4"],
  );
});
