// The HTML report's index shows the flags per health check of a notebook that shows the health report
// (read back from the summary comment of its per-check table), and nothing for other notebooks.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

import { serializeNotebook } from "../../lib/display/notebook-static-images";
import { healthResultsHtml } from "../../lib/display/show-health";
import { runHealthChecks } from "../../lib/health/run-health-checks";
import { buildAligned } from "../diagnostics/aligned-builder";

const ROOT = path.resolve(__dirname, "../..");
const JUPYTER = path.join(ROOT, ".venv/bin/jupyter");

test("HTML report index: flags per check for the health notebook only", {
  skip: fs.existsSync(JUPYTER) ? false : `no ${JUPYTER} (run scripts/setup.sh)`,
}, (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "report-health-"));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const aligned = buildAligned([{ round: "R0", batches: [{ updates: [{ "train/ppo_kl": 0.5, "train/loss": NaN }, { "train/ppo_kl": 0.1 }] }] }]);
  const notebook = (title: string, html: string) => ({
    nbformat: 4,
    nbformat_minor: 4,
    metadata: { kernelspec: { name: "slime-diagnostics-ts", display_name: "TypeScript", language: "typescript" } },
    cells: [
      { cell_type: "markdown", metadata: {}, source: `# ${title}\nsubtitle` },
      {
        cell_type: "code",
        execution_count: 1,
        metadata: {},
        source: "x",
        outputs: [{ output_type: "display_data", data: { "text/html": html }, metadata: {} }],
      },
    ],
  });
  const nbDir = path.join(dir, "nb");
  fs.mkdirSync(nbDir);
  fs.writeFileSync(path.join(nbDir, "01-other.ipynb"), serializeNotebook(notebook("01 Other", "<table></table>")));
  fs.writeFileSync(path.join(nbDir, "06-health.ipynb"), serializeNotebook(notebook("06 Health", healthResultsHtml(runHealthChecks(aligned)))));
  const run = spawnSync(process.execPath, ["--import", "tsx", path.join(ROOT, "scripts/html-report.ts"), nbDir, path.join(dir, "report")], {
    cwd: ROOT,
    encoding: "utf8",
  });
  assert.equal(run.status, 0, run.stderr + run.stdout);
  const index = fs.readFileSync(path.join(dir, "report", "index.html"), "utf8");
  const lines = index.split("\n").filter((l) => l.startsWith("<li>"));
  assert.equal(lines.length, 2);
  assert.ok(!lines[0].includes('class="health"'), "no health line for a notebook without the report");
  assert.match(
    lines[1],
    /<div class="health">health: 2 flags &middot; <span class="warn"><code>ppo_kl_first_update<\/code> 1 flag<\/span> &middot; <span><code>zero_grad_norm_streak<\/code> not applicable<\/span> &middot; <span class="warn"><code>non_finite<\/code> 1 flag<\/span>/,
  );
});
