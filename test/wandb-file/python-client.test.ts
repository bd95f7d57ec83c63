/**
 * The official Python client (wandb 0.31, requirements-wandb-current.txt, venv .venv-wandb-current)
 * writes offline runs; the workspace freezes them from their `.wandb` files and every frozen row is
 * compared with what the script logged. One run is then synced with `wandb sync` to the local test
 * server and frozen from there too: the frozen history must be byte-identical both ways.
 */
import assert from "node:assert/strict";
import { execFile, execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { after, before, test } from "node:test";

import { fetchAndFreeze } from "../../lib/archive/fetch-and-freeze";
import { parseFrozenRow } from "../../lib/values/frozen-row";
import { loadArchive } from "../../lib/archive/load-archive";
import type { HistoryRow, ManifestSource, SourceManifest } from "../../lib/types";
import { locateWandbFile, peekWandbFileRunId } from "../../lib/wandb-file/locate-wandb-file";
import { parseHistoryRow } from "../../lib/wandb/parse-history-row";
import { startWandbTestServer, type WandbTestServer } from "../../tools/wandb-test-server/server";

const VENV = path.resolve(__dirname, "../../.venv-wandb-current");
const PYTHON = path.join(VENV, "bin/python");
const KEY = "sentinel0key0for0wandb0file0tests0abcdef0123"; // the current client wants 40+ characters

function clientVersion(): string | null {
  try {
    const probe = "import importlib.util, importlib.metadata as m; assert importlib.util.find_spec('wandb'); print(m.version('wandb'))";
    return execFileSync(PYTHON, ["-c", probe], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
  } catch {
    return null;
  }
}
const VERSION = clientVersion();
const SKIP = VERSION === null ? `${PYTHON} lacks wandb (scripts/test.sh installs requirements-wandb-current.txt there)` : false;

// Logs two offline runs. "fin1abcd" finishes; "kil1abcd" is killed with os._exit (no exit record).
// wandb-core writes the log a 32 KiB block at a time, so a killed run keeps its whole blocks only:
// it logs ~1 MB so that most rows reach the file. Every log call's numeric keys go to
// <dir>/<id>.expected.jsonl.
const PY_SCRIPT = `
import json, math, os, sys, time
import wandb
out = sys.argv[1]
def expected(f, d, step):
    row = {k: v for k, v in d.items() if isinstance(v, (int, float)) and not isinstance(v, bool)}
    row["_step"] = step
    f.write(json.dumps(row) + "\\n")
run = wandb.init(project="p", entity="e", id="fin1abcd", name="finished run", mode="offline", dir=out, config={"lr": 1e-6})
with open(os.path.join(out, "fin1abcd.expected.jsonl"), "w") as f:
    t0 = time.time()
    for i in range(300):
        d = {"loss": 1 / (i + 1), "train/step": i, "tiny": 1e-300, "big": 2 ** 53}
        if i % 50 == 7: d["loss"] = float("nan")
        if i % 60 == 11: d["grad"] = float("inf"); d["neg"] = float("-inf")
        if i % 100 == 3: d["hist"] = wandb.Histogram(np_histogram=([1, 2], [0.0, 1.0, 2.0]))
        if i % 120 == 5: d["nested"] = {"a": i, "b": {"c": 0.5}}
        if i % 90 == 1: d["note"] = "text"
        if i == 250:
            run.log({"partial/a": 1.25}, commit=False)
            d["partial/a"] = 1.25
        run.log(d)
        expected(f, d, i)
    run.log({"late": -0.0}, step=1000)
    expected(f, {"late": -0.0}, 1000)
    t1 = time.time()
run.finish()
print(json.dumps({"t0": t0, "t1": t1}))
run = wandb.init(project="p", entity="e", id="kil1abcd", mode="offline", dir=out)
with open(os.path.join(out, "kil1abcd.expected.jsonl"), "w") as f:
    for i in range(3000):
        d = {"reward": i * 0.5, "rollout/step": i, **{"perf/t%d" % k: i + k / 7 for k in range(12)}}
        run.log(d)
        expected(f, d, i)
sys.stdout.flush()
time.sleep(2)  # let wandb-core take the rows, then die without finishing
os._exit(3)
`;

let root: string;
let server: WandbTestServer;
let runsDir: string;
let times: { t0: number; t1: number };

function pyEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH ?? "",
    HOME: root,
    WANDB_SILENT: "true",
    WANDB_ERROR_REPORTING: "false",
    WANDB_DISABLE_GIT: "true",
    WANDB_DISABLE_CODE: "true",
    WANDB_CONFIG_DIR: path.join(root, "config"),
    WANDB_CACHE_DIR: path.join(root, "cache"),
    WANDB_DATA_DIR: path.join(root, "data"),
    NO_PROXY: "127.0.0.1,localhost",
    no_proxy: "127.0.0.1,localhost",
    PYTHONWARNINGS: "ignore",
    ...extra,
  };
}

function run(cmd: string, args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(cmd, args, { env, cwd: root, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) =>
      resolve({ code: err ? (typeof err.code === "number" ? err.code : 1) : 0, stdout, stderr }),
    );
  });
}

/** The offline run folder of a run id. */
function runFolder(runId: string): string {
  const name = fs.readdirSync(path.join(runsDir, "wandb")).find((n) => n.startsWith("offline-run-") && n.endsWith(`-${runId}`));
  assert.ok(name, `offline run folder of ${runId}`);
  return path.join(runsDir, "wandb", name);
}

function expectedRows(runId: string): HistoryRow[] {
  return fs
    .readFileSync(path.join(runsDir, `${runId}.expected.jsonl`), "utf8")
    .trim()
    .split("\n")
    .map((l) => parseHistoryRow(l));
}

function frozenRows(dir: string, runId: string): HistoryRow[] {
  return fs
    .readFileSync(path.join(dir, "history", `${runId}.jsonl`), "utf8")
    .trim()
    .split("\n")
    .map(parseFrozenRow);
}

before(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), "wandb-file-py-"));
  runsDir = path.join(root, "runs");
  fs.mkdirSync(runsDir);
  server = await startWandbTestServer({ apiKey: KEY });
  if (SKIP) return;
  const r = await run(PYTHON, ["-c", PY_SCRIPT, runsDir], pyEnv({ WANDB_MODE: "offline" }));
  assert.equal(r.code, 3, `the fixture script ends with os._exit(3): ${r.stderr}`);
  times = JSON.parse(r.stdout.trim().split("\n")[0]);
});

after(async () => {
  await server?.close();
  fs.rmSync(root, { recursive: true, force: true });
});

const fixedNow = () => new Date("2026-01-02T03:04:05.000Z");

test("a finished offline run (NaN, Infinity, histograms, dicts, text, a partial log, a step jump): every frozen row is what the script logged", {
  skip: SKIP,
}, async (t) => {
  const out = path.join(root, "fin-archive");
  const folder = runFolder("fin1abcd");
  const manifest = await fetchAndFreeze({
    entity: "",
    project: "",
    runs: [{ runId: "fin1abcd", round: "R0", file: locateWandbFile(folder) }],
    outDir: out,
    env: {},
    now: fixedNow,
  });
  const run = manifest.runs[0];
  assert.equal(run.state, "finished");
  assert.equal(run.entity, "e");
  assert.equal(run.project, "p");
  assert.equal(run.displayName, "finished run");
  assert.equal(run.lastStep, 1000);
  assert.deepEqual(run.droppedKeys, { hist: 3, nested: 3, note: 4 });
  assert.deepEqual(run.source, {
    kind: "wandb-file",
    file: "run-fin1abcd.wandb",
    sha256: (run.source as ManifestSource).sha256,
    bytes: fs.statSync(locateWandbFile(folder)).size,
    sdkVersion: VERSION,
    exitCode: 0,
    server: null,
  });
  const expected = expectedRows("fin1abcd");
  const frozen = frozenRows(out, "fin1abcd");
  assert.equal(run.historyEvents, 301);
  assert.equal(frozen.length, expected.length);
  frozen.forEach((row, i) => {
    const { _runtime, _timestamp, ...logged } = row;
    // JSON has no -0: json.dumps writes -0.0, the frozen file 0 (the server path does the same).
    assert.deepStrictEqual(logged, Object.is(expected[i].late, -0) ? { ...expected[i], late: 0 } : expected[i], `row ${i}`);
    assert.ok(_runtime >= 0 && _runtime < 600, `row ${i} _runtime ${_runtime}`);
    assert.ok(_timestamp >= times.t0 - 1 && _timestamp <= times.t1 + 1, `row ${i} _timestamp ${_timestamp}`);
  });
  assert.ok(Object.is(frozen[300].late, 0), "-0.0 is frozen as 0 (JSON has no -0)");
  const archive = await loadArchive(out);
  assert.equal(archive.runs[0].rows.length, 301, "the archive loads and verifies");
  t.diagnostic(`wandb ${VERSION}: ${frozen.length} rows, ${(run.source as ManifestSource).bytes} bytes of .wandb`);
});

test("a run killed with os._exit (no exit record) freezes as crashed; its rows are exactly the first ones it logged", { skip: SKIP }, async (t) => {
  const out = path.join(root, "kil-archive");
  const file = locateWandbFile(runFolder("kil1abcd"));
  assert.equal(peekWandbFileRunId(file), "kil1abcd");
  const warnings: string[] = [];
  const manifest = await fetchAndFreeze({
    entity: "",
    project: "",
    runs: [{ runId: "kil1abcd", round: "R1", file }],
    outDir: out,
    env: {},
    now: fixedNow,
    reporter: { warn: (m) => warnings.push(m) },
  });
  const run = manifest.runs[0];
  assert.equal(run.state, "crashed");
  assert.equal((run.source as ManifestSource).exitCode, null);
  const frozen = frozenRows(out, "kil1abcd").map(({ _runtime, _timestamp, ...logged }) => logged);
  const expected = expectedRows("kil1abcd");
  assert.ok(frozen.length >= 1000, `at least the rows of the whole blocks written (${frozen.length} of ${expected.length})`);
  assert.deepStrictEqual(frozen, expected.slice(0, frozen.length));
  t.diagnostic(
    `killed run: ${frozen.length} of ${expected.length} rows in ${(run.source as ManifestSource).bytes} bytes; warnings: ${warnings.length ? warnings.join(" | ") : "none"}`,
  );
});

test("the finished run synced to the local test server with `wandb sync`: frozen from the server and from the .wandb file, byte-identical", {
  skip: SKIP,
}, async (t) => {
  const folder = runFolder("fin1abcd");
  const sync = await run(path.join(VENV, "bin/wandb"), ["sync", folder], pyEnv({ WANDB_BASE_URL: server.url, WANDB_API_KEY: KEY }));
  assert.equal(sync.code, 0, `wandb sync: ${sync.stdout}\n${sync.stderr}`);
  const fromServer = path.join(root, "sync-server");
  const fromFile = path.join(root, "sync-file");
  const viaServer: SourceManifest = await fetchAndFreeze({
    entity: "e",
    project: "p",
    runs: [{ runId: "fin1abcd", round: "R0" }],
    outDir: fromServer,
    baseUrl: server.url,
    apiKey: KEY,
    env: {},
    now: fixedNow,
  });
  const viaFile: SourceManifest = await fetchAndFreeze({
    entity: "",
    project: "",
    runs: [{ runId: "fin1abcd", round: "R0", file: locateWandbFile(folder) }],
    outDir: fromFile,
    env: {},
    now: fixedNow,
  });
  const a = fs.readFileSync(path.join(fromServer, "history/fin1abcd.jsonl"));
  const b = fs.readFileSync(path.join(fromFile, "history/fin1abcd.jsonl"));
  assert.ok(a.equals(b), "history/fin1abcd.jsonl differs between the server and the .wandb file");
  const pick = (m: SourceManifest) => {
    const { entity, project, runId, state, historyEvents, lastStep, sha256, bytes, droppedKeys, displayName } = m.runs[0];
    return { entity, project, runId, state, historyEvents, lastStep, sha256, bytes, droppedKeys, displayName };
  };
  assert.deepEqual(pick(viaFile), pick(viaServer));
  assert.equal(viaServer.runs[0].source, undefined);
  const ops = new Set(server.requests.map((r) => r.operationName ?? r.path.replace(/^\/files\/.*\//, "files/")));
  t.diagnostic(`wandb sync spoke: ${Array.from(ops).join(", ")}; ${a.length} bytes frozen both ways`);
});
