/**
 * Regenerates the bundled synthetic sample (`npm run simulate`):
 *   tsx tools/simulate-slime/cli.ts [--out-dir data] [--seed 20260112] [--quiet]
 * Starts the local W&B test server, logs four simulated slime runs through @wandb/sdk, fetches and
 * freezes them with the workspace's fetch path, writes the local training logs, stops the server,
 * and prints the per-round means. Running it twice gives byte-identical output.
 */
import * as path from "node:path";
import { parseArgs } from "node:util";

import { loadArchive } from "../../lib/archive/load-archive";
import { ARCHIVE_SUBDIR } from "../../lib/workspace/workspace-params";
import { regenerateSample } from "./regenerate";
import { formatRoundMeans, roundMeans } from "./round-means";
import { DEFAULT_SEED } from "./simulate";

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      "out-dir": { type: "string", default: path.resolve(__dirname, "../../data") },
      seed: { type: "string", default: String(DEFAULT_SEED) },
      quiet: { type: "boolean", default: false },
    },
    strict: true,
  });
  const seed = Number(values.seed);
  if (!Number.isSafeInteger(seed) || seed < 0 || seed > 0xffffffff) throw new Error(`invalid --seed: ${values.seed}`);
  const outDir = path.resolve(values["out-dir"]!);
  const say = (text: string) => {
    if (!values.quiet) process.stderr.write(`${text}\n`);
  };
  await regenerateSample({ outDir, seed, reporter: { info: say, warn: (m) => process.stderr.write(`warning: ${m}\n`) } });
  const archive = await loadArchive(path.join(outDir, ARCHIVE_SUBDIR));
  say(`wrote ${outDir}: wandb/ (manifest.json, history/: ${archive.runs.map((r) => `${r.runId} ${r.rows.length} rows`).join(", ")}), runs.json, local/`);
  for (const run of archive.runs) say(formatRoundMeans(roundMeans(run)));
}

main().catch((e: Error) => {
  process.stderr.write(`simulate: ${e.stack ?? e.message}\n`);
  process.exitCode = 1;
});
