/**
 * The simulator's `stepSync` against the official Python SDK: OpenRLHF's and TRL's rows are logged
 * with `wandb` (.venv, offline mode, the frameworks' own define_metric calls) and the history records
 * of its transaction log must carry exactly the step-metric values `stepSync: true` adds. Skips
 * without the Python client (pip install -r requirements-wandb.txt into .venv).
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, test } from "node:test";

import { simulateFramework } from "../../tools/simulate-frameworks/simulate";
import type { FrameworkOptions } from "../../tools/simulate-frameworks/types";

const PYTHON = path.resolve(__dirname, "../../.venv/bin/python");
const root = mkdtempSync(path.join(os.tmpdir(), "fw-stepsync-"));
// Offline, and every file wandb writes (settings, cache, the run) stays under the test's temporary folder.
const ENV = {
  PATH: process.env.PATH ?? "",
  PYTHONWARNINGS: "ignore",
  WANDB_SILENT: "true",
  WANDB_MODE: "offline",
  HOME: root,
  WANDB_CONFIG_DIR: path.join(root, "config"),
  WANDB_CACHE_DIR: path.join(root, "cache"),
  WANDB_DATA_DIR: path.join(root, "data"),
};
after(() => rmSync(root, { recursive: true, force: true }));

function pythonHasWandb(): boolean {
  try {
    execFileSync(PYTHON, ["-c", "import importlib.util; assert importlib.util.find_spec('wandb')"], { env: ENV, stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}
const SKIP = pythonHasWandb() ? false : `${PYTHON} lacks wandb: step_sync not checked against the Python SDK`;

/** Logs rows offline with define_metric(glob, step_metric, step_sync=True) and prints each history record's step-metric values. */
const SCRIPT = `
import glob, json, os, sys
import wandb
from wandb.proto import wandb_internal_pb2 as pb
from wandb.sdk.internal import datastore
spec = json.load(sys.stdin)
wandb.init(project="p", dir=spec["dir"], id="stepsync")
for pattern, metric in spec["rules"]:
    wandb.define_metric(metric)
    wandb.define_metric(pattern, step_metric=metric, step_sync=True)
for row in spec["rows"]:
    wandb.log({k: wandb.Table(columns=["global_step", "text", "reward"], data=[[1, "x", 0.5]]) if v == "__table__" else v for k, v in row})
wandb.finish()
wandb.teardown()  # stops wandb-core, so the transaction log is flushed before it is read
ds = datastore.DataStore()
ds.open_for_scan(glob.glob(os.path.join(spec["dir"], "wandb", "offline-run-*", "run-stepsync.wandb"))[0])
out = []
while True:
    data = ds.scan_data()
    if data is None:
        break
    r = pb.Record()
    r.ParseFromString(data)
    if r.WhichOneof("record_type") == "history":
        items = {(i.key or "/".join(i.nested_key)): i.value_json for i in r.history.item}
        out.append({k: json.loads(v) for k, v in items.items() if k in spec["metrics"]})
print(json.dumps(out))
`;

const CASES: Array<{ opts: FrameworkOptions; rules: Array<[string, string]> }> = [
  {
    opts: { framework: "openrlhf", rounds: [{ steps: 4 }], samplesTable: true, evalSteps: 2, anomalies: [] },
    rules: [
      ["train/*", "train/global_step"],
      ["eval/*", "eval/epoch"],
    ],
  },
  {
    opts: { framework: "trl", rounds: [{ steps: 5 }], loggingSteps: 2, evalSteps: 2, profiling: true, anomalies: [] },
    rules: [["*", "train/global_step"]],
  },
];

for (const { opts, rules } of CASES) {
  test(`${opts.framework}: stepSync adds what the Python SDK's step_sync inserts`, { skip: SKIP }, () => {
    const plain = simulateFramework(opts);
    const synced = simulateFramework({ ...opts, stepSync: true });
    const metrics = rules.map(([, m]) => m);
    const rows = plain.runs[0].rows.map((r) => r.values.map((v) => [v.key, typeof v.value === "number" ? v.value : "__table__"]));
    const dir = mkdtempSync(path.join(root, `${opts.framework}-`));
    const out = execFileSync(PYTHON, ["-c", SCRIPT], { input: JSON.stringify({ dir, rules, rows, metrics }), env: ENV, encoding: "utf8", maxBuffer: 1 << 24 });
    const logged = JSON.parse(out.trim().split("\n").pop() as string) as Array<Record<string, number>>;
    const expected = synced.runs[0].history.map((h) => {
      const o: Record<string, number> = {};
      for (const m of metrics) if (m in h) o[m] = h[m];
      return o;
    });
    assert.equal(logged.length, expected.length);
    assert.deepEqual(logged, expected);
  });
}
