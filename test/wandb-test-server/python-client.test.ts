import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { execFile, execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { startWandbTestServer, type WandbTestServer } from "../../tools/wandb-test-server/server";
import { parseExtendedJson } from "../../tools/wandb-test-server/extended-json";

const PYTHON = path.resolve(__dirname, "../../.venv/bin/python");
const KEY = "sentinel-key-python-client-0123456789abc";

function pythonHasWandb(): string | null {
  try {
    // importlib.metadata only: importing wandb itself takes seconds.
    const probe = "import importlib.util, importlib.metadata as m; assert importlib.util.find_spec('wandb'); print(m.version('wandb'))";
    return execFileSync(PYTHON, ["-c", probe], {
      encoding: "utf8",
      env: { PATH: process.env.PATH ?? "", PYTHONWARNINGS: "ignore", WANDB_SILENT: "true" },
      stdio: ["ignore", "pipe", "ignore"],
    }).trim();
  } catch {
    return null;
  }
}
const WANDB_VERSION = pythonHasWandb();
const SKIP = WANDB_VERSION === null ? `${PYTHON} lacks wandb (pip install -r requirements-wandb.txt into .venv)` : false;

/**
 * Rows of the fixture run: steps 0-999 dense, 1000-1999 absent (an empty page mid-scan),
 * 2000-3699 without multiples of 50; bare NaN/Infinity tokens, float steps, a media object.
 */
function fixtureRows(): string[] {
  const rows: string[] = [];
  const steps: number[] = [];
  for (let s = 0; s < 1000; s++) steps.push(s);
  for (let s = 2000; s < 3700; s++) if (s % 50 !== 0) steps.push(s);
  for (const s of steps) {
    const stepText = s % 250 === 1 ? `${s}.0` : String(s);
    const loss = s % 100 === 7 ? "NaN" : (1 / (s + 1)).toString();
    let extra = "";
    if (s % 150 === 3) extra += `, "grad_norm": ${s % 300 === 3 ? "Infinity" : "-Infinity"}`;
    if (s % 3 === 0) extra += `, "rollout/step": ${Math.floor(s / 3)}`;
    if (s === 2501) {
      extra +=
        ', "samples": {"_type": "image-file", "path": "media/images/samples_2501_ab12.png", "sha256": "ab12", "size": 1234, "width": 64, "height": 64, "format": "png"}';
    }
    rows.push(`{"_step": ${stepText}, "_runtime": ${s * 0.5}, "_timestamp": ${1700000000 + s * 0.25}, "loss": ${loss}${extra}}`);
  }
  return rows;
}

// Python side: refuses and records any connection or name lookup that is not 127.0.0.1.
const PY_SCRIPT = `
import json, socket, sys, time
blocked = []
_connect = socket.socket.connect
_connect_ex = socket.socket.connect_ex
_getaddrinfo = socket.getaddrinfo
LOCAL = ("127.0.0.1", "localhost", "::1")
def _check(addr):
    host = addr[0] if isinstance(addr, tuple) else None
    if host is not None and host not in LOCAL:
        blocked.append(str(addr))
        raise OSError("blocked non-local connection to %r" % (addr,))
def connect(self, addr):
    _check(addr)
    return _connect(self, addr)
def connect_ex(self, addr):
    _check(addr)
    return _connect_ex(self, addr)
def getaddrinfo(host, *a, **k):
    if host not in LOCAL and host is not None:
        blocked.append("dns:" + str(host))
        raise socket.gaierror("blocked lookup of %r" % (host,))
    return _getaddrinfo(host, *a, **k)
socket.socket.connect = connect
socket.socket.connect_ex = connect_ex
socket.getaddrinfo = getaddrinfo

import wandb
api = wandb.Api()
run = api.run(sys.argv[1])
t0 = time.perf_counter()
rows = list(run.scan_history(page_size=1000))
seconds = time.perf_counter() - t0
last_step = run.lastHistoryStep
try:
    api.run(sys.argv[2])
    missing = None
except Exception as e:
    missing = type(e).__name__ + ": " + str(e)
listed = [r.id for r in api.runs(sys.argv[1].rsplit("/", 1)[0])]
print(json.dumps({"listed": listed, "rows": rows, "seconds": seconds, "blocked": blocked, "state": run.state, "lastStep": last_step, "missing": missing}))
`;

let server: WandbTestServer;
let tmp: string;
const ROWS = fixtureRows();

before(async () => {
  server = await startWandbTestServer({ apiKey: KEY });
  server.addRun({ entity: "py-entity", project: "py-project", runId: "pyrun001", config: { lr: 1e-6 }, rows: ROWS });
  tmp = mkdtempSync(path.join(os.tmpdir(), "wandb-py-client-"));
});

after(async () => {
  await server.close();
  rmSync(tmp, { recursive: true, force: true });
});

test("official Python client scan_history reads every row back exactly", { skip: SKIP }, async (t) => {
  assert.ok(ROWS.length > 2500);
  // A clean env: no proxies, no ~/.netrc or ~/.config/wandb of the user, no error reporting.
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH ?? "",
    HOME: tmp,
    WANDB_BASE_URL: server.url,
    WANDB_API_KEY: KEY,
    WANDB_MODE: "online",
    WANDB_SILENT: "true",
    WANDB_ERROR_REPORTING: "false",
    WANDB_DISABLE_GIT: "true",
    WANDB_DIR: tmp,
    WANDB_CONFIG_DIR: path.join(tmp, "config"),
    WANDB_CACHE_DIR: path.join(tmp, "cache"),
    WANDB_DATA_DIR: path.join(tmp, "data"),
    NO_PROXY: "127.0.0.1,localhost",
    no_proxy: "127.0.0.1,localhost",
    PYTHONWARNINGS: "ignore",
  };
  const started = server.requests.length;
  const stdout = await new Promise<string>((resolve, reject) => {
    execFile(
      PYTHON,
      ["-c", PY_SCRIPT, "py-entity/py-project/pyrun001", "py-entity/py-project/missing1"],
      { env, maxBuffer: 256 * 1024 * 1024 },
      (err, out, errOut) => {
        if (err) reject(new Error(`python client failed: ${err.message}\n${errOut}`));
        else resolve(out);
      },
    );
  });
  const result = parseExtendedJson(stdout.trim().split("\n").pop() as string) as {
    rows: unknown[];
    seconds: number;
    blocked: string[];
    state: string;
    lastStep: number;
    missing: string | null;
    listed: string[];
  };
  assert.deepEqual(result.blocked, []);
  assert.equal(result.state, "finished");
  assert.equal(result.lastStep, 3699);
  // run: null for an unknown run is what makes the official client say "Could not find run".
  assert.match(result.missing ?? "", /Could not find run <Run py-entity\/py-project\/missing1 \(not found\)>/);
  assert.deepEqual(result.listed, ["pyrun001"]);
  assert.equal(result.rows.length, ROWS.length);
  // deepStrictEqual compares with Object.is: NaN equals NaN, Infinity must be Infinity.
  result.rows.forEach((row, i) => assert.deepStrictEqual(row, parseExtendedJson(ROWS[i]), `row ${i}`));

  const log = server.requests.slice(started);
  assert.ok(log.every((r) => r.authOk && r.path === "/graphql"));
  const ops = log.map((r) => r.operationName);
  assert.deepEqual(ops, [
    // Api().run(path): default entity (asked even when the path names one), introspection probe, metadata.
    "Viewer",
    "ProbeRunInput",
    "Run",
    // scan_history(page_size=1000): lastStep, then one window per 1000 steps (the 2nd one is empty).
    "RunHistoryKeys",
    "HistoryPage",
    "HistoryPage",
    "HistoryPage",
    "HistoryPage",
    // run.lastHistoryStep, api.run(missing), api.runs(project).
    "RunHistoryKeys",
    "ProbeRunInput",
    "Run",
    "ProbeRunInput",
    "Runs",
  ]);
  const windows = log
    .filter((r) => r.operationName === "HistoryPage")
    .map((r) => {
      const v = r.variables as { minStep: number; maxStep: number; pageSize: number };
      return [v.minStep, v.maxStep, v.pageSize];
    });
  assert.deepEqual(windows, [
    [0, 1000, 1000],
    [1000, 2000, 1000],
    [2000, 3000, 1000],
    [3000, 3700, 1000],
  ]);
  t.diagnostic(`wandb ${WANDB_VERSION}: scan_history of ${ROWS.length} rows took ${result.seconds.toFixed(3)} s`);
  t.diagnostic(`operations: ${ops.join(", ")}`);
  t.diagnostic(`unknown run: ${result.missing}`);
});
