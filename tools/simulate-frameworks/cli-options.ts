/** Command-line options of cli.ts (`npm run simulate:framework`), parsed into `FrameworkOptions`. */
import * as path from "node:path";
import { parseArgs } from "node:util";

import type { Framework, FrameworkOptions, FrameworkRound } from "./types";

/** Parses `--rounds` ("12,8c,12"); throws `invalid --rounds: <v>`. */
export function parseRounds(text: string): FrameworkRound[] {
  const parts = text.split(",");
  return parts.map((p) => {
    const m = /^(\d+)(c?)$/.exec(p.trim());
    if (!m || Number(m[1]) <= 0) throw new Error(`invalid --rounds: ${text}`);
    return { steps: Number(m[1]), state: m[2] ? "crashed" : "finished" };
  });
}

/** Parses a non-negative integer option; throws `invalid --<name>: <v>`. */
function intOption(name: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  if (!/^\d+$/.test(text)) throw new Error(`invalid --${name}: ${text}`);
  return Number(text);
}

/** The options the command line asks for. */
export function cliOptions(argv: string[]): { opts: FrameworkOptions; outDir: string; truth: string | null } {
  const { values } = parseArgs({
    args: argv,
    options: {
      framework: { type: "string" },
      "out-dir": { type: "string" },
      rounds: { type: "string" },
      "restart-overlap": { type: "string" },
      seed: { type: "string" },
      truth: { type: "string" },
      options: { type: "string" },
    },
    strict: true,
  });
  if (!values["out-dir"]) throw new Error("invalid --out-dir: (missing)");
  let extra: Partial<FrameworkOptions> = {};
  if (values.options !== undefined) {
    try {
      extra = JSON.parse(values.options) as Partial<FrameworkOptions>;
    } catch (e) {
      throw new Error(`invalid --options: ${values.options} (${(e as Error).message})`);
    }
    if (extra === null || typeof extra !== "object" || Array.isArray(extra)) throw new Error(`invalid --options: ${values.options}`);
  }
  const opts: FrameworkOptions = { ...extra, framework: (values.framework ?? "(missing)") as Framework };
  if (values.rounds !== undefined) opts.rounds = parseRounds(values.rounds);
  const overlap = intOption("restart-overlap", values["restart-overlap"]);
  if (overlap !== undefined) opts.restartOverlap = overlap;
  const seed = intOption("seed", values.seed);
  if (seed !== undefined) opts.seed = seed;
  return { opts, outDir: path.resolve(values["out-dir"]), truth: values.truth ? path.resolve(values.truth) : null };
}
