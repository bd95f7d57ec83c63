import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import path from "node:path";
import readline from "node:readline";
import { graphql } from "./http-helpers";

const ROOT = path.resolve(__dirname, "../..");

test("cli prints WANDB_BASE_URL, serves with the given key, exits 0 on SIGTERM", async () => {
  const child = spawn(process.execPath, ["--import", "tsx", "tools/wandb-test-server/cli.ts", "--port", "0", "--api-key", "cli-sentinel-key"], {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  try {
    const line = await new Promise<string>((resolve, reject) => {
      readline.createInterface({ input: child.stdout }).once("line", resolve);
      child.once("exit", (code) => reject(new Error(`cli exited early with code ${code}`)));
    });
    const m = /^WANDB_BASE_URL=(http:\/\/127\.0\.0\.1:\d+)$/.exec(line);
    assert.ok(m, `unexpected first line: ${line}`);
    const ok = await graphql(m[1], "cli-sentinel-key", "query Viewer { viewer { entity } }");
    assert.deepEqual(ok.json, { data: { viewer: { entity: "test-entity" } } });
    const denied = await graphql(m[1], "other-key", "query Viewer { viewer { entity } }");
    assert.equal(denied.status, 401);
  } finally {
    child.kill("SIGTERM");
  }
  assert.equal(await exited, 0);
});

test("cli rejects a bad --port", async () => {
  const child = spawn(process.execPath, ["--import", "tsx", "tools/wandb-test-server/cli.ts", "--port", "http"], {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (c) => (stderr += c));
  const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
  assert.equal(code, 2);
  assert.equal(stderr.trim(), "invalid --port: http");
});
