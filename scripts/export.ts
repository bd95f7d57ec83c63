/**
 * Write the CSV exports from the frozen archive (offline: no network, no credentials).
 *
 *   npm run export -- [--data DIR (data/wandb)] [--out DIR (exports)] [--help]
 *
 * Verifies every frozen file against its manifest sha256 (refusing, naming the file, on a
 * mismatch), aligns the runs, and writes rollouts.csv, updates.csv, summary.csv and manifest.json
 * into the out folder all or nothing. Same archive, same code: byte-identical files.
 */
import { parseArgs } from "node:util";


import { writeExports } from "../lib/export/write-exports";
import { cliReporter } from "./cli-reporter";

const USAGE = "usage: npm run export -- [--data DIR] [--out DIR]   (defaults: --data data/wandb --out exports)";

/** An option error: printed with the usage, exit code 2. */
class UsageError extends Error {}

function parseCli(argv: string[]): { dataDir: string; outDir: string } | null {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      options: {
        data: { type: "string", default: "data/wandb" },
        out: { type: "string", default: "exports" },
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
  return { dataDir: v.data, outDir: v.out };
}

async function main(): Promise<number> {
  let opts: { dataDir: string; outDir: string } | null;
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
    const result = await writeExports({ ...opts, reporter });
    stop();
    process.stdout.write(`wrote ${result.files.length + 1} files into ${result.outDir} from ${opts.dataDir}\n`);
    for (const f of result.files) {
      process.stdout.write(`  ${f.name}  ${f.rows} rows x ${f.columns.length} columns  sha256 ${f.sha256}\n`);
    }
    process.stdout.write(`  ${result.manifest.name}  sha256 ${result.manifest.sha256}\n`);
    return 0;
  } catch (e) {
    stop();
    // One clear message, no stack: errors from lib name the file, run, step or key.
    process.stderr.write(`export failed: ${(e as Error).message}\n`);
    return 1;
  }
}

main().then((code) => process.exit(code));
