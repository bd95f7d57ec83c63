/**
 * The options that state what the data cannot decide about reading the runs: `--profile NAME`,
 * `--n RUN=N`, `--always-use-train-step RUN=true|false`. One parse for the CLIs whose messages
 * suggest them (npm run export, npm run follow), so that a suggested option is always accepted.
 */
import type { AlignRunsOptions } from "../lib/align/align-options";
import { PROFILES } from "../lib/registry/profiles";

/** The parseArgs options. */
export const ALIGN_OPTIONS = {
  n: { type: "string", multiple: true },
  "always-use-train-step": { type: "string", multiple: true },
  profile: { type: "string" },
} as const;

/** Their usage text. */
export const ALIGN_USAGE = "[--profile slime|miles|verl|openrlhf|trl] [--n RUN=N ...] [--always-use-train-step RUN=true|false ...]";

/** The parsed values of ALIGN_OPTIONS. */
export interface AlignOptionValues {
  n?: string[];
  "always-use-train-step"?: string[];
  profile?: string;
}

/** What the options state, for alignRuns. */
export type AlignCliOptions = Pick<AlignRunsOptions, "n" | "alwaysUseTrainStep" | "profile">;

/** RUN=VALUE pairs of a repeatable option, each value checked by `parse`; `bad` makes the option error. */
function pairs<T>(option: string, list: string[] | undefined, parse: (v: string) => T | undefined, bad: (m: string) => Error): Record<string, T> | undefined {
  if (!list || list.length === 0) return undefined;
  const out: Record<string, T> = {};
  for (const item of list) {
    const eq = item.indexOf("=");
    const value = eq > 0 ? parse(item.slice(eq + 1)) : undefined;
    if (value === undefined) throw bad(`invalid --${option}: ${item}`);
    out[item.slice(0, eq)] = value;
  }
  return out;
}

/** The stated options; throws `bad("invalid --<option>: <value> ...")`. */
export function alignOptions(v: AlignOptionValues, bad: (message: string) => Error): AlignCliOptions {
  const n = pairs("n", v.n, (x) => (/^[1-9][0-9]*$/.test(x) ? Number(x) : undefined), bad);
  const flag = pairs("always-use-train-step", v["always-use-train-step"], (x) => (x === "true" ? true : x === "false" ? false : undefined), bad);
  const align: AlignCliOptions = {};
  if (n) align.n = n;
  if (flag) align.alwaysUseTrainStep = flag;
  if (v.profile !== undefined) {
    const names = PROFILES.map((p) => p.name as string);
    if (!names.includes(v.profile)) throw bad(`invalid --profile: ${v.profile} (one of ${names.join(", ")})`);
    align.profile = v.profile;
  }
  return align;
}
