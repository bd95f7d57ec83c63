/**
 * An independent client: the official MCP Python SDK (requirements-mcp.txt, venv .venv-mcp made by
 * scripts/setup.sh from scripts/test.sh) spawns the server over stdio (test/mcp/python_client.py),
 * lists its tools and reads the sample's summary, which must equal the committed exports/summary.csv;
 * a refusal reaches it as a tool error. Skipped, saying why, when the venv lacks the package.
 */
import assert from "node:assert/strict";
import { execFile, execFileSync } from "node:child_process";
import * as path from "node:path";
import { test } from "node:test";

import { EXPORT_TEXT_COLUMNS } from "../../lib/export/read-export-csv";
import { cellOfCsv, csvFile, fileSha256 } from "./expected";

const ROOT = path.resolve(__dirname, "../..");
const PYTHON = path.join(ROOT, ".venv-mcp/bin/python");

function mcpVersion(): string | null {
  try {
    const probe = "import importlib.metadata as m; print(m.version('mcp'))";
    return execFileSync(PYTHON, ["-c", probe], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
  } catch {
    return null;
  }
}
const VERSION = mcpVersion();
const SKIP = VERSION === null ? `${PYTHON} lacks mcp (EXTRA_VENVS=".venv-mcp:requirements-mcp.txt" bash scripts/setup.sh)` : false;

test(`the official MCP Python client (mcp ${VERSION ?? "absent"}) lists the six tools and reads the sample's summary as summary.csv holds it`, {
  skip: SKIP,
}, async () => {
  const args = [path.join(ROOT, "test/mcp/python_client.py"), process.execPath, "--import", "tsx", path.join(ROOT, "scripts/mcp.ts"), "--data", "sample=data"];
  const stdout = await new Promise<string>((resolve, reject) =>
    execFile(PYTHON, args, { cwd: ROOT, encoding: "utf8", env: { PATH: process.env.PATH ?? "" }, maxBuffer: 1 << 26 }, (e, out, err) =>
      e ? reject(new Error(`${e.message}\n${err}`)) : resolve(out),
    ),
  );
  const got = JSON.parse(stdout);
  assert.equal(got.server, "rl-run-diagnostics");
  assert.deepEqual(got.tools, ["runs", "concepts", "summary", "history", "health", "compare"]);
  const csv = csvFile(path.join(ROOT, "exports/summary.csv"));
  assert.equal(got.summaryError, false);
  assert.equal(got.summary.manifestSha256, fileSha256(path.join(ROOT, "data/wandb/manifest.json")));
  assert.deepEqual(got.summary.columns, csv.columns);
  assert.deepEqual(
    got.summary.rows,
    csv.rows.map((r) => r.map((cell, i) => cellOfCsv(cell, csv.columns[i], EXPORT_TEXT_COLUMNS))),
  );
  assert.equal(got.refusedError, true);
  assert.equal(JSON.parse(got.refusedText).refusal.code, "unknown_run");
});
