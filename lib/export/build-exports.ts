/**
 * The export set of an aligned archive, as text: rollouts.csv, updates.csv, summary.csv, health.csv
 * and the export manifest. Pure apart from reading the workspace version (package.json) when not given.
 */
import { createHash } from "node:crypto";

import { defaultHealthParams, type HealthParams } from "../health/health-params";
import { runHealthChecks, type HealthReport } from "../health/run-health-checks";
import type { AlignedRuns, Archive, Reporter } from "../types";
import { csvText, streamed, type AnyTable, type ExportTable } from "./csv-text";
import {
  CELL_CONVENTIONS,
  EXPORT_MANIFEST_FILE,
  EXPORT_MANIFEST_KIND,
  FILE_DESCRIPTIONS,
  exportSourceRuns,
  parquetFileDescription,
  exportSuperseded,
  serializeExportManifest,
  summaryColumnEntry,
  type ExportFileEntry,
  type ExportProfile,
  type ExportManifest,
} from "./export-manifest";
import { assertMappingHolds, blockingIssues } from "../align/issues";
import { HEALTH_FILE, healthTable } from "./health-table";
import type { StreamedTable } from "./packed-table";
import { parquetCreatedBy, parquetFiles, type ParquetLayout } from "./parquet-file";
import { rolloutsTable, supersededTable, updatesTable, ROLLOUTS_FILE, UPDATES_FILE } from "./record-tables";
import { meaningNotes, metricOfAligned, profileOfAligned } from "../registry/profiles";
import { SUMMARY_FILE, summaryTable, type SummaryExport } from "./summary-table";
import { unfilledCells } from "./filled-cells";
import { workspaceVersion as readWorkspaceVersion } from "./workspace-version";

/** One file of the export set, in memory. */
export interface ExportFile {
  /** Path inside the export folder: a plain name, or `folder/...` for the files of a hive layout. */
  name: string;
  text: string;
  /** Binary content (Parquet); `text` is then empty. */
  bytes?: Uint8Array;
}

/** The export set: files in writing order (CSVs, then manifest.json) and the manifest object. */
export interface ExportBuild {
  files: ExportFile[];
  manifest: ExportManifest;
  /** The health report written to health.csv. */
  health: HealthReport;
}

/** Options of {@link buildExports}. */
export interface BuildExportsOptions {
  /** Receives the diagnostics' warnings (excluded NaN / ±Infinity values). */
  reporter?: Reporter;
  /** Version written to the manifest. Default: the workspace package.json version. */
  workspaceVersion?: string;
  /** Build the exports although the axis mapping does not hold for some run (recorded in the manifest). Default false: refuse. */
  allowIssues?: boolean;
  /** Thresholds of the health checks (health.csv). Default: the declared defaults. */
  health?: HealthParams;
  /** Also write rollouts.csv and updates.csv as Parquet, in this layout. Default: CSV only (the manifest then lists no Parquet file). */
  parquet?: { layout: ParquetLayout };
  /**
   * The health report over these very records with `health`'s thresholds, when the caller already ran
   * it (a follow's snapshot analysis, lib/follow/poll-analysis.ts): health.csv is written from it
   * instead of running the checks a second time.
   */
  healthReport?: HealthReport;
  /**
   * Make summary.csv's table, and refuse on its unfilled cells, when it is first read rather than
   * now: writeExports starts the record tables' workers first, so at scale they print while it is
   * made. The refusal then comes from writing it, and the export folder is left as it was. Default false.
   */
  deferSummary?: boolean;
}

/** The manifest's profile entry of aligned runs. */
function exportProfile(aligned: AlignedRuns): ExportProfile {
  const p = profileOfAligned(aligned);
  return {
    name: p.name,
    label: p.label,
    how: aligned.profile.how,
    evidence: aligned.profile.evidence,
    stepAxis: p.stepAxis,
    updates: p.updates.note,
    aggregation: p.aggregation,
    restart: p.restart,
  };
}

/** sha256 hex of a text's UTF-8 bytes. */
export function sha256Text(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}

/** The tables written as Parquet too, when asked. */
const PARQUET_TABLES: readonly string[] = [ROLLOUTS_FILE, UPDATES_FILE];

/**
 * What an export writes, before any byte is formatted: the CSV tables in writing order (record tables
 * make their rows on demand), the Parquet files when asked, and the manifest once the files' hashes
 * are known. {@link buildExports} turns it into texts; writeExports streams it into files.
 */
export interface ExportPlan {
  /** CSV tables in writing order: rollouts, updates, summary, superseded, health (its checks run when it is first read). */
  tables: AnyTable[];
  /** Parquet files (after the CSVs), with their manifest entries. */
  parquet: { file: ExportFile; entry: ExportFileEntry }[];
  /** The manifest, given the CSV entries as written (sha256 and bytes), in table order. */
  manifest(csvEntries: ExportFileEntry[]): ExportManifest;
  /** The health report of health.csv (its checks run on the first read, of this or of that table). */
  readonly health: HealthReport;
}

/** The manifest entry of a CSV table written with this sha256 and size. */
export function csvEntry(table: AnyTable, sha256: string, bytes: number): ExportFileEntry {
  return { name: table.name, description: FILE_DESCRIPTIONS[table.name], sha256, bytes, rows: streamed(table).rowCount, columns: [...table.columns] };
}

/** Throws `invalid aligned: ...` unless the aligned runs are the source's runs in its order. */
function checkSameRuns(source: Pick<Archive, "manifest">, aligned: AlignedRuns): void {
  const sourceIds = source.manifest.runs.map((r) => r.runId);
  const alignedIds = aligned.runs.map((r) => r.runId);
  if (sourceIds.join("\n") !== alignedIds.join("\n")) {
    throw new Error(
      `invalid aligned: runs ${alignedIds.join(", ") || "(none)"} are not the archive's runs ${sourceIds.join(", ") || "(none)"} (align archive.runs)`,
    );
  }
}

/** The Parquet files of the record tables in `tables`, in the layout asked. */
function parquetPlan(tables: readonly AnyTable[], layout: ParquetLayout, workspaceVersion: string): ExportPlan["parquet"] {
  const out: ExportPlan["parquet"] = [];
  for (const t of tables) {
    if (!PARQUET_TABLES.includes(t.name)) continue;
    for (const f of parquetFiles(t, layout, parquetCreatedBy(workspaceVersion))) {
      out.push({
        file: { name: f.name, text: "", bytes: f.bytes },
        entry: {
          name: f.name,
          description: parquetFileDescription(t.name, layout),
          sha256: createHash("sha256").update(f.bytes).digest("hex"),
          bytes: f.bytes.byteLength,
          rows: f.rows,
          columns: f.columns,
        },
      });
    }
  }
  return out;
}

/**
 * Plans the export of an archive's alignment (`alignRuns(archive.runs)`); only the archive's manifest
 * is read, so its rows may be released once aligned. Throws `invalid aligned: ...` when the aligned
 * runs are not the archive's runs in its order, and refuses (see assertMappingHolds) unless allowed.
 */
export function planExports(source: Pick<Archive, "manifest">, aligned: AlignedRuns, opts: BuildExportsOptions = {}): ExportPlan {
  checkSameRuns(source, aligned);
  assertMappingHolds(aligned, { allowIssues: opts.allowIssues, what: "to export" });
  const summary = once(() => checkedSummary(aligned, opts));
  if (opts.deferSummary !== true) summary();
  // Run when health.csv is made, not here: writeExports starts the record tables' workers first, so
  // the checks run on this thread while they write.
  const health = once(() => opts.healthReport ?? runHealthChecks(aligned, opts.health ?? defaultHealthParams()));
  const tables: AnyTable[] = [
    rolloutsTable(aligned),
    updatesTable(aligned),
    deferredTable(SUMMARY_FILE, () => summary().table),
    supersededTable(aligned),
    deferredTable(HEALTH_FILE, () => healthTable(health())),
  ];
  const workspaceVersion = opts.workspaceVersion ?? readWorkspaceVersion();
  const parquet = opts.parquet ? parquetPlan(tables, opts.parquet.layout, workspaceVersion) : [];
  const m = source.manifest;
  const manifest = (csvEntries: ExportFileEntry[]): ExportManifest => ({
    kind: EXPORT_MANIFEST_KIND,
    formatVersion: 1,
    workspaceVersion,
    source: { kind: m.kind, formatVersion: m.formatVersion, readerVersion: m.readerVersion, runs: exportSourceRuns(m) },
    profile: exportProfile(aligned),
    axes: aligned.mapping,
    files: [...csvEntries, ...parquet.map((p) => p.entry)],
    cells: { ...CELL_CONVENTIONS },
    summaryColumns: summary().columns.map((c) => summaryColumnEntry(c, (concept) => metricOfAligned(aligned, concept))),
    summaryNotes: [...summary().notes, ...summary().unfilled.map((u) => `unfilled despite the frozen rows: ${u.message}`)],
    alignmentIssues: aligned.issues.map((x) => `${x.kind}: ${x.message}`),
    builtDespiteIssues: blockingIssues(aligned).length > 0,
    superseded: aligned.superseded.map(exportSuperseded),
    alignmentNotes: aligned.notes.map((x) => `${x.kind}: ${x.message}`),
    meaningNotes: meaningNotes(aligned),
  });
  return {
    tables,
    parquet,
    manifest,
    get health() {
      return health();
    },
  };
}

/**
 * summary.csv's table, refused (unless allowed) when it leaves cells unfilled that the frozen rows
 * could fill; with the unfilled cells, listed in the manifest when allowed.
 */
function checkedSummary(aligned: AlignedRuns, opts: BuildExportsOptions): SummaryExport & { unfilled: ReturnType<typeof unfilledCells> } {
  const summary = summaryTable(aligned, { reporter: opts.reporter, allowIssues: true });
  const unfilled = unfilledCells(summary.table, summary.columns, aligned, summary.notes);
  if (unfilled.length > 0 && !opts.allowIssues) {
    const more = unfilled.length > 1 ? ` (and ${unfilled.length - 1} more such cell(s))` : "";
    throw new Error(
      `refusing to export: ${unfilled[0].message}${more}. Nothing was written; pass allowIssues (CLI: --allow-issues) to export anyway (the manifest then lists these cells)`,
    );
  }
  return { ...summary, unfilled };
}

/** `make()` once, on the first call. */
function once<T>(make: () => T): () => T {
  let made: { value: T } | null = null;
  return () => {
    made ??= { value: make() };
    return made.value;
  };
}

/** A table made on first use (its header, size or a row asked), as a table of rows made on demand. */
function deferredTable(name: string, make: () => ExportTable): StreamedTable {
  const table = once(() => streamed(make()));
  return {
    name,
    get columns() {
      return table().columns;
    },
    get rowCount() {
      return table().rowCount;
    },
    row: (i) => table().row(i),
  };
}

/**
 * Builds the export files in memory from an archive and its alignment (`alignRuns(archive.runs)`):
 * the same bytes writeExports streams into files. Throws `invalid aligned: ...` when the aligned runs
 * are not the archive's runs in its order.
 * @example const { files } = buildExports(archive, alignRuns(archive.runs));
 */
export function buildExports(archive: Pick<Archive, "manifest">, aligned: AlignedRuns, opts: BuildExportsOptions = {}): ExportBuild {
  const plan = planExports(archive, aligned, opts);
  const files: ExportFile[] = [];
  const entries: ExportFileEntry[] = [];
  for (const t of plan.tables) {
    const text = csvText(t);
    files.push({ name: t.name, text });
    entries.push(csvEntry(t, sha256Text(text), Buffer.byteLength(text, "utf8")));
  }
  files.push(...plan.parquet.map((p) => p.file));
  const manifest = plan.manifest(entries);
  files.push({ name: EXPORT_MANIFEST_FILE, text: serializeExportManifest(manifest) });
  return { files, manifest, health: plan.health };
}
