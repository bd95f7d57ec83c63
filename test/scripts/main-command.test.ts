/**
 * `npm start` (scripts/main.sh) writes everything into WORKSPACE_EXPORTS, and a failed run puts that
 * folder back as it was: it never holds the executed notebooks of one run beside those (or the CSVs)
 * of another (issue 38, case 8). Runs the real notebooks on a data folder with no archive: six of
 * seven fail (about a minute on 2 cores).
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { test } from "node:test";

import { assertSameTree, snapshotTree } from "../reliability/tree-snapshot";

const ROOT = path.resolve(__dirname, "../..");

test("a failed npm start leaves WORKSPACE_EXPORTS byte-identical (notebooks of an earlier run, CSVs, a user's file), writes nothing into exports/, leaves no copy beside", {
  skip: !fs.existsSync(path.join(ROOT, ".venv/bin/python")) && "no .venv (npm run setup)",
  timeout: 600_000,
}, (t) => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "main-command-"));
  t.after(() => fs.rmSync(tmp, { recursive: true, force: true }));
  const exportsDir = path.join(tmp, "shared", "exports");
  fs.mkdirSync(path.join(exportsDir, "notebooks"), { recursive: true });
  fs.mkdirSync(path.join(exportsDir, "report"));
  for (const f of ["rollouts.csv", "summary.csv", "manifest.json"]) fs.copyFileSync(path.join(ROOT, "exports", f), path.join(exportsDir, f));
  fs.writeFileSync(path.join(exportsDir, "notebooks", "07-compare.ipynb"), '{"an": "earlier run"}\n');
  fs.writeFileSync(path.join(exportsDir, "report", "index.html"), "<p>an earlier run</p>\n");
  fs.writeFileSync(path.join(exportsDir, "mine.txt"), "a file of mine\n");
  const before = snapshotTree(exportsDir);
  const repoExports = snapshotTree(path.join(ROOT, "exports"));
  const data = path.join(tmp, "empty-data"); // no archive: notebooks 01-06 stop, 07 (compare) runs
  fs.mkdirSync(data);
  const r = spawnSync("bash", [path.join(ROOT, "scripts/main.sh")], {
    cwd: ROOT,
    env: { ...process.env, WORKSPACE_DATA: data, WORKSPACE_EXPORTS: exportsDir, WORKSPACE_FETCH: "" },
    encoding: "utf8",
  });
  assert.notEqual(r.status, 0);
  const out = r.stdout + r.stderr;
  // Notebook 07 ran and was written into WORKSPACE_EXPORTS, not exports/; the failure then put the folder back.
  assert.match(out, new RegExp(`ok notebooks/07-compare\\.ipynb: .* -> ${exportsDir.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}/notebooks/07-compare\\.ipynb`));
  assert.match(out, /6 notebook\(s\) failed/);
  assert.match(out, /\[main\] failed: .*exports put back as it was before this run/);
  assertSameTree(snapshotTree(exportsDir), before, "WORKSPACE_EXPORTS after the failed run");
  assertSameTree(snapshotTree(path.join(ROOT, "exports")), repoExports, "the repository's exports/");
  assert.deepEqual(fs.readdirSync(path.dirname(exportsDir)), ["exports"], "no copy left beside it");
});
