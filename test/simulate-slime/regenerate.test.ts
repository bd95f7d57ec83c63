/**
 * Regenerating the sample (the real pipeline: test server, @wandb/sdk, fetchAndFreeze, local logs)
 * into a temp folder gives exactly the bytes committed in data/. Takes ~15 s (the SDK's file stream
 * polls once a second).
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { promises as fsp } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { test } from "node:test";
import { promisify } from "node:util";

const ROOT = path.resolve(__dirname, "../..");
const DATA = path.join(ROOT, "data");
const OWNED = ["wandb", "runs.json", "local"];

/** Relative path -> bytes of every file under `dir` (recursively), for the given top-level entries. */
async function snapshot(dir: string, entries: string[]): Promise<Map<string, Buffer>> {
  const out = new Map<string, Buffer>();
  async function walk(rel: string): Promise<void> {
    const abs = path.join(dir, rel);
    const stat = await fsp.stat(abs);
    if (stat.isDirectory()) for (const name of (await fsp.readdir(abs)).sort()) await walk(path.join(rel, name));
    else out.set(rel, await fsp.readFile(abs));
  }
  for (const e of entries) await walk(e);
  return out;
}

test("npm run simulate into a temp folder reproduces data/ byte for byte", async () => {
  const tmp = await fsp.mkdtemp(path.join(os.tmpdir(), "simulate-slime-test-"));
  try {
    const out = path.join(tmp, "data");
    await promisify(execFile)(process.execPath, ["--import", "tsx", path.join(ROOT, "tools/simulate-slime/cli.ts"), "--out-dir", out, "--quiet"], {
      cwd: ROOT,
      env: { ...process.env, WANDB_API_KEY: "", WANDB_BASE_URL: "", SOURCE_DATE_EPOCH: "" },
    });
    const want = await snapshot(DATA, OWNED);
    const got = await snapshot(out, OWNED);
    assert.deepEqual([...got.keys()], [...want.keys()]);
    assert.equal(want.size, 10);
    for (const [rel, bytes] of want) assert.ok(bytes.equals(got.get(rel)!), `${rel} differs from data/${rel}`);
  } finally {
    await fsp.rm(tmp, { recursive: true, force: true });
  }
});
