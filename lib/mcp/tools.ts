/**
 * The tools the server offers and the query command runs: name, what each answers, its input and
 * output as JSON schemas (zod, as the MCP SDK takes them) and the function that answers it. One list,
 * so the MCP server and `npm run query` cannot answer differently.
 */
import { z } from "zod";

import { AXIS_NAMES } from "../compare/compare-axis";
import { PROFILE_NAMES } from "../registry/profiles";
import { compareAnswer } from "./tool-compare";
import { conceptsAnswer } from "./tool-concepts";
import { healthAnswer } from "./tool-health";
import { HISTORY_PAGE_MAX, historyAnswer } from "./tool-history";
import { runsAnswer } from "./tool-runs";
import { summaryAnswer } from "./tool-summary";
import type { ArchiveSet } from "./served-archive";

/** One tool: schemas as zod shapes, and its answer (input already validated against `input`). */
export interface ToolDef {
  name: string;
  title: string;
  description: string;
  input: z.ZodRawShape;
  output: z.ZodRawShape;
  answer(set: ArchiveSet, input: Record<string, unknown>): object;
}

const cell = z.union([z.number(), z.string(), z.null()]);
const table = z.object({ columns: z.array(z.string()), rows: z.array(z.array(cell)) });
const sha = z.string().regex(/^[0-9a-f]{64}$/);
const archiveArg = z.string().optional().describe("archive name as the runs tool lists it (default: the only archive)");
const axisArg = z.enum(AXIS_NAMES).optional().describe("round (default), or bins of rollout id, update, tokens or wall seconds (needs binWidth)");
const binWidthArg = z.number().positive().optional().describe("bin width in the axis's unit (not with round)");
const setting = z.object({ value: z.union([z.boolean(), z.number(), z.string()]), source: z.string() });

const runEntry = z.object({
  runId: z.string(),
  round: z.string(),
  state: z.string(),
  displayName: z.string().nullable(),
  rows: z.number().int(),
  lastStep: z.number(),
  file: z.string(),
  sha256: sha,
  bytes: z.number().int(),
  flags: z.record(z.string(), setting).nullable(),
  versions: z.record(z.string(), z.object({ value: z.string(), source: z.string() })).nullable(),
  versionBounds: z.array(z.object({ key: z.string(), package: z.string(), atLeast: z.string().optional(), below: z.string().optional() })),
});

const conceptEntry = z.object({
  id: z.string(),
  label: z.string(),
  unit: z.string(),
  direction: z.string(),
  concept: z.string(),
  key: z.string().nullable(),
  absent: z.string().nullable(),
  grain: z.string().nullable(),
  is: z.string().nullable(),
  isNot: z.string().nullable(),
  aliases: z.array(z.object({ key: z.string(), until: z.string(), note: z.string() })),
});

const columnMeaning = z.object({
  name: z.string(),
  kind: z.string(),
  description: z.string(),
  key: z.string().optional(),
  label: z.string().optional(),
  unit: z.string().optional(),
  grain: z.string().optional(),
  over: z.string().optional(),
  is: z.string().optional(),
  isNot: z.string().optional(),
});

const measured = z.object({
  classes: z.array(z.string()),
  faultRuns: z.number(),
  caught: z.number(),
  medianDelay: z.number().nullable(),
  medianVisibleDelay: z.number().nullable(),
  falseAlarms: z.number(),
  healthyValues: z.number(),
  recall: z.number().nullable(),
  falseAlarmRate: z.number().nullable(),
});

const flagEntry = z.object({
  round: z.string(),
  runId: z.string(),
  unit: z.string(),
  first: z.number(),
  last: z.number(),
  count: z.number().int(),
  key: z.string(),
  value: cell,
});

const checkEntry = z.object({
  check: z.string(),
  severity: z.string(),
  status: z.string(),
  rule: z.string(),
  params: z.array(z.object({ name: z.string(), value: z.number(), source: z.string() })),
  is: z.string(),
  isNot: z.string(),
  reason: z.string().nullable(),
  evidence: z.string().nullable(),
  measured: measured.nullable(),
  measuredText: z.string().nullable(),
  flags: z.array(flagEntry),
});

const refusalList = z.array(z.object({ concept: z.string(), sides: z.array(z.string()), reason: z.string() }));

/** Every tool, in the order they are listed. Longer than 60 lines on purpose: the declared list, one entry per tool. */
export const TOOLS: readonly ToolDef[] = [
  {
    name: "runs",
    title: "Archives and runs",
    description:
      "The frozen archives this server reads and their runs: id, round, state, framework, rows (= lines of the history file), declared settings, versions, each history file's sha256 and the manifest's sha256. Start here.",
    input: { archive: archiveArg },
    output: {
      archives: z.array(
        z.object({
          archive: z.string(),
          manifestSha256: sha,
          framework: z.string(),
          frameworkHow: z.string(),
          frameworkEvidence: z.array(z.string()),
          mappingHolds: z.boolean(),
          blockingIssues: z.array(z.string()),
          runs: z.array(runEntry),
        }),
      ),
    },
    answer: (set, input) => runsAnswer(set, input),
  },
  {
    name: "concepts",
    title: "Concepts and their meaning",
    description:
      "For a framework, or for an archive (its runs' settings applied): each concept's key, unit, which way is better, what the number is and is not; the conditional meanings declared, and which hold in the archive.",
    input: {
      framework: z
        .enum(PROFILE_NAMES as [string, ...string[]])
        .optional()
        .describe("a framework alone, without an archive"),
      archive: archiveArg,
    },
    output: {
      framework: z.string(),
      archive: z.string().nullable(),
      manifestSha256: sha.nullable(),
      concepts: z.array(conceptEntry),
      conditionalMeanings: z.array(
        z.object({
          condition: z.string(),
          concept: z.string().nullable(),
          check: z.string().nullable(),
          key: z.string().nullable(),
          is: z.string(),
          evidence: z.string().nullable(),
        }),
      ),
      holdingInArchive: z.array(z.string()),
    },
    answer: (set, input) => conceptsAnswer(set, input),
  },
  {
    name: "summary",
    title: "Summary cells (summary.csv)",
    description:
      "The cells of summary.csv exactly as `npm run export` computes them: one row per round, then `all` (every record of every round, not a mean of round means); or bins of an axis as `npm run compare -- --axis` makes them. With each column's meaning and the export's notes. Refused when the export would refuse.",
    input: {
      archive: archiveArg,
      columns: z.array(z.string()).optional().describe("summary.csv column names, or concept ids (gradNorm: its mean columns), to keep (default all)"),
      rounds: z.array(z.string()).optional().describe("round or bin labels to keep, `all` included (default all)"),
      axis: axisArg,
      binWidth: binWidthArg,
    },
    output: {
      archive: z.string(),
      manifestSha256: sha,
      framework: z.string(),
      axis: z.object({ name: z.string(), width: z.number().nullable(), unit: z.string().nullable() }),
      columns: z.array(z.string()),
      rows: z.array(z.array(cell)),
      meanings: z.array(columnMeaning),
      notes: z.array(z.string()),
      meaningNotes: z.array(z.string()),
    },
    answer: (set, input) => summaryAnswer(set, input),
  },
  {
    name: "history",
    title: "Frozen history rows",
    description: `A run's frozen rows exactly as its history file holds them, never sampled: row i is line i + 1, NaN/Infinity as the file writes them. Optional keys (rows holding none are left out; _step always kept) and an inclusive _step range. Paged: up to ${HISTORY_PAGE_MAX} rows (and 8 MiB of JSON) a page; pass nextCursor back until it is null. Each page cites the file's sha256 and its lines.`,
    input: {
      archive: archiveArg,
      run: z.string().optional().describe("run id (default: the only run)"),
      keys: z.array(z.string()).optional().describe("keys to return (default: every key)"),
      fromStep: z.number().optional().describe("first _step (inclusive)"),
      toStep: z.number().optional().describe("last _step (inclusive)"),
      limit: z.number().int().min(1).max(HISTORY_PAGE_MAX).optional().describe("rows per page (default 1000)"),
      cursor: z.string().optional().describe("nextCursor of the previous page (it carries run, keys and range)"),
    },
    output: {
      archive: z.string(),
      manifestSha256: sha,
      run: z.string(),
      round: z.string(),
      file: z.string(),
      fileSha256: sha,
      fileLines: z.number().int(),
      keys: z.array(z.string()).nullable(),
      fromStep: z.number().nullable(),
      toStep: z.number().nullable(),
      lines: z.object({ first: z.number().int(), last: z.number().int() }),
      rows: z.array(z.object({ line: z.number().int(), values: z.record(z.string(), cell) })),
      nextCursor: z.string().nullable(),
    },
    answer: (set, input) => historyAnswer(set, input),
  },
  {
    name: "health",
    title: "Health flags with their rules",
    description:
      "Every health check on the archive, as health.csv holds its flags: status, the rule with its thresholds, what a flag is and is not (an observable diagnostic, never proof of a bug), and what the rule scored on real runs with injected failures (recall, false alarms).",
    input: {
      archive: archiveArg,
      check: z.string().optional().describe("one check by name"),
      round: z.string().optional().describe("flags of one round only"),
      flaggedOnly: z.boolean().optional().describe("only checks with flags"),
    },
    output: {
      archive: z.string(),
      manifestSha256: sha,
      recordNoun: z.string(),
      corpus: z.string(),
      flagCount: z.number().int(),
      checks: z.array(checkEntry),
    },
    answer: (set, input) => healthAnswer(set, input),
  },
  {
    name: "compare",
    title: "Compare arms of archives",
    description:
      "Arms of archives (e.g. seeds of one configuration) and an optional reference compared as `npm run compare` does: per arm mean and IQM with seeded bootstrap intervals, between arms probability of improvement and Welch's p beside its Holm adjustment over every test of the comparison (welch_p_holm: read it before calling one p-value a difference), against the reference a corridor. Columns whose meaning differs between archives are refused, naming both sides.",
    input: {
      arms: z
        .array(z.object({ name: z.string().min(1), archives: z.array(z.string()).min(1) }))
        .min(1)
        .describe("arms of archive names"),
      reference: z.string().optional().describe("archive name of the reference"),
      seed: z.number().int().min(0).optional(),
      resamples: z.number().int().min(100).optional().describe("bootstrap resamples (default 50000)"),
      axis: axisArg,
      binWidth: binWidthArg,
    },
    output: {
      archives: z.array(z.object({ archive: z.string(), manifestSha256: sha })),
      seed: z.number(),
      resamples: z.number(),
      axis: z.object({ name: z.string(), width: z.number().nullable() }),
      columns: z.array(z.string()),
      scopes: z.array(z.string()),
      compare: table,
      improvement: table,
      corridor: table.nullable(),
      refused: refusalList,
      refusedAgainstReference: refusalList,
    },
    answer: (set, input) => compareAnswer(set, input as never),
  },
];

/** The tool of a name; undefined when there is none. */
export function toolByName(name: string): ToolDef | undefined {
  return TOOLS.find((t) => t.name === name);
}
