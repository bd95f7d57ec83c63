// Notebook 01's fetch step: offline it verifies and says so; live (WORKSPACE_FETCH=1) it reads the
// runs from a W&B-compatible server and the frozen files come out byte-identical to the bundled ones.
import { test } from "node:test";
import assert from "node:assert/strict";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, appendFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fetchOrVerify, hasCredentials } from "../../lib/workspace/fetch-or-verify";
import { workspaceParams } from "../../lib/workspace/workspace-params";
import { startWandbTestServer } from "../../tools/wandb-test-server/server";
import { buildLog, exitRecord, historyRecord, runRecord } from "../wandb-file/wandb-log-builder";
import type { ManifestSource } from "../../lib/types";

const ROOT = join(__dirname, "..", "..");
const SENTINEL = "sentinel-key-fetch-or-verify-0123456789abcdef";

function copyData(): { dir: string; data: string } {
  const dir = mkdtempSync(join(tmpdir(), "fetch-step-"));
  const data = join(dir, "data");
  cpSync(join(ROOT, "data"), data, { recursive: true });
  return { dir, data };
}

test("offline: verifies every file and says it works offline, without credentials", async () => {
  const { dir, data } = copyData();
  try {
    const env = { NETRC: join(dir, "no-netrc") };
    assert.equal(hasCredentials(env), false);
    const r = await fetchOrVerify(workspaceParams({ WORKSPACE_DATA: data }, ROOT), { env });
    assert.equal(r.mode, "offline");
    assert.equal(r.verify!.ok, true);
    assert.equal(r.verify!.files.filter((f) => f.runId !== "").length, 4);
    assert.match(r.message, /^working offline \(no W&B credentials found\): \d+ files of .*data\/wandb verified/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("offline with credentials present says how to fetch live, and never prints the key", async () => {
  const { dir, data } = copyData();
  try {
    const r = await fetchOrVerify(workspaceParams({ WORKSPACE_DATA: data }, ROOT), { env: { WANDB_API_KEY: SENTINEL } });
    assert.match(r.message, /credentials are available; set WORKSPACE_FETCH=1/);
    assert.ok(!r.message.includes(SENTINEL));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("offline: a frozen file that does not match its hash stops the notebook, naming the file", async () => {
  const { dir, data } = copyData();
  try {
    appendFileSync(join(data, "wandb", "history", "sim-r2-85gs.jsonl"), "\n");
    await assert.rejects(
      fetchOrVerify(workspaceParams({ WORKSPACE_DATA: data }, ROOT), { env: {} }),
      /does not verify against its manifest: history\/sim-r2-85gs\.jsonl/,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("live: fetches runs.json's runs from the server; frozen history byte-identical to the bundled archive", async () => {
  const { dir, data } = copyData();
  const server = await startWandbTestServer({ apiKey: SENTINEL });
  try {
    const config = JSON.parse(readFileSync(join(data, "runs.json"), "utf8"));
    for (const { runId } of config.runs) {
      const lines = readFileSync(join(ROOT, "data", "wandb", "history", `${runId}.jsonl`), "utf8")
        .trim()
        .split("\n");
      server.addRun({ entity: config.entity, project: config.project, runId, state: "finished", rows: lines });
    }
    const env = { WANDB_BASE_URL: server.url, WANDB_API_KEY: SENTINEL, WORKSPACE_FETCH: "1" };
    const r = await fetchOrVerify(workspaceParams({ WORKSPACE_DATA: data, WORKSPACE_FETCH: "1" }, ROOT), { env });
    assert.equal(r.mode, "live");
    assert.equal(r.manifest!.runs.length, 4);
    assert.match(
      r.message,
      /^fetched 4 runs \(400 history rows\) of sample-entity\/slime-grpo-sample from 127\.0\.0\.1:\d+ and froze them into .*data\/wandb$/,
    );
    for (const f of readdirSync(join(ROOT, "data", "wandb", "history"))) {
      assert.ok(readFileSync(join(data, "wandb", "history", f)).equals(readFileSync(join(ROOT, "data", "wandb", "history", f))), `${f} differs`);
    }
    const manifest = readFileSync(join(data, "wandb", "manifest.json"), "utf8");
    assert.ok(!manifest.includes(SENTINEL), "the key never reaches the manifest");
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test("live with runs.json listing offline runs' .wandb files: frozen without any server or credentials, the message says so", async () => {
  const { dir, data } = copyData();
  try {
    const folder = join(data, "offline", "offline-run-20250101_120000-nbfile1");
    mkdirSync(folder, { recursive: true });
    const { bytes } = buildLog([
      runRecord({ runId: "nbfile1", entity: "e", project: "p" }),
      historyRecord([
        { nested: ["_step"], json: "0" },
        { nested: ["actor/x"], json: "NaN" }, // a key of verl's: notebook 01 refuses runs of no RL framework
      ]),
      exitRecord(0),
    ]);
    writeFileSync(join(folder, "run-nbfile1.wandb"), bytes);
    writeFileSync(join(data, "runs.json"), JSON.stringify({ runs: [{ file: "offline/offline-run-20250101_120000-nbfile1", round: "R0" }] }));
    const r = await fetchOrVerify(workspaceParams({ WORKSPACE_DATA: data, WORKSPACE_FETCH: "1" }, ROOT), { env: { NETRC: join(dir, "no-netrc") } });
    assert.equal(r.mode, "live");
    assert.match(r.message, /^fetched 1 runs \(1 history rows\) from local \.wandb files \(no server\) and froze them into /);
    assert.deepEqual(
      r.manifest!.runs.map((m) => [m.runId, m.state, (m.source as ManifestSource).file]),
      [["nbfile1", "finished", "run-nbfile1.wandb"]],
    );
    assert.equal(readFileSync(join(data, "wandb", "history", "nbfile1.jsonl"), "utf8"), '{"_step":0,"actor/x":"NaN"}\n');
    assert.deepEqual(r.manifest!.runs[0].profile, { name: "verl", how: "detected", evidence: ["actor/"] });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
