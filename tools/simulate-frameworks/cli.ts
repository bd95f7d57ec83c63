/**
 * Writes a simulated verl / OpenRLHF / TRL workspace data folder (archive-data.ts):
 *   npm run simulate:framework -- --framework verl --out-dir /tmp/verl [--rounds 12,8c,12]
 *     [--restart-overlap 3] [--seed 7] [--truth /tmp/verl-truth.json] [--options '{"testFreq":4}']
 * `--rounds`: steps per round, comma-separated; a trailing `c` marks a crashed round. `--options`:
 * JSON of further `FrameworkOptions` (types.ts). Then `WORKSPACE_DATA=/tmp/verl` points the workspace at it.
 */
import { promises as fsp } from "node:fs";

import { writeFrameworkData } from "./archive-data";
import { cliOptions } from "./cli-options";
import { simulateFramework } from "./simulate";

async function main(): Promise<void> {
  const { opts, outDir, truth } = cliOptions(process.argv.slice(2));
  const s = simulateFramework(opts);
  await writeFrameworkData(s, outDir);
  if (truth) await fsp.writeFile(truth, JSON.stringify(s.truth, null, 1) + "\n", "utf8");
  process.stderr.write(
    `wrote ${outDir} (${s.framework}): ${s.runs.map((r) => `${r.round} ${r.runId} steps ${r.firstStep}-${r.lastStep}, ${r.history.length} rows, ${r.state}`).join("; ")}\n`,
  );
}

main().catch((e: Error) => {
  process.stderr.write(`simulate:framework: ${e.message}\n`);
  process.exitCode = 1;
});
