/**
 * The `summary` tool: the cells of summary.csv as the export computes them (lib/export/summary-table.ts
 * on the archive kept open), by round with the `all` row, or by bins of an axis as `npm run compare
 * -- --axis` bins them; with each column's meaning and the notes the export manifest would carry.
 */
import { AXIS_MEANING, compareAxis } from "../compare/compare-axis";
import { comparedColumns } from "../compare/compared-columns";
import { summaryColumnEntry, type SummaryColumnEntry } from "../export/export-manifest";
import { ALL_ROUNDS, summaryColumnsFor } from "../export/summary-table";
import { metricOfAligned, meaningNotes, profileOfAligned } from "../registry/profiles";
import { type JsonCell, jsonCell } from "./json-cell";
import type { ArchiveSet, ServedArchive } from "./served-archive";

/** Input of the `summary` tool. */
export interface SummaryInput {
  archive?: string;
  /** summary.csv column names, or concept ids (`gradNorm`: its mean columns), to keep (default: every column); `round` always comes first. */
  columns?: string[];
  /** Round labels (or bin labels) to keep, `all` included (default: every row). */
  rounds?: string[];
  /** `round` (default), or an axis whose bins of `binWidth` replace the rounds: rollout, update, tokens, wall. */
  axis?: string;
  binWidth?: number;
}

/** The `summary` answer. */
export interface SummaryAnswer {
  archive: string;
  manifestSha256: string;
  framework: string;
  axis: { name: string; width: number | null; unit: string | null };
  /** Column names; the first is `round` (a round label, a bin label, or `all`). */
  columns: string[];
  /** One row per round (or bin), then `all`: cells in `columns` order, as summary.csv holds them. */
  rows: JsonCell[][];
  /** What each column is, as the export manifest says it (summaryColumns). */
  meanings: SummaryColumnEntry[];
  /** The export's notes: empty rounds, missing keys, excluded non-finite values; on a binned axis what was left out. */
  notes: string[];
  /** Declared settings of the runs that change a concept's reading (as the export manifest's meaningNotes). */
  meaningNotes: string[];
}

/** Refuses names that are not among `known`. */
function checkNames(a: ServedArchive, what: "unknown_column" | "unknown_round", asked: readonly string[] | undefined, known: readonly string[]): void {
  const bad = (asked ?? []).filter((x) => !known.includes(x));
  if (bad.length > 0) throw a.refuse(what, `no ${what === "unknown_column" ? "column" : "round"} ${bad.join(", ")}: the summary has ${known.join(", ")}`);
}

/** The asked columns as summary.csv names: a concept id stands for the mean columns of that concept (ppoKl: first and later updates). */
function columnNames(a: ServedArchive, asked: readonly string[] | undefined): string[] | undefined {
  if (asked === undefined) return undefined;
  const means = comparedColumns(profileOfAligned(a.opened.aligned));
  return asked.flatMap((name) => {
    const of = means.filter((c) => c.concept.id === name).map((c) => c.name);
    return of.length > 0 ? of : [name];
  });
}

/** The table narrowed to the asked columns and rows (round first, always). */
function narrowed(a: ServedArchive, columns: string[], rows: JsonCell[][], input: SummaryInput): { columns: string[]; rows: JsonCell[][] } {
  const asked = columnNames(a, input.columns);
  checkNames(a, "unknown_column", asked, columns);
  const scopes = rows.map((r) => String(r[0]));
  checkNames(a, "unknown_round", input.rounds, scopes);
  const keep = columns.map((c, i) => (i === 0 || asked === undefined || asked.includes(c) ? i : -1)).filter((i) => i >= 0);
  const kept = rows.filter((r) => input.rounds === undefined || input.rounds.includes(String(r[0])));
  return { columns: keep.map((i) => columns[i]), rows: kept.map((r) => keep.map((i) => r[i])) };
}

/** The summary by round: summary.csv's own table. */
function byRound(a: ServedArchive): { columns: string[]; rows: JsonCell[][]; notes: string[] } {
  const s = a.summary();
  return { columns: s.table.columns, rows: s.table.rows.map((r) => r.map(jsonCell)), notes: s.notes };
}

/** The summary by bins: each mean column's bin means (the comparison's cells), then the `all` row of summary.csv. */
function byBins(a: ServedArchive, name: string, width: number): { columns: string[]; rows: JsonCell[][]; notes: string[] } {
  let axis: ReturnType<typeof compareAxis>;
  try {
    axis = compareAxis(name, width);
  } catch (e) {
    throw a.refuse("invalid_argument", (e as Error).message);
  }
  const e = a.experiment(axis);
  const names = e.columns.map((c) => c.name);
  const rows = [...e.rounds, ALL_ROUNDS].map((scope) => [scope, ...names.map((n) => jsonCell(e.cells[n]?.[scope] ?? null))]);
  const notes = Object.entries(e.axisMissing).map(([col, why]) => `${col}: no ${axis.name} coordinate: ${why}`);
  if (e.unplaced > 0) notes.push(`${e.unplaced} record(s) have no ${axis.name} coordinate and are in no bin (the all row still counts them)`);
  return { columns: ["round", ...names], rows, notes };
}

/** The `summary` answer. */
export function summaryAnswer(set: ArchiveSet, input: SummaryInput): SummaryAnswer {
  const a = set.get(input.archive);
  const aligned = a.opened.aligned;
  const name = input.axis ?? "round";
  if (name === "round" && input.binWidth !== undefined) throw a.refuse("invalid_argument", "invalid binWidth: the round axis takes none");
  const table = name === "round" ? byRound(a) : byBins(a, name, input.binWidth ?? Number.NaN);
  const { columns, rows } = narrowed(a, table.columns, table.rows, input);
  const entries = summaryColumnsFor(profileOfAligned(aligned)).map((c) => summaryColumnEntry(c, (concept) => metricOfAligned(aligned, concept)));
  const unit = name === "round" ? null : AXIS_MEANING[name as keyof typeof AXIS_MEANING].unit;
  return {
    archive: a.name,
    manifestSha256: a.manifestSha256,
    framework: profileOfAligned(aligned).name,
    axis: { name, width: name === "round" ? null : (input.binWidth ?? null), unit },
    columns,
    rows,
    meanings: entries.filter((m) => columns.includes(m.name)),
    notes: table.notes,
    meaningNotes: meaningNotes(aligned),
  };
}
