/**
 * What to compare: arms of archive folders and an optional reference, from data/compare.json or
 * from `--arm NAME=DIR[,DIR...]` options; then the experiments loaded and the comparison written.
 * `{"arms": [{"name": "baseline", "archives": ["archives/base-s1", ...]}, ...], "reference":
 * "archives/paper", "seed": 0, "resamples": 50000, "corridor": {"ppoKl": {"rel": 0.5, "absFloor": 0.02}},
 * "axis": {"name": "update", "width": 100}}` (axis optional: round labels by default);
 * archive paths in the file are relative to the file's folder (`compare/n8-s1` in data/compare.json
 * is data/compare/n8-s1), and are written into the outputs as given.
 */
import { readFileSync } from "node:fs";
import * as path from "node:path";

import { CONCEPT_IDS, type ConceptId, type CorridorDefaults } from "../registry/concepts";
import type { Reporter } from "../types";
import { DEFAULT_RESAMPLES } from "./bootstrap";
import type { Arm, Comparison } from "./compare-arms";
import { AXIS_NAMES, compareAxis, ROUND_AXIS, type CompareAxis } from "./compare-axis";
import type { Experiment } from "./experiment";
import { CompareThreads } from "./compare-threads";
import { comparisonFiles, writeComparison } from "./write-comparison";

/** A comparison to run: arms of archive folders, a reference folder or null, seed, resamples, corridor overrides. */
export interface CompareSpec {
  /** Archive folders as written (they name the experiments in every output), read relative to `root`. */
  arms: { name: string; archives: string[] }[];
  root: string;
  reference: string | null;
  seed: number;
  resamples: number;
  corridor: Partial<Record<ConceptId, Partial<CorridorDefaults>>>;
  /** The axis experiments are lined up on (compare-axis.ts); absent: round labels. */
  axis?: CompareAxis;
}

/** The default seed of the bootstrap streams. */
export const DEFAULT_SEED = 0;

/** Throws `invalid <what>: <value>` unless v is a non-empty string. */
function text(v: unknown, what: string): string {
  if (typeof v !== "string" || v === "") throw new Error(`invalid ${what}: ${JSON.stringify(v)}`);
  return v;
}

/** Throws `invalid <what>: <value>` unless v is a non-negative integer (at least `min`). */
function count(v: unknown, what: string, min = 0): number {
  if (typeof v !== "number" || !Number.isSafeInteger(v) || v < min) throw new Error(`invalid ${what}: ${JSON.stringify(v)} (an integer >= ${min})`);
  return v;
}

/** The corridor overrides of a config: concept ids to {rel, absFloor}, each >= 0. */
function corridorOverrides(v: unknown, file: string): CompareSpec["corridor"] {
  if (v === undefined) return {};
  if (v === null || typeof v !== "object") throw new Error(`invalid corridor: ${JSON.stringify(v)} (in ${file})`);
  const out: CompareSpec["corridor"] = {};
  for (const [id, entry] of Object.entries(v as Record<string, unknown>)) {
    if (!(CONCEPT_IDS as readonly string[]).includes(id))
      throw new Error(`invalid corridor: ${id} is not a concept (one of ${CONCEPT_IDS.join(", ")}; in ${file})`);
    const e = (entry ?? {}) as Record<string, unknown>;
    const settings: Partial<CorridorDefaults> = {};
    for (const key of ["rel", "absFloor"] as const) {
      if (e[key] === undefined) continue;
      if (typeof e[key] !== "number" || !((e[key] as number) >= 0))
        throw new Error(`invalid corridor: ${id}.${key} = ${JSON.stringify(e[key])} (a number >= 0; in ${file})`);
      settings[key] = e[key] as number;
    }
    out[id as ConceptId] = settings;
  }
  return out;
}

/** The axis of a config: absent = round labels; `{"name": "update", "width": 100}` (or `"round"`). */
function axisOf(v: unknown, file: string): CompareAxis {
  if (v === undefined || v === "round") return ROUND_AXIS;
  const a = (v ?? {}) as Record<string, unknown>;
  if (typeof v !== "object" || v === null || typeof a.name !== "string" || (a.width !== undefined && typeof a.width !== "number"))
    throw new Error(`invalid axis: ${JSON.stringify(v)} ({"name": one of ${AXIS_NAMES.join(", ")}, "width": bin width}; in ${file})`);
  try {
    return compareAxis(a.name, (a.width as number | undefined) ?? null);
  } catch (e) {
    throw new Error(`${(e as Error).message} (in ${file})`);
  }
}

/**
 * A comparison spec from data/compare.json's text; its archive paths are read relative to `root`.
 * @example readCompareConfig(text, "data/compare.json", ".").arms[0].name // "baseline"
 */
export function readCompareConfig(json: string, file: string, root: string): CompareSpec {
  let cfg: Record<string, unknown>;
  try {
    cfg = JSON.parse(json) as Record<string, unknown>;
  } catch (e) {
    throw new Error(`invalid compare config: ${file} is not JSON (${(e as Error).message})`);
  }
  if (!Array.isArray(cfg.arms)) throw new Error(`invalid arms: ${JSON.stringify(cfg.arms)} (a list of {"name", "archives"}; in ${file})`);
  const arms = cfg.arms.map((a: Record<string, unknown>, i: number) => {
    const name = text(a?.name, `arms[${i}].name in ${file}`);
    if (!Array.isArray(a.archives) || a.archives.length === 0) throw new Error(`invalid arms: ${name} lists no archives (in ${file})`);
    return { name, archives: a.archives.map((d: unknown, j: number) => text(d, `arms[${i}].archives[${j}] in ${file}`)) };
  });
  const reference = cfg.reference === undefined || cfg.reference === null ? null : text(cfg.reference, `reference in ${file}`);
  return {
    arms,
    root,
    reference,
    seed: cfg.seed === undefined ? DEFAULT_SEED : count(cfg.seed, `seed in ${file}`),
    resamples: cfg.resamples === undefined ? DEFAULT_RESAMPLES : count(cfg.resamples, `resamples in ${file}`, 100),
    corridor: corridorOverrides(cfg.corridor, file),
    axis: axisOf(cfg.axis, file),
  };
}

/**
 * An arm from `NAME=DIR[,DIR...]`.
 * @example parseArmOption("base=a/s1,a/s2") // { name: "base", archives: ["a/s1", "a/s2"] }
 */
export function parseArmOption(option: string): { name: string; archives: string[] } {
  const eq = option.indexOf("=");
  const archives = eq > 0 ? option.slice(eq + 1).split(",") : [];
  if (eq <= 0 || archives.length === 0 || archives.some((d) => d === "")) throw new Error(`invalid --arm: ${option} (NAME=DIR[,DIR...])`);
  return { name: option.slice(0, eq), archives };
}

/** What {@link runComparison} did. */
export interface ComparisonRun {
  result: Comparison;
  arms: Arm[];
  reference: Experiment | null;
  /** What was written; empty when nothing was comparable. */
  files: { name: string; text: string }[];
}

/**
 * Load every archive of the spec (each once), compare, and write the files into `outDir`; nothing
 * is written when every concept is refused (`files` is then empty).
 * @example await runComparison(readCompareConfig(text, file, "."), "exports/compare")
 */
export async function runComparison(spec: CompareSpec, outDir: string, reporter: Reporter = {}): Promise<ComparisonRun> {
  const axis = spec.axis ?? ROUND_AXIS;
  // Each archive once; at scale on worker threads, the bootstrap too (lib/compare/compare-threads.ts).
  const dirs = [...new Set([...spec.arms.flatMap((a) => a.archives), ...(spec.reference === null ? [] : [spec.reference])])];
  const archives = dirs.map((dir) => ({ dir: path.resolve(spec.root, dir), label: dir }));
  const threads = CompareThreads.forArchives(archives, reporter);
  let arms: Arm[];
  let reference: Experiment | null;
  let result: Comparison;
  try {
    const experiments = await threads.loadExperiments(archives, axis);
    const byDir = new Map(dirs.map((d, i) => [d, experiments[i]]));
    arms = spec.arms.map((a) => ({ name: a.name, experiments: a.archives.map((d) => byDir.get(d)!) }));
    reference = spec.reference === null ? null : byDir.get(spec.reference)!;
    result = await threads.compareArms(arms, reference, { seed: spec.seed, resamples: spec.resamples, corridor: spec.corridor, axis, reporter });
  } finally {
    await threads.close();
  }
  // Every concept refused: header-only CSVs would read as a comparison, so nothing is written (and
  // the out folder keeps what it had); the caller says why from `result.refused`.
  if (result.columns.length === 0) return { result, arms, reference, files: [] };
  const files = comparisonFiles(arms, reference, result, { seed: spec.seed, resamples: spec.resamples });
  await writeComparison(outDir, files);
  return { result, arms, reference, files };
}

/** The spec's file: read, its archive paths relative to the file's folder. */
export function readCompareConfigFile(file: string): CompareSpec {
  return readCompareConfig(readFileSync(file, "utf8"), file, path.dirname(path.resolve(file)));
}
