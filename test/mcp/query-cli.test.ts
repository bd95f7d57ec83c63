/**
 * `npm run query`: the MCP tools' answers from the shell. `--json` prints the answer the server sends
 * (here the sample's summary, equal to the committed exports/summary.csv), a refusal exits 1 with its
 * JSON, an option error exits 2 naming the option; without --json a short table.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import * as path from "node:path";
import { test } from "node:test";

import { EXPORT_TEXT_COLUMNS } from "../../lib/export/read-export-csv";
import { cellOfCsv, csvFile } from "./expected";

const ROOT = path.resolve(__dirname, "../..");

/** Runs the query command; its exit code, stdout and stderr. */
function query(args: string[]): Promise<{ code: number; out: string; err: string }> {
  return new Promise((resolve) =>
    execFile(process.execPath, ["--import", "tsx", "scripts/query.ts", ...args], { cwd: ROOT, encoding: "utf8" }, (e, out, err) =>
      resolve({ code: e ? Number(e.code) : 0, out, err }),
    ),
  );
}

test("query summary --json answers summary.csv's cells; a refusal exits 1 with its JSON; a bad option exits 2", async () => {
  const [summary, refused, bad, table] = await Promise.all([
    query(["summary", "--data", "sample=data", "--json"]),
    query(["history", "--data", "sample=data", "--run", "nope", "--json"]),
    query(["history", "--data", "sample=data", "--limit", "0"]),
    query(["summary", "--data", "sample=data", "--columns", "reward_mean"]),
  ]);
  assert.equal(summary.code, 0, summary.err);
  const csv = csvFile(path.join(ROOT, "exports/summary.csv"));
  assert.deepEqual(
    JSON.parse(summary.out).rows,
    csv.rows.map((r) => r.map((cell, i) => cellOfCsv(cell, csv.columns[i], EXPORT_TEXT_COLUMNS))),
  );
  assert.equal(refused.code, 1);
  assert.equal(JSON.parse(refused.out).refusal.code, "unknown_run");
  assert.equal(bad.code, 2);
  assert.match(bad.err, /^query: invalid options for history: .*limit/);
  assert.equal(table.code, 0, table.err);
  const at = csv.columns.indexOf("reward_mean");
  assert.match(table.out, new RegExp(`^reward_mean +${csv.rows.map((r) => r[at].replace(".", "\\.")).join(" +")}$`, "m"));
});
