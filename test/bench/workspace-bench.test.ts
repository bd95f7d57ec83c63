import { after, test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

import { parseNotebookTimes, runWorkspaceBench } from "../../bench/workspace-bench";

const dir = mkdtempSync(path.join(os.tmpdir(), "bench-workspace-test-"));
after(() => rmSync(dir, { recursive: true, force: true }));

test("parseNotebookTimes reads the runner's ok lines and ignores the rest", () => {
  const out = [
    "[setup] npm ci",
    "ok notebooks/01-fetch.ipynb: 12 code cells in 3.4s -> exports/notebooks/01-fetch.ipynb",
    "ok notebooks/02-axes.ipynb: 7 code cells in 10.0s",
    "FAILED notebooks/03-x.ipynb: cell 2",
  ].join("\n");
  assert.deepEqual(parseNotebookTimes(out), [
    { path: "notebooks/01-fetch.ipynb", codeCells: 12, seconds: 3.4 },
    { path: "notebooks/02-axes.ipynb", codeCells: 7, seconds: 10 },
  ]);
});

test("workspace benchmark skips with a note when there are no notebooks", async () => {
  const empty = path.join(dir, "empty");
  mkdirSync(empty);
  const r = await runWorkspaceBench({ reps: 1, root: empty });
  assert.match(r.skipped ?? "", /no notebooks\/NN-\*\.ipynb/);
  assert.equal(r.medianWallSeconds, null);
});

test("workspace benchmark, tiny: runs npm start in the workspace and collects per-notebook times", async () => {
  const ws = path.join(dir, "ws");
  mkdirSync(path.join(ws, "notebooks"), { recursive: true });
  writeFileSync(path.join(ws, "notebooks", "01-a.ipynb"), "{}");
  const script = "echo 'ok notebooks/01-a.ipynb: 3 code cells in 1.5s'";
  writeFileSync(path.join(ws, "package.json"), JSON.stringify({ name: "ws", private: true, scripts: { start: script } }));
  const r = await runWorkspaceBench({ reps: 2, root: ws });
  assert.equal(r.skipped, null);
  assert.equal(r.wallSeconds.length, 2);
  assert.deepEqual(r.notebooks, [{ path: "notebooks/01-a.ipynb", codeCells: 3, seconds: 1.5 }]);

  writeFileSync(path.join(ws, "package.json"), JSON.stringify({ name: "ws", private: true, scripts: { start: "echo broken; exit 3" } }));
  const bad = await runWorkspaceBench({ reps: 1, root: ws });
  assert.match(bad.skipped ?? "", /npm start failed \(exit 3\)/);
  assert.match(bad.failure ?? "", /broken/);
});
