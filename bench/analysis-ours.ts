/**
 * Benchmark side A of the analysis benchmark (own process, so its peak memory is its own):
 *   tsx bench/analysis-ours.ts ARCHIVE_DIR OUT_DIR
 * The workspace pipeline on a frozen archive: load (hash-verified) -> align -> the notebook summaries
 * (policy, ppo_kl by position, zero-grad updates, rollout/throughput, time breakdown) -> export CSVs.
 * Writes OUT_DIR/summary.json (the comparable numbers, see summary-json.ts) and the export files
 * into OUT_DIR/exports, prints one JSON line with the seconds of each phase and VmHWM.
 */
import * as path from "node:path";
import { promises as fsp } from "node:fs";

import { loadArchive } from "../lib/archive/load-archive";
import { alignRuns } from "../lib/align/align-runs";
import { rowCount } from "../lib/values/packed-run";
import { policyRoundTable } from "../lib/diagnostics/policy-round-table";
import { ppoKlByPosition } from "../lib/diagnostics/ppo-kl-by-position";
import { rolloutRoundTable } from "../lib/diagnostics/rollout-round-table";
import { timeBreakdown } from "../lib/diagnostics/time-breakdown";
import { zeroGradNormUpdates } from "../lib/diagnostics/zero-grad-norm-updates";
import { planExports } from "../lib/export/build-exports";
import { writePlannedExports } from "../lib/export/write-exports";
import type { Reporter } from "../lib/types";
import { writeReportLine } from "./process-memory";
import { summaryJson } from "./summary-json";

async function main(): Promise<void> {
  const [archiveDir, outDir] = process.argv.slice(2);
  let warnings = 0;
  const reporter: Reporter = { warn: () => void warnings++ };
  const phases: Record<string, number> = {};
  let t = performance.now();
  const lap = (name: string) => {
    const now = performance.now();
    phases[name] = (now - t) / 1000;
    t = now;
  };
  const t0 = t;

  // As writeExports: the archive's rows are dropped once aligned (only the manifest is kept).
  const { manifest, rows, aligned } = await (async () => {
    const archive = await loadArchive(archiveDir, {}, { compact: true });
    // rowCount, not rows.length: reading `rows` would unpack every packed row into a view.
    const rows = archive.runs.reduce((a, r) => a + rowCount(r), 0);
    lap("load");
    const aligned = alignRuns(archive.runs, { compact: true, releaseRows: true });
    lap("align");
    return { manifest: archive.manifest, rows, aligned };
  })();
  const policy = policyRoundTable(aligned, { reporter });
  const kl = ppoKlByPosition(aligned, { reporter });
  const zero = zeroGradNormUpdates(aligned);
  const rollout = rolloutRoundTable(aligned, { reporter });
  const time = timeBreakdown(aligned, { reporter });
  lap("summaries");
  // As writeExports: summary.csv is made while the record tables print.
  const plan = planExports({ manifest }, aligned, { reporter, workspaceVersion: "bench", deferSummary: true });
  await writePlannedExports(path.join(outDir, "exports"), plan);
  lap("export");
  const seconds = (performance.now() - t0) / 1000;

  const summary = summaryJson({ aligned, policy, kl, zero, rollout, time });
  await fsp.writeFile(path.join(outDir, "summary.json"), JSON.stringify(summary, null, 1) + "\n");
  writeReportLine({ side: "ours", rows, updates: aligned.updates.length, warnings, phases, seconds });
}

main().catch((e) => {
  process.stderr.write(`${(e as Error).stack ?? e}\n`);
  process.exit(1);
});
