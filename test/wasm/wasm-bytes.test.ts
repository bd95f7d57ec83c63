/** The embedded WebAssembly (lib/wasm/wasm-bytes.ts) is tools/wasm rebuilt, when Rust is here (CI has none). */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { test } from "node:test";

import { WASM_BASE64 } from "../../lib/wasm/wasm-bytes";

const REPO = path.resolve(__dirname, "../..");

/** True when rustup has the wasm32 target (the module is committed; CI has no Rust). */
function canRebuild(): boolean {
  try {
    return execFileSync("rustup", ["target", "list", "--installed"], { encoding: "utf8", stdio: "pipe" }).includes("wasm32-unknown-unknown");
  } catch {
    return false;
  }
}

test("the embedded module is tools/wasm rebuilt, byte for byte", {
  skip: canRebuild() ? false : "no Rust wasm32 tool chain here (tools/wasm/remake.sh rebuilds the committed module)",
}, () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "wasm-bytes-"));
  try {
    const out = path.join(dir, "wasm-bytes.ts");
    execFileSync("bash", [path.join(REPO, "tools/wasm/remake.sh")], { env: { ...process.env, WASM_BYTES_OUT: out }, stdio: "pipe" });
    const rebuilt = fs.readFileSync(out, "utf8").match(/"([A-Za-z0-9+/=]+)"/)![1];
    assert.equal(rebuilt.length, WASM_BASE64.length);
    assert.ok(rebuilt === WASM_BASE64, "the committed module differs from tools/wasm/src/ rebuilt: run tools/wasm/remake.sh");
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
