/**
 * A run logged by the real `@wandb/sdk@0.5.1` while it is followed: the follow ends when the SDK
 * finishes the run, and its history file is byte-identical to a one-shot fetch of the finished run.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import os from "node:os";
import * as path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { test } from "node:test";
import wandb from "@wandb/sdk";

import { fetchAndFreeze } from "../../lib/archive/fetch-and-freeze";
import { verifySnapshotChain } from "../../lib/archive/snapshot-chain";
import { Follower } from "../../lib/follow/follower";
import { startWandbTestServer } from "../../tools/wandb-test-server/server";

test("a run the SDK logs while it is followed: snapshots as it grows, then history bytes equal to a one-shot fetch", async (t) => {
  const server = await startWandbTestServer({});
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "follow-sdk-"));
  try {
    const target = { entity: "sdk-e", project: "sdk-p" };
    const run = await wandb.init({
      ...target,
      id: "sdkfollow",
      name: "followed",
      settings: { baseUrl: server.url, apiKey: server.apiKey, offline: false, silent: true },
    });
    const outDir = path.join(tmp, "followed");
    const follower = await Follower.open({
      ...target,
      runs: [{ runId: "sdkfollow", round: "R0" }],
      outDir,
      baseUrl: server.url,
      apiKey: server.apiKey,
      env: {},
    });
    const snapshots: number[] = [];
    const following = follower.follow({
      intervalSeconds: 0.05,
      until: "finished",
      onPoll: (r) => {
        if (r.sequence !== null) snapshots.push(r.rowsAdded.sdkfollow);
      },
    });
    for (let chunk = 0; chunk < 4; chunk++) {
      for (let i = 0; i < 50; i++) {
        const k = chunk * 50 + i;
        run.log({ loss: 1 / (k + 1), "rollout/step": Math.floor(k / 4), ...(k % 17 === 0 ? { grad_norm: NaN } : {}) });
      }
      await sleep(1500);
    }
    await run.finish();
    const summary = await following;
    assert.equal(summary.stopped, "ended");
    assert.equal(summary.failedPolls, 0);
    assert.equal(
      snapshots.reduce((a, b) => a + b, 0),
      200,
      `rows per snapshot: ${snapshots.join(", ")}`,
    );
    t.diagnostic(`rows per snapshot while the SDK logged: ${snapshots.join(", ")}`);
    const once = path.join(tmp, "once");
    await fetchAndFreeze({ ...target, runs: [{ runId: "sdkfollow", round: "R0" }], outDir: once, baseUrl: server.url, apiKey: server.apiKey, env: {} });
    const file = "history/sdkfollow.jsonl";
    assert.ok(fs.readFileSync(path.join(outDir, file)).equals(fs.readFileSync(path.join(once, file))), "history bytes equal the one-shot fetch");
    assert.deepEqual((await verifySnapshotChain(outDir)).problems, []);
  } finally {
    await server.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
});
