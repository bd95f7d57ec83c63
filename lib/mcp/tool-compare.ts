/**
 * The `compare` tool: arms of the server's archives (e.g. the seeds of one configuration) and a
 * reference compared as `npm run compare` compares archive folders (lib/compare/compare-arms.ts): the
 * rows of compare.csv, improvement.csv and corridor.csv, and what was refused and why.
 */
import { DEFAULT_RESAMPLES } from "../compare/bootstrap";
import { compareArms, type Comparison } from "../compare/compare-arms";
import { compareAxis } from "../compare/compare-axis";
import { DEFAULT_SEED } from "../compare/compare-config";
import type { ExportTable } from "../export/csv-text";
import { type JsonCell, jsonCell } from "./json-cell";
import { ToolRefusal } from "./refusal";
import type { ArchiveSet } from "./served-archive";

/** Input of the `compare` tool. */
export interface CompareInput {
  /** Arms of archive names (as the server names them: `--data NAME=DIR`). */
  arms: { name: string; archives: string[] }[];
  reference?: string;
  seed?: number;
  resamples?: number;
  /** `round` (default), or rollout, update, tokens, wall with `binWidth`. */
  axis?: string;
  binWidth?: number;
}

/** A table of the answer: its CSV's columns and rows. */
export interface AnswerTable {
  columns: string[];
  rows: JsonCell[][];
}

/** The `compare` answer. */
export interface CompareAnswer {
  /** Every archive compared, with its manifest's sha256. */
  archives: { archive: string; manifestSha256: string }[];
  seed: number;
  resamples: number;
  axis: { name: string; width: number | null };
  /** Compared columns (summary.csv's mean columns) and scopes (rounds or bins, then `all`). */
  columns: string[];
  scopes: string[];
  compare: AnswerTable;
  improvement: AnswerTable;
  /** Null without a reference. */
  corridor: AnswerTable | null;
  refused: { concept: string; sides: string[]; reason: string }[];
  refusedAgainstReference: { concept: string; sides: string[]; reason: string }[];
}

function tableOf(t: ExportTable): AnswerTable {
  return { columns: [...t.columns], rows: t.rows.map((r) => r.map(jsonCell)) };
}

function refusalsOf(list: Comparison["refused"]): CompareAnswer["refused"] {
  return list.map((r) => ({ concept: r.concept, sides: [...r.sides], reason: r.reason }));
}

/** The `compare` answer; refused when every column is (as `npm run compare` exits 1 then). */
export function compareAnswer(set: ArchiveSet, input: CompareInput): CompareAnswer {
  let axis: ReturnType<typeof compareAxis>;
  try {
    axis = compareAxis(input.axis ?? "round", input.binWidth ?? null);
  } catch (e) {
    throw new ToolRefusal("invalid_argument", (e as Error).message);
  }
  const names = [...new Set([...input.arms.flatMap((a) => a.archives), ...(input.reference === undefined ? [] : [input.reference])])];
  const served = names.map((n) => set.get(n));
  const byName = new Map(served.map((a) => [a.name, a.experiment(axis)]));
  const arms = input.arms.map((a) => ({ name: a.name, experiments: a.archives.map((n) => byName.get(n)!) }));
  const reference = input.reference === undefined ? null : byName.get(input.reference)!;
  const seed = input.seed ?? DEFAULT_SEED;
  const resamples = input.resamples ?? DEFAULT_RESAMPLES;
  const result = compareArms(arms, reference, { seed, resamples, axis });
  const refused = refusalsOf(result.refused);
  if (result.columns.length === 0)
    throw new ToolRefusal("nothing_comparable", `every column was refused: ${refused.map((r) => `${r.concept}: ${r.reason}`).join("; ")}`);
  return {
    archives: served.map((a) => ({ archive: a.name, manifestSha256: a.manifestSha256 })),
    seed,
    resamples,
    axis: { name: axis.name, width: axis.width },
    columns: result.columns,
    scopes: result.scopes,
    compare: tableOf(result.compare),
    improvement: tableOf(result.improvement),
    corridor: result.corridor === null ? null : tableOf(result.corridor),
    refused,
    refusedAgainstReference: refusalsOf(result.refusedAgainstReference),
  };
}
