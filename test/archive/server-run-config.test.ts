/**
 * A server run's config (GraphQL `RunConfig`) gives the archive its declared semantic flags, typed,
 * and the versions of its `_wandb` entry; nothing else of the config (a secret-looking value in an
 * undeclared entry, paths, undeclared names) reaches the archive or the exports. The official Python
 * client, when present, reads the same config values for the flags we froze.
 */
import assert from "node:assert/strict";
import { execFile, execFileSync } from "node:child_process";
import { promisify } from "node:util";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { after, before, test } from "node:test";

import { fetchAndFreeze } from "../../lib/archive/fetch-and-freeze";
import { loadArchive } from "../../lib/archive/load-archive";
import { archiveAndExportsText } from "./written-text";
import { startWandbTestServer, type WandbTestServer } from "../../tools/wandb-test-server/server";

const KEY = "sentinelkeyserverconfig0123456789abcdef0123";
const SECRET = "sk-live-9f8e7d6c5b4a39281706f5e4d3c2b1a0";
let server: WandbTestServer;
const root = fs.mkdtempSync(path.join(os.tmpdir(), "server-config-"));

const CONFIG = {
  use_rollout_logprobs: true,
  n_samples_per_prompt: 8,
  advantage_estimator: "grpo",
  kl_coef: "0.0731", // declared as a number: dropped and counted, its value never kept
  wandb_api_key: SECRET,
  save: "checkpoints-of-someone/secret-project",
  _wandb: { cli_version: "0.19.1", python_version: "3.10.12", huggingface_version: "4.47.0", t: { "1": [1, 11] }, code_path: "code/someone-train-7f3a.py" },
};

before(async () => {
  server = await startWandbTestServer({ apiKey: KEY });
  const rows = Array.from({ length: 8 }, (_, i) => ({ _step: i, "rollout/step": i, "rollout/raw_reward": i / 10, "train/step": i, "train/ppo_kl": 0.01 }));
  server.addRun({ entity: "e", project: "p", runId: "withcfg", config: CONFIG, rows });
  server.addRun({ entity: "e", project: "p", runId: "nocfg", rows });
});
after(async () => {
  await server.close();
  fs.rmSync(root, { recursive: true, force: true });
});

async function freeze(outDir: string) {
  return fetchAndFreeze({
    entity: "e",
    project: "p",
    runs: [
      { runId: "withcfg", round: "R0" },
      { runId: "nocfg", round: "R1" },
    ],
    outDir,
    baseUrl: server.url,
    apiKey: KEY,
    env: {},
    now: () => new Date("2026-12-03T00:00:00.000Z"),
  });
}

test("server runs: declared flags typed with source config, a wrong type dropped by name, versions from _wandb; a run without config has flags {}", async () => {
  const outDir = path.join(root, "a");
  const manifest = await freeze(outDir);
  const [withCfg, noCfg] = manifest.runs;
  assert.deepEqual(withCfg.flags, {
    advantage_estimator: { value: "grpo", source: "config" },
    n_samples_per_prompt: { value: 8, source: "config" },
    use_rollout_logprobs: { value: true, source: "config" },
  });
  assert.deepEqual(withCfg.flagsDropped, { kl_coef: "expected number, got another string" });
  assert.deepEqual(withCfg.versions, {
    python: { value: "3.10.12", source: "config" },
    transformers: { value: "4.47.0", source: "config" },
    wandb: { value: "0.19.1", source: "config" },
  });
  assert.deepEqual(noCfg.flags, {});
  assert.equal(noCfg.versions, undefined, "no version recorded: no versions field");
  const archive = await loadArchive(outDir);
  assert.deepEqual(archive.runs[0].flags, withCfg.flags);
  assert.deepEqual(archive.runs[0].versions, withCfg.versions);
});

test("nothing of the config but the declared flags and versions reaches any file of the archive or the exports", async () => {
  const outDir = path.join(root, "b");
  await freeze(outDir);
  const written = await archiveAndExportsText(outDir);
  for (const never of [SECRET, "wandb_api_key", "checkpoints-of-someone", "secret-project", "code_path", "someone-train-7f3a", "0.0731"]) {
    assert.ok(!written.includes(never), `${never} reaches no file`);
  }
  assert.ok(written.includes('"use_rollout_logprobs"'), "the declared flag is there (the check above can fail)");
});

const PYTHON = path.resolve(__dirname, "../../.venv-wandb-current/bin/python");
const hasClient = (() => {
  try {
    execFileSync(PYTHON, ["-c", "import wandb"], { stdio: "ignore", env: { PATH: process.env.PATH ?? "" } });
    return true;
  } catch {
    return false;
  }
})();

test("the official Python client reads the same values for the flags we froze", { skip: hasClient ? false : `${PYTHON} lacks wandb` }, async () => {
  const manifest = await freeze(path.join(root, "c"));
  const script = "import json, sys, wandb\nrun = wandb.Api().run(sys.argv[1])\nprint(json.dumps({k: run.config.get(k) for k in sys.argv[2:]}))";
  const names = Object.keys(manifest.runs[0].flags!);
  // Asynchronously: the test server answers from this process.
  const { stdout: out } = await promisify(execFile)(PYTHON, ["-c", script, "e/p/withcfg", ...names], {
    encoding: "utf8",
    env: { PATH: process.env.PATH ?? "", WANDB_BASE_URL: server.url, WANDB_API_KEY: KEY, WANDB_SILENT: "true", HOME: root },
  });
  const theirs = JSON.parse(out);
  for (const n of names) assert.equal(theirs[n], manifest.runs[0].flags![n].value, n);
});
