/**
 * Write the CSV exports from the frozen archive (offline: no network, no credentials).
 *
 *   npm run export -- [--data DIR (data/wandb)] [--out DIR (exports)] [--config FILE] [--help]
 *
 * Verifies every frozen file against its manifest sha256 (refusing, naming the file, on a
 * mismatch), aligns the runs, runs the health checks, and writes rollouts.csv, updates.csv,
 * summary.csv, health.csv and manifest.json into the out folder all or nothing. Same archive, same
 * code, same thresholds: byte-identical files. Health thresholds: the `health` object of --config
 * (default: runs.json beside the archive folder, if it exists), then HEALTH_* variables.
 */
import * as path from "node:path";
import { parseArgs } from "node:util";


import { writeExports } from "../lib/export/write-exports";
import { healthSettings, healthSummaryLine, type HealthSettings } from "../lib/health/index";
import { cliReporter } from "./cli-reporter";

const USAGE = "usage: npm run export -- [--data DIR] [--out DIR] [--config FILE]   (defaults: --data data/wandb --out exports --config <DIR>/../runs.json)";

/** An option error: printed with the usage, exit code 2. */
class UsageError extends Error {}

function parseCli(argv: string[]): { dataDir: string; outDir: string; config: string } | null {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      options: {
        data: { type: "string", default: "data/wandb" },
        out: { type: "string", default: "exports" },
        config: { type: "string" },
        help: { type: "boolean", short: "h", default: false },
      },
      strict: true,
      allowPositionals: false,
    });
  } catch (e) {
    // parseArgs explains at length; keep the one line that names the option.
    const err = e as NodeJS.ErrnoException;
    const what = /'([^']+)'/.exec(err.message)?.[1];
    if (err.code === "ERR_PARSE_ARGS_UNKNOWN_OPTION" && what) throw new UsageError(`invalid option: ${what}`);
    if (err.code === "ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL" && what) throw new UsageError(`invalid argument: ${what}`);
    throw new UsageError(err.message.split("\n")[0]);
  }
  const v = parsed.values;
  if (v.help) return null;
  if (!v.data) throw new UsageError(`invalid --data: ${JSON.stringify(v.data)}`);
  if (!v.out) throw new UsageError(`invalid --out: ${JSON.stringify(v.out)}`);
  if (v.config === "") throw new UsageError(`invalid --config: ""`);
  // The workspace layout keeps runs.json beside the archive folder (data/runs.json, data/wandb/).
  return { dataDir: v.data, outDir: v.out, config: v.config ?? path.join(path.dirname(v.data), "runs.json") };
}

async function main(): Promise<number> {
  let opts: { dataDir: string; outDir: string; config: string } | null;
  try {
    opts = parseCli(process.argv.slice(2));
  } catch (e) {
    process.stderr.write(`export: ${(e as Error).message}\n${USAGE}\n`);
    return 2;
  }
  if (opts === null) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const { reporter, stop } = cliReporter({ tty: Boolean(process.stderr.isTTY), clearOnComplete: true });
  try {
    const health: HealthSettings = healthSettings(process.env, opts.config);
    const result = await writeExports({ dataDir: opts.dataDir, outDir: opts.outDir, reporter, health: health.params });
    stop();
    process.stdout.write(`wrote ${result.files.length + 1} files into ${result.outDir} from ${opts.dataDir}\n`);
    for (const f of result.files) {
      process.stdout.write(`  ${f.name}  ${f.rows} rows x ${f.columns.length} columns  sha256 ${f.sha256}\n`);
    }
    process.stdout.write(`  ${result.manifest.name}  sha256 ${result.manifest.sha256}\n`);
    const changed = health.rows.filter((r) => r.source !== "default").map((r) => `${r.check}.${r.param} = ${r.value} (${r.source})`);
    const n = result.health.flags.length;
    process.stdout.write(`health checks (${n} flag${n === 1 ? "" : "s"}; thresholds: ${changed.length ? changed.join(", ") : "defaults"}):\n`);
    for (const r of result.health.results) process.stdout.write(`  ${healthSummaryLine(r)}\n`);
    return 0;
  } catch (e) {
    stop();
    // One clear message, no stack: errors from lib name the file, run, step or key.
    process.stderr.write(`export failed: ${(e as Error).message}\n`);
    return 1;
  }
}

main().then((code) => process.exit(code));
