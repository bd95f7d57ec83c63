/**
 * The export manifest (`exports/manifest.json`): the source runs (copied from the archive manifest),
 * every export file with its sha256, rows and columns, the axis mapping, the cell conventions and
 * the meaning of each summary column (from the metric schema). Deterministic bytes: no wall-clock
 * time (the only times are the source fetch times), fixed key order, 2-space indent, trailing newline.
 */
import type { ConceptId } from "../registry/concepts";
import type { MetricSpec } from "../registry/metric-spec";
import type { RunFlags } from "../registry/semantic-flags";
import type { AxisMapping, ManifestRun, RunAxis, SourceManifest, SupersededRecords } from "../types";
import { NON_FINITE_CELLS } from "./export-cell";
import { HEALTH_FILE } from "./health-table";
import { ROLLOUTS_FILE, SUPERSEDED_FILE, UPDATES_FILE } from "./record-tables";
import { ALL_ROUNDS, SUMMARY_FILE, type SummaryColumn } from "./summary-table";

/** File name of the export manifest. */
export const EXPORT_MANIFEST_FILE = "manifest.json";

/** Kind tag of an export manifest. */
export const EXPORT_MANIFEST_KIND = "rl-run-diagnostics-exports";

/**
 * One source run: the fields of the archive manifest's run (lib/types.ts) that the export manifest
 * keeps, its semantic flags (FLAGS_UNKNOWN when no config was read) and its recorded versions.
 */
export type ExportSourceRun = Pick<
  ManifestRun,
  "entity" | "project" | "runId" | "round" | "state" | "historyEvents" | "lastStep" | "fetchedAt" | "file" | "sha256" | "versions"
> & { flags: RunFlags | typeof FLAGS_UNKNOWN };

/** A source run's `flags` when no config was read (an old archive, TensorBoard without hparams). */
export const FLAGS_UNKNOWN = "unknown: no config was read, so every metric keeps its default meaning (state them with --flag RUN_ID:NAME=VALUE)";

/** One exported file (a CSV, or a Parquet file when asked). */
export interface ExportFileEntry {
  name: string;
  /** What one row is and how rows are ordered. */
  description: string;
  sha256: string;
  bytes: number;
  /** Data rows (the header line not counted). */
  rows: number;
  /** The header, in order. */
  columns: string[];
}

/** Meaning of one summary column. */
export interface SummaryColumnEntry {
  name: string;
  kind: SummaryColumn["kind"];
  description: string;
  /** W&B key the column is about (schema entry), absent for labels and counts. */
  key?: string;
  label?: string;
  unit?: string;
  /** Schema grain of the key. */
  grain?: string;
  /** Records the round mean is taken over. */
  over?: string;
  /** What the metric is (schema). */
  is?: string;
  /** What it is not (schema reading rule). */
  isNot?: string;
}

/** The export manifest. */
export interface ExportManifest {
  kind: typeof EXPORT_MANIFEST_KIND;
  formatVersion: 1;
  /** package.json version of the workspace that wrote the exports. */
  workspaceVersion: string;
  source: { kind: SourceManifest["kind"]; formatVersion: SourceManifest["formatVersion"]; readerVersion: string; runs: ExportSourceRun[] };
  /** The framework profile the runs were read with (lib/registry) and how it was decided. */
  profile: ExportProfile;
  axes: AxisMapping;
  files: ExportFileEntry[];
  cells: Record<string, string>;
  summaryColumns: SummaryColumnEntry[];
  /** Notes of the summary means: empty rounds, keys not logged, NaN / ±Infinity values excluded. */
  summaryNotes: string[];
  /** Coverage and alignment issues found in the source (empty when coverage is complete). */
  alignmentIssues: string[];
  /** True when the export was built although the axis mapping does not hold (--allow-issues). */
  builtDespiteIssues: boolean;
  /** What later loggings replaced (rows of superseded.csv, summarised per run and replacing run). */
  superseded: ExportSuperseded[];
  /** What alignment found and handled: flags converted, N per run, critic rows, a crashed run's last rollout. */
  alignmentNotes: string[];
  /**
   * Meanings the runs' flags and versions make hold, or may make hold (lib/registry meaningNotes):
   * a concept's other rule, a check not applicable, a key's note. Empty when none does.
   */
  meaningNotes: string[];
}

/** The framework profile in the manifest: what it is, and the keys that decided it. */
export interface ExportProfile {
  name: string;
  label: string;
  how: "detected" | "given";
  evidence: string[];
  stepAxis: string;
  updates: string;
  aggregation: string;
  restart: string;
}

/** One superseded group in the manifest: counts and the message; the ids are in superseded.csv. */
export type ExportSuperseded = Pick<SupersededRecords, "runId" | "round" | "byRunId" | "byRound" | "evals" | "rows" | "message"> & {
  rollouts: number;
  updates: number;
};

/** A superseded group as the manifest keeps it (fixed key order). */
export function exportSuperseded(s: SupersededRecords | ExportSuperseded): ExportSuperseded {
  return {
    runId: s.runId,
    round: s.round,
    byRunId: s.byRunId,
    byRound: s.byRound,
    rollouts: typeof s.rollouts === "number" ? s.rollouts : s.rollouts.length,
    updates: typeof s.updates === "number" ? s.updates : s.updates.length,
    evals: s.evals,
    rows: s.rows,
    message: s.message,
  };
}

/** A run's axis as the manifest keeps it (fixed key order). */
function exportRunAxis(a: RunAxis): RunAxis {
  return {
    runId: a.runId,
    round: a.round,
    n: a.n,
    alwaysUseTrainStep: a.alwaysUseTrainStep,
    flagEvidence: a.flagEvidence,
    firstRollout: a.firstRollout,
    updateBase: a.updateBase,
    formula: a.formula,
  };
}

/** What one row of each CSV is. */
export const FILE_DESCRIPTIONS: Readonly<Record<string, string>> = {
  [ROLLOUTS_FILE]:
    "one row per rollout batch the round owns (the history rows of one rollout id, merged), sorted by rollout; round, run_id, rollout (the rollout id; rollout/step is kept as logged), then every W&B key found in any batch (rollout/*, perf/*, multi_turn/*, passrate/*, others), as logged, keys in code-unit order",
  [UPDATES_FILE]:
    "one row per optimizer update (one train/step) the round owns, sorted by display update number; round, run_id, update, train_step, rollout, update_in_rollout (see axes), then every W&B key found in any update (train/*, and train/critic-* of a critic row of the same train/step), as logged, keys in code-unit order",
  [SUPERSEDED_FILE]:
    "one row per rollout record, per update and per eval row that a later logging of the same rollouts replaced (a restarted round, or a run resumed in place), in run order (record rollout, update, then eval); excluded from every other file; update is the display number under the superseded run's own formula; an eval row's rollout is the rollout id (or step) it evaluated",
  [SUMMARY_FILE]: `one row per round in run order, then a row "${ALL_ROUNDS}" computed from every record of every round (not a mean of round means); see summaryColumns`,
  [HEALTH_FILE]:
    "one row per health flag (an observable diagnostic, never proof of a bug), in check order, then round order, then first; first/last are display update numbers (unit update) or rollout ids (unit rollout), count the records in the range that fired the rule, value the most extreme value of the range (empty when the flag is about an absence), rule the check's rule with the thresholds used",
};

/**
 * What a Parquet file of the export holds: the rows of `csvName` (all of them, or one round's in a hive
 * layout), same columns, typed.
 */
export function parquetFileDescription(csvName: string, layout: "flat" | "hive"): string {
  const rows =
    layout === "flat"
      ? `the rows of ${csvName} in the same order, the same columns`
      : `the rows of ${csvName} of one round, in the same order (round=<label> in the path, not a column of the file: readers add it from the path), the other columns`;
  return `${rows}, as Parquet: round and run_id strings, rollout, update, train_step and update_in_rollout int64, every other column float64 (NaN and ±Infinity as IEEE values, null where the CSV cell is empty)`;
}

/** How cells are written in every CSV. */
export const CELL_CONVENTIONS: Readonly<Record<string, string>> = {
  empty: "no record, or the key was not logged in that record (never 0); in a mean column: no finite value to average",
  [NON_FINITE_CELLS.nan]: "the logged value was NaN",
  [NON_FINITE_CELLS.posInf]: "the logged value was +Infinity",
  [NON_FINITE_CELLS.negInf]: "the logged value was -Infinity",
  numbers: "shortest decimal text that reads back to the same IEEE-754 double (JavaScript String(x), e.g. 1e-7); never rounded",
  text: "RFC 4180 CSV, comma-separated, fields quoted only when needed, UTF-8, \\n line endings, header line first, trailing newline",
};

/** Meaning of a summary column, from the metric schema for means, from the column's text otherwise. */
export function summaryColumnEntry(col: SummaryColumn, meaningOf?: (concept: ConceptId) => MetricSpec): SummaryColumnEntry {
  if (col.kind === "mean") {
    const { over, label, concept } = col.column;
    // The rule the runs' flags make hold (metricOfAligned), when the caller knows the runs.
    const metric = col.column.metric !== null && concept !== undefined && meaningOf ? meaningOf(concept) : col.column.metric;
    if (metric === null) return { name: col.name, kind: col.kind, description: `empty: ${col.column.absent ?? "not logged by this framework"}`, label };
    return {
      name: col.name,
      kind: col.kind,
      description: `mean of ${metric.key} over the round's ${over} that logged it; NaN and ±Infinity values are excluded (see summaryNotes); the "${ALL_ROUNDS}" row averages every such record of all rounds`,
      key: metric.key,
      label,
      unit: metric.unit,
      grain: metric.grain,
      over,
      is: metric.is,
      isNot: metric.isNot,
    };
  }
  const entry: SummaryColumnEntry = { name: col.name, kind: col.kind, description: col.description };
  if (col.metric) {
    entry.key = col.metric.key;
    entry.label = col.metric.label;
    entry.unit = col.metric.unit;
    entry.grain = col.metric.grain;
    entry.is = col.metric.is;
    entry.isNot = col.metric.isNot;
  }
  return entry;
}

/** Source runs of the archive manifest, with the fields the export manifest keeps, in run order. */
export function exportSourceRuns(source: SourceManifest): ExportSourceRun[] {
  return source.runs.map((r) => exportSourceRun({ ...r, flags: r.flags ?? FLAGS_UNKNOWN }));
}

/** One source run with exactly the kept fields, in a fixed key order (the manifest's bytes rely on it). */
export function exportSourceRun(r: ExportSourceRun): ExportSourceRun {
  return {
    entity: r.entity,
    project: r.project,
    runId: r.runId,
    round: r.round,
    state: r.state,
    historyEvents: r.historyEvents,
    lastStep: r.lastStep,
    fetchedAt: r.fetchedAt,
    file: r.file,
    sha256: r.sha256,
    flags: r.flags,
    ...(r.versions ? { versions: r.versions } : {}),
  };
}

/** Manifest bytes: fixed key order, 2-space indent, trailing newline. */
export function serializeExportManifest(m: ExportManifest): string {
  // Rebuilt field by field so that key order never depends on how the object was assembled.
  const ordered: ExportManifest = {
    kind: m.kind,
    formatVersion: m.formatVersion,
    workspaceVersion: m.workspaceVersion,
    source: {
      kind: m.source.kind,
      formatVersion: m.source.formatVersion,
      readerVersion: m.source.readerVersion,
      runs: m.source.runs.map(exportSourceRun),
    },
    profile: {
      name: m.profile.name,
      label: m.profile.label,
      how: m.profile.how,
      evidence: [...m.profile.evidence],
      stepAxis: m.profile.stepAxis,
      updates: m.profile.updates,
      aggregation: m.profile.aggregation,
      restart: m.profile.restart,
    },
    axes: {
      n: m.axes.n,
      r0: m.axes.r0,
      formulas: { update: m.axes.formulas.update, rollout: m.axes.formulas.rollout, updateInRollout: m.axes.formulas.updateInRollout },
      runs: m.axes.runs.map(exportRunAxis),
    },
    files: m.files.map((f) => ({ name: f.name, description: f.description, sha256: f.sha256, bytes: f.bytes, rows: f.rows, columns: [...f.columns] })),
    cells: { ...m.cells },
    summaryColumns: m.summaryColumns.map((c) => {
      const out: SummaryColumnEntry = { name: c.name, kind: c.kind, description: c.description };
      for (const k of ["key", "label", "unit", "grain", "over", "is", "isNot"] as const) if (c[k] !== undefined) out[k] = c[k];
      return out;
    }),
    summaryNotes: [...m.summaryNotes],
    alignmentIssues: [...m.alignmentIssues],
    builtDespiteIssues: m.builtDespiteIssues,
    superseded: m.superseded.map(exportSuperseded),
    alignmentNotes: [...m.alignmentNotes],
    meaningNotes: [...m.meaningNotes],
  };
  return JSON.stringify(ordered, null, 2) + "\n";
}
