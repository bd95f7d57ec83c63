/**
 * Compare frozen archives: arms of experiments (e.g. seeds of one configuration) and a reference.
 *
 *   npm run compare -- --arm NAME=DIR[,DIR...] [--arm ...] [--reference DIR] --out DIR [--seed N] [--resamples N]
 *   npm run compare -- [--config data/compare.json] --out DIR [--seed N]
 *   ... [--axis rollout|update|tokens|wall --bin-width W]   (default: round labels)
 *
 * Every archive is verified against its manifest and summarised as `npm run export` does; an
 * experiment's value of a concept is its summary.csv cell (each round's row and the `all` row).
 * On a binned axis each experiment's records go into bins [k W, (k + 1) W) of the axis and its value
 * in a bin is the mean there; an empty bin stays empty (no interpolation). Writes compare.csv, improvement.csv, corridor.csv (with --reference) and compare-manifest.json into
 * the out folder, all or nothing; same archives and seed: byte-identical files. Columns whose
 * meaning differs between experiments are refused and listed, never compared; when every one is,
 * nothing is written and the exit code is 1 (2 on an option error).
 */
import { existsSync } from "node:fs";
import { parseArgs } from "node:util";

import {
  compareAxis,
  type CompareAxis,
  type CompareSpec,
  DEFAULT_RESAMPLES,
  DEFAULT_SEED,
  parseArmOption,
  readCompareConfigFile,
  runComparison,
} from "../lib/compare/index";
import { cliReporter } from "./cli-reporter";

const USAGE =
  "usage: npm run compare -- --arm NAME=DIR[,DIR...] [--arm ...] [--reference DIR] --out DIR [--seed N] [--resamples N] [--axis AXIS --bin-width W]\n" +
  "       npm run compare -- [--config FILE] --out DIR [--seed N] [--resamples N] [--axis AXIS --bin-width W]\n" +
  "       (AXIS: round (default), rollout, update, tokens or wall; every axis but round bins its values by W in its unit: rollout id, update, tokens, s)\n" +
  `       (without --arm the arms come from --config, default data/compare.json; --seed default ${DEFAULT_SEED}, --resamples default ${DEFAULT_RESAMPLES})`;

/** An option error: printed with the usage, exit code 2. */
class UsageError extends Error {}

/** A non-negative integer option, or the fallback when absent. */
function integer(option: string, v: string | undefined, fallback: number, min = 0): number {
  if (v === undefined) return fallback;
  if (!/^[0-9]+$/.test(v) || Number(v) < min || !Number.isSafeInteger(Number(v))) throw new UsageError(`invalid --${option}: ${v} (an integer >= ${min})`);
  return Number(v);
}

/** The axis of `--axis NAME [--bin-width W]` (round labels when --axis is absent). */
function axisOption(name: string | undefined, width: string | undefined): CompareAxis {
  if (width !== undefined && !/^[0-9]+(\.[0-9]+)?(e[+-]?[0-9]+)?$/i.test(width)) throw new UsageError(`invalid --bin-width: ${width} (a number > 0)`);
  try {
    return compareAxis(name ?? "round", width === undefined ? null : Number(width));
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
}

function parseCli(argv: string[]): { spec: CompareSpec; out: string } | null {
  let parsed: ReturnType<typeof parseArgs<{ options: Record<string, { type: "string" | "boolean"; multiple?: boolean; short?: string }> }>>;
  try {
    parsed = parseArgs({
      args: argv,
      options: {
        arm: { type: "string", multiple: true },
        reference: { type: "string" },
        out: { type: "string" },
        seed: { type: "string" },
        resamples: { type: "string" },
        config: { type: "string" },
        axis: { type: "string" },
        "bin-width": { type: "string" },
        help: { type: "boolean", short: "h" },
      },
      strict: true,
      allowPositionals: false,
    });
  } catch (e) {
    throw new UsageError((e as Error).message.split("\n")[0]);
  }
  const v = parsed.values as Record<string, string | string[] | boolean | undefined>;
  if (v.help) return null;
  if (typeof v.out !== "string" || v.out === "") throw new UsageError(`invalid --out: ${JSON.stringify(v.out)} (the folder to write into)`);
  const arms = (v.arm as string[] | undefined) ?? [];
  let spec: CompareSpec;
  if (arms.length > 0) {
    if (v.config !== undefined) throw new UsageError("invalid --config: give arms either with --arm or in a config file, not both");
    spec = {
      arms: arms.map(parseArmOption),
      root: ".",
      reference: (v.reference as string | undefined) ?? null,
      seed: DEFAULT_SEED,
      resamples: DEFAULT_RESAMPLES,
      corridor: {},
    };
  } else {
    const file = (v.config as string | undefined) ?? "data/compare.json";
    if (!existsSync(file)) throw new UsageError(`invalid --config: ${file} does not exist (or give --arm NAME=DIR[,DIR...])`);
    spec = readCompareConfigFile(file);
    if (v.reference !== undefined) spec.reference = v.reference as string;
  }
  spec.seed = integer("seed", v.seed as string | undefined, spec.seed);
  spec.resamples = integer("resamples", v.resamples as string | undefined, spec.resamples, 100);
  if (v.axis !== undefined || v["bin-width"] !== undefined) spec.axis = axisOption(v.axis as string | undefined, v["bin-width"] as string | undefined);
  return { spec, out: v.out };
}

async function main(): Promise<number> {
  let cli: { spec: CompareSpec; out: string } | null;
  try {
    cli = parseCli(process.argv.slice(2));
  } catch (e) {
    process.stderr.write(`compare: ${(e as Error).message}\n${USAGE}\n`);
    return 2;
  }
  if (cli === null) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const { reporter, stop } = cliReporter({ tty: Boolean(process.stderr.isTTY), clearOnComplete: true });
  try {
    const run = await runComparison(cli.spec, cli.out, reporter);
    stop();
    const refused = [...run.result.refused, ...run.result.refusedAgainstReference];
    if (run.result.columns.length === 0) {
      // Why first, then the refusals; no files, so that a script cannot read a comparison into empty tables.
      process.stderr.write(`compare: nothing compared, nothing written into ${cli.out}: every concept was refused, for the reasons below\n`);
      for (const r of refused) process.stderr.write(`  ${r.reason}\n`);
      return 1;
    }
    process.stdout.write(`wrote ${run.files.length} files into ${cli.out} (seed ${cli.spec.seed}, ${cli.spec.resamples} resamples)\n`);
    for (const f of run.files) process.stdout.write(`  ${f.name}\n`);
    if (refused.length > 0) process.stdout.write(`refused (${refused.length}):\n`);
    for (const r of refused) process.stdout.write(`  ${r.reason}\n`);
    return 0;
  } catch (e) {
    stop();
    process.stderr.write(`compare failed: ${(e as Error).message}\n`);
    return 1;
  }
}

main().then((code) => process.exit(code));
