/**
 * Write the CSV exports from the frozen archive (offline: no network, no credentials).
 *
 *   npm run export -- [--data DIR (data/wandb)] [--out DIR (exports)] [--allow-issues]
 *                     [--n RUN=N ...] [--always-use-train-step RUN=true|false ...] [--profile NAME] [--config FILE]
 *                     [--format csv|csv,parquet] [--layout flat|hive] [--help]
 *
 * Verifies every frozen file against its manifest sha256 (refusing, naming the file, on a
 * mismatch), aligns the runs, runs the health checks, and writes rollouts.csv, updates.csv,
 * summary.csv, superseded.csv, health.csv and manifest.json into the out folder all or nothing. Same
 * archive, same code, same thresholds: byte-identical files. Refuses (exit 1) when the axis mapping
 * does not hold for a run, unless --allow-issues. Health thresholds: the `health` object of --config
 * (default: runs.json beside the archive folder, if it exists), then HEALTH_* variables.
 * `--format csv,parquet` also writes rollouts.parquet and updates.parquet (`--layout hive`: one file per
 * round, rollouts/round=R0/part-0.parquet ...), listed in the manifest; the default writes CSV only.
 */
import * as path from "node:path";
import { parseArgs } from "node:util";

import type { ParquetLayout } from "../lib/export/parquet-file";
import { writeExports } from "../lib/export/write-exports";
import { healthSettings, healthSummaryLine, type HealthSettings } from "../lib/health/index";
import { ALIGN_OPTIONS, type AlignCliOptions, alignOptions } from "./cli-align-options";
import { cliReporter } from "./cli-reporter";
import { dataAndArchive } from "../lib/workspace/workspace-params";

const USAGE =
  "usage: npm run export -- [--data DIR] [--out DIR] [--profile slime|verl|openrlhf|trl] [--allow-issues] [--n RUN=N ...] [--always-use-train-step RUN=true|false ...] [--config FILE] [--format csv|csv,parquet] [--layout flat|hive]\n" +
  "       (defaults: --data data/wandb --out exports --config <DIR>/../runs.json --format csv --layout flat; --allow-issues exports although the axis mapping does not hold for a run;\n" +
  "        --format csv,parquet also writes rollouts.parquet and updates.parquet, --layout hive as rollouts/round=<R>/part-0.parquet ... one file per round)";

interface ExportCli {
  dataDir: string;
  outDir: string;
  allowIssues: boolean;
  align: AlignCliOptions;
  /** runs.json whose `health` object sets thresholds (a missing file sets none). */
  config: string;
  /** Parquet files too, in this layout; null: CSV only. */
  parquet: { layout: ParquetLayout } | null;
}

/** The --format and --layout options: CSV always, Parquet when listed; a layout only with Parquet. */
function parquetOption(format: string, layout: string | undefined): ExportCli["parquet"] {
  const formats = format.split(",");
  if (new Set(formats).size !== formats.length || !formats.every((f) => f === "csv" || f === "parquet") || !formats.includes("csv")) {
    throw new UsageError(`invalid --format: ${format} (csv or csv,parquet: the CSVs and the manifest are always written)`);
  }
  if (layout !== undefined && layout !== "flat" && layout !== "hive") throw new UsageError(`invalid --layout: ${layout} (flat or hive)`);
  if (!formats.includes("parquet")) {
    if (layout !== undefined) throw new UsageError(`invalid --layout: ${layout} (a layout of Parquet files: add --format csv,parquet)`);
    return null;
  }
  return { layout: layout ?? "flat" };
}

/** An option error: printed with the usage, exit code 2. */
class UsageError extends Error {}

/** parseArgs over the export's options; its errors as UsageError naming the option. */
function parsedArgs(argv: string[]) {
  try {
    return parseArgs({
      args: argv,
      options: {
        data: { type: "string", default: "data/wandb" },
        out: { type: "string", default: "exports" },
        "allow-issues": { type: "boolean", default: false },
        ...ALIGN_OPTIONS,
        config: { type: "string" },
        format: { type: "string", default: "csv" },
        layout: { type: "string" },
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
}

function parseCli(argv: string[]): ExportCli | null {
  const parsed = parsedArgs(argv);
  const v = parsed.values;
  if (v.help) return null;
  if (!v.data) throw new UsageError(`invalid --data: ${JSON.stringify(v.data)}`);
  if (!v.out) throw new UsageError(`invalid --out: ${JSON.stringify(v.out)}`);
  const align = alignOptions(v, (m) => new UsageError(m));
  if (v.config === "") throw new UsageError(`invalid --config: ""`);
  // The archive, or the data folder holding it as wandb/ (as WORKSPACE_DATA takes either); runs.json
  // sits beside the archive folder (data/runs.json, data/wandb/).
  const { dataDir, archiveDir } = dataAndArchive(v.data, "archive");
  const config = v.config ?? path.join(dataDir, "runs.json");
  const parquet = parquetOption(v.format ?? "csv", v.layout);
  return { dataDir: archiveDir, outDir: v.out, allowIssues: v["allow-issues"] === true, align, config, parquet };
}

async function main(): Promise<number> {
  let opts: ExportCli | null;
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
  const { reporter, stop } = cliReporter({
    tty: Boolean(process.stderr.isTTY),
    clearOnComplete: true,
    omittedHint: "health.csv (check non_finite) counts every NaN and ±Infinity per key and round, with its first and last step",
  });
  try {
    const health: HealthSettings = healthSettings(process.env, opts.config);
    const result = await writeExports({
      dataDir: opts.dataDir,
      outDir: opts.outDir,
      allowIssues: opts.allowIssues,
      align: opts.align,
      reporter,
      health: health.params,
      ...(opts.parquet ? { parquet: opts.parquet } : {}),
    });
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
