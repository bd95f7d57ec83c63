/**
 * The export job of the analysis benchmark, as `npm run export` runs it (own process, so its peak
 * memory is its own): tsx bench/analysis-ours-export.ts ARCHIVE_DIR OUT_DIR.
 * writeExports on the frozen archive (hash-verified load, align, summary.csv, health.csv, the record
 * CSVs, manifest.json) into OUT_DIR/exports, and nothing else: no notebook summaries, which
 * bench/analysis-ours.ts adds for the full-job comparison. Prints one JSON line with the seconds and
 * VmHWM. Its CSVs must equal the full job's byte for byte (analysis-bench.ts compares them).
 */
import * as path from "node:path";

import { writeExports } from "../lib/export/write-exports";
import type { Reporter } from "../lib/types";
import { writeReportLine } from "./process-memory";

async function main(): Promise<void> {
  const [archiveDir, outDir] = process.argv.slice(2);
  let warnings = 0;
  const reporter: Reporter = { warn: () => void warnings++ };
  const t0 = performance.now();
  const result = await writeExports({ dataDir: archiveDir, outDir: path.join(outDir, "exports"), reporter });
  const seconds = (performance.now() - t0) / 1000;
  const updates = result.files.find((f) => f.name === "updates.csv")?.rows ?? 0;
  // One phase: writeExports does not stop between its steps.
  writeReportLine({ side: "ours-export", updates, warnings, phases: { export: seconds }, seconds });
}

main().catch((e) => {
  process.stderr.write(`${(e as Error).stack ?? e}\n`);
  process.exit(1);
});
