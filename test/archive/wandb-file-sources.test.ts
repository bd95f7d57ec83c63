/**
 * Runs frozen from local `.wandb` files through the archive's one atomic freeze: alone (no server,
 * no credentials), mixed with server runs in round order, from runs.json `file` entries and from
 * the fetch CLI's --wandb-file; a damaged file leaves the previous archive byte-identical.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { after, before, test } from "node:test";

import { fetchAndFreeze } from "../../lib/archive/fetch-and-freeze";
import { loadArchive } from "../../lib/archive/load-archive";
import { parseManifest, serializeManifest } from "../../lib/archive/manifest";
import { readRunsConfig } from "../../lib/archive/runs-config";
import { startWandbTestServer, type WandbTestServer } from "../../tools/wandb-test-server/server";
import { buildLog, exitRecord, headerRecord, historyRecord, runRecord } from "../wandb-file/wandb-log-builder";
import type { ManifestSource } from "../../lib/types";

const ROOT = path.join(__dirname, "../..");
const root = fs.mkdtempSync(path.join(os.tmpdir(), "wandb-file-archive-"));
const KEY = "sentinel-key-wandb-file-archive-0123456789";
let server: WandbTestServer;
const now = () => new Date("2025-01-02T03:04:05.000Z");

/** An offline run folder as the SDK lays it out, with a hand-built log of `rows` rows of the numeric key `key`. */
function offlineRun(runId: string, rows: number, exit: number | null = 0, key = "x"): { folder: string; file: string; bytes: Buffer; offsets: number[] } {
  const folder = path.join(root, "wandb", `offline-run-20250101_120000-${runId}`);
  fs.mkdirSync(folder, { recursive: true });
  const recs = [
    headerRecord("0.31.0+abc"),
    runRecord({ runId, entity: "e", project: "p", displayName: `${runId} shown`, startSeconds: 1735732800, cliVersion: "0.31.0" }),
  ];
  for (let i = 0; i < rows; i++)
    recs.push(
      historyRecord(
        [
          { nested: ["_step"], json: String(i) },
          { nested: [key], json: i === 1 ? "NaN" : String(i / 4) },
          { nested: ["h", "_type"], json: '"histogram"' },
        ],
        i,
      ),
    );
  if (exit !== null) recs.push(exitRecord(exit));
  const { bytes, offsets } = buildLog(recs);
  const file = path.join(folder, `run-${runId}.wandb`);
  fs.writeFileSync(file, bytes);
  return { folder, file, bytes, offsets };
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

before(async () => {
  server = await startWandbTestServer({ apiKey: KEY });
  server.addRun({ entity: "e", project: "p", runId: "srv1", createdAt: "2024-05-01T12:00:00", rows: ['{"_step": 0, "x": 1}', '{"_step": 1, "x": NaN}'] });
});
after(async () => {
  await server.close();
  fs.rmSync(root, { recursive: true, force: true });
});

test("file runs only: no server, no credentials; manifest names the file (not its folder), sha256, SDK version, exit code, no server", async () => {
  const a = offlineRun("offa1", 3, 0);
  const b = offlineRun("offb2", 2, 1);
  const c = offlineRun("offc3", 1, null);
  const out = path.join(root, "only-files", "archive");
  const requests = server.requests.length;
  const manifest = await fetchAndFreeze({
    entity: "",
    project: "",
    runs: [
      { runId: "offa1", round: "R0", file: a.file },
      { runId: "offb2", round: "R1", file: b.file },
      { runId: "offc3", round: "R2", file: c.file },
    ],
    outDir: out,
    env: {},
    now,
  });
  assert.equal(server.requests.length, requests, "no request to any server");
  assert.deepEqual(
    manifest.runs.map((r) => [r.runId, r.round, r.state, r.historyEvents, r.lastStep]),
    [
      ["offa1", "R0", "finished", 3, 2],
      ["offb2", "R1", "failed", 2, 1],
      ["offc3", "R2", "crashed", 1, 0],
    ],
  );
  const run = manifest.runs[0];
  assert.deepEqual(
    { ...run, sha256: "-", bytes: 0 },
    {
      entity: "e",
      project: "p",
      runId: "offa1",
      round: "R0",
      displayName: "offa1 shown",
      state: "finished",
      historyEvents: 3,
      lastStep: 2,
      createdAt: "2025-01-01T12:00:00",
      fetchedAt: "2025-01-02T03:04:05.000Z",
      file: "history/offa1.jsonl",
      sha256: "-",
      bytes: 0,
      droppedKeys: { h: 3 },
      source: {
        kind: "wandb-file",
        file: "run-offa1.wandb",
        sha256: createHash("sha256").update(a.bytes).digest("hex"),
        bytes: a.bytes.length,
        sdkVersion: "0.31.0",
        exitCode: 0,
        server: null,
      },
      // The log's config was read (these logs have none): flags known, none set.
      flags: {},
      // The telemetry's SDK version; these logs record no python or transformers version.
      versions: { wandb: { value: "0.31.0", source: "telemetry" } },
    },
  );
  assert.equal((manifest.runs[1].source as ManifestSource).exitCode, 1);
  assert.equal((manifest.runs[2].source as ManifestSource).exitCode, null);
  assert.equal(fs.readFileSync(path.join(out, "history/offa1.jsonl"), "utf8"), '{"_step":0,"x":0}\n{"_step":1,"x":"NaN"}\n{"_step":2,"x":0.5}\n');
  const text = fs.readFileSync(path.join(out, "manifest.json"), "utf8");
  assert.ok(!text.includes(root), "no local path in the manifest");
  assert.equal(serializeManifest(parseManifest(text, "manifest.json")), text, "the manifest reads back and re-serializes to the same bytes");
  const archive = await loadArchive(out);
  assert.deepEqual(
    archive.runs.map((r) => [r.runId, r.state, r.rows.length]),
    [
      ["offa1", "finished", 3],
      ["offb2", "failed", 2],
      ["offc3", "crashed", 1],
    ],
  );
});

test("mixed with server runs: round order kept, server entries exactly as before (no source), one atomic archive", async () => {
  const f = offlineRun("mixf1", 2);
  const out = path.join(root, "mixed", "archive");
  const manifest = await fetchAndFreeze({
    entity: "e",
    project: "p",
    runs: [
      { runId: "mixf1", round: "R0", file: f.file },
      { runId: "srv1", round: "R1" },
    ],
    outDir: out,
    baseUrl: server.url,
    apiKey: KEY,
    env: {},
    now,
  });
  assert.deepEqual(
    manifest.runs.map((r) => [r.runId, r.round, r.source?.kind ?? "server"]),
    [
      ["mixf1", "R0", "wandb-file"],
      ["srv1", "R1", "server"],
    ],
  );
  assert.deepEqual(Object.keys(manifest.runs[1]), [
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
  assert.equal((await loadArchive(out)).runs.length, 2);
});

test("a damaged file (bad CRC mid-file), another run's file, or a wrong magic: refused naming file and offset; the previous archive stays byte-identical", async () => {
  const good = offlineRun("prev1", 2);
  const out = path.join(root, "damaged", "archive");
  await fetchAndFreeze({ entity: "", project: "", runs: [{ runId: "prev1", round: "R0", file: good.file }], outDir: out, env: {}, now });
  const before = snapshot(out);
  const bad = offlineRun("bad2", 2000);
  const damaged = Buffer.from(bad.bytes);
  damaged[bad.offsets[500] + 9] ^= 0x10;
  fs.writeFileSync(bad.file, damaged);
  await assert.rejects(
    fetchAndFreeze({
      entity: "",
      project: "",
      runs: [
        { runId: "prev1", round: "R0", file: good.file },
        { runId: "bad2", round: "R1", file: bad.file },
      ],
      outDir: out,
      env: {},
      now,
    }),
    new RegExp(`^WandbFileError: W&B file .*run-bad2\\.wandb \\(run bad2\\) at byte ${bad.offsets[500]}: chunk checksum mismatch`),
  );
  await assert.rejects(
    fetchAndFreeze({ entity: "", project: "", runs: [{ runId: "other9", round: "R0", file: good.file }], outDir: out, env: {}, now }),
    /run-prev1\.wandb at byte \d+: the file holds run "prev1", not "other9": a file of another run/,
  );
  const notLog = path.join(root, "run-junk1.wandb");
  fs.writeFileSync(notLog, "not a log at all");
  await assert.rejects(
    fetchAndFreeze({ entity: "", project: "", runs: [{ runId: "junk1", round: "R0", file: notLog }], outDir: out, env: {}, now }),
    /run-junk1\.wandb at byte 0: not a W&B transaction log/,
  );
  assert.deepEqual(snapshot(out), before);
  assert.deepEqual(fs.readdirSync(path.dirname(out)), ["archive"], "no temp folder or lock left");
});

test("runs.json: {file, round} entries relative to the config's folder, a run folder or the file; runId read from the file or checked", () => {
  const a = offlineRun("cfga1", 1);
  const b = offlineRun("cfgb2", 1);
  const cfg = path.join(root, "cfg", "runs.json");
  fs.mkdirSync(path.dirname(cfg), { recursive: true });
  const rel = (p: string) => path.relative(path.dirname(cfg), p);
  fs.writeFileSync(
    cfg,
    JSON.stringify({
      runs: [
        { file: rel(a.folder), round: "R0" },
        { file: rel(b.file), runId: "cfgb2", round: "R1" },
      ],
    }),
  );
  assert.deepEqual(readRunsConfig(cfg), {
    entity: "",
    project: "",
    runs: [
      { runId: "cfga1", round: "R0", file: a.file },
      { runId: "cfgb2", round: "R1", file: b.file },
    ],
  });
  fs.writeFileSync(
    cfg,
    JSON.stringify({
      entity: "e",
      project: "p",
      runs: [
        { runId: "srv1", round: "R0" },
        { file: rel(a.file), round: "R1" },
      ],
    }),
  );
  assert.deepEqual(readRunsConfig(cfg).runs, [
    { runId: "srv1", round: "R0" },
    { runId: "cfga1", round: "R1", file: a.file },
  ]);
  const bad = (runs: unknown[], re: RegExp, extra: object = {}) => {
    fs.writeFileSync(cfg, JSON.stringify({ ...extra, runs }));
    assert.throws(() => readRunsConfig(cfg), re);
  };
  bad(
    [{ file: rel(a.file), runId: "zzz", round: "R0" }],
    /invalid runs config: .*runs\.json: runs\[0\]: .*run-cfga1\.wandb holds run "cfga1", not "zzz": a file of another run/,
  );
  bad([{ file: "nowhere", round: "R0" }], /runs\[0\]: invalid wandb file: .*nowhere \(cannot read: ENOENT\)/);
  fs.mkdirSync(path.join(path.dirname(cfg), "empty"), { recursive: true });
  bad([{ file: "empty", round: "R0" }], /runs\[0\]: invalid wandb file: .*empty \(the folder holds no \.wandb file; give a W&B run folder/);
  bad(
    [
      { file: rel(a.file), round: "R0" },
      { file: rel(a.folder), round: "R1" },
    ],
    /run cfga1 is listed twice/,
  );
  const moved = path.join(root, "wandb", "offline-run-20250101_120000-cfgzz9");
  fs.mkdirSync(moved, { recursive: true });
  fs.copyFileSync(a.file, path.join(moved, "run-cfga1.wandb"));
  bad(
    [{ file: rel(moved), round: "R0" }],
    /runs\[0\]: invalid wandb file: .*offline-run-20250101_120000-cfgzz9 \(the run folder of run cfgzz9 holds run-cfga1\.wandb: a file of another run\)/,
  );
  bad(
    [
      { runId: "srv1", round: "R0" },
      { file: rel(a.file), round: "R1" },
    ],
    /"entity" must be a non-empty string/,
  );
});

function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ["--import", "tsx", path.join(ROOT, "scripts/fetch.ts"), ...args],
      { cwd: ROOT, env: { PATH: process.env.PATH ?? "", HOME: root, SOURCE_DATE_EPOCH: "1735787045" } },
      (err, stdout, stderr) => resolve({ code: err ? (typeof err.code === "number" ? err.code : 1) : 0, stdout, stderr }),
    );
  });
}

test("fetch CLI --wandb-file PATH=LABEL: a run folder or a file, no credentials needed; bad specs exit 2 naming the option", async () => {
  // A key of verl's: the CLI refuses runs of no RL framework (test/reliability/fetch-user-runs.test.ts).
  const a = offlineRun("clia1", 4, 0, "actor/x");
  const b = offlineRun("clib2", 2, null, "actor/x");
  const out = path.join(root, "cli", "archive");
  const r = await cli(["--wandb-file", `${a.folder}=R0`, "--wandb-file", `${b.file}=R1`, "--out", out]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(
    r.stdout,
    `froze 2 run(s), 6 rows, into ${out}\n` +
      "  R0  e/p/clia1  finished  4 rows  history/clia1.jsonl  (1 non-numeric keys left out)  from run-clia1.wandb (SDK 0.31.0, no server)\n" +
      "  R1  e/p/clib2  crashed  2 rows  history/clib2.jsonl  (1 non-numeric keys left out)  from run-clib2.wandb (SDK 0.31.0, no server)\n",
  );
  assert.equal(JSON.parse(fs.readFileSync(path.join(out, "manifest.json"), "utf8")).runs[0].fetchedAt, "2025-01-02T03:04:05.000Z");
  const noLabel = await cli(["--wandb-file", a.folder, "--out", out]);
  assert.equal(noLabel.code, 2);
  assert.match(noLabel.stderr, /^invalid --wandb-file: .*clia1 \(expected PATH=ROUND_LABEL, e\.g\. wandb\/offline-run-20260101_120000-abc123=R0\)\nusage:/);
  const missing = await cli(["--wandb-file", `${path.join(root, "nope")}=R0`, "--out", out]);
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /^invalid wandb file: .*nope \(cannot read: ENOENT\)\n/);
  const withConfig = await cli(["--wandb-file", `${a.folder}=R0`, "--config", "data/runs.json", "--out", out]);
  assert.match(withConfig.stderr, /^invalid --config: data\/runs\.json cannot be combined with --entity, --project, --run, --wandb-file or --tensorboard/);
});
