/**
 * The export set of an aligned archive, as text: rollouts.csv, updates.csv, summary.csv, health.csv
 * and the export manifest. Pure apart from reading the workspace version (package.json) when not given.
 */
import { createHash } from "node:crypto";

import { defaultHealthParams, type HealthParams } from "../health/health-params";
import { runHealthChecks, type HealthReport } from "../health/run-health-checks";
import type { AlignedRuns, Archive, Reporter } from "../types";
import { csvText, type ExportTable } from "./csv-text";
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
import { assertMappingHolds, blockingIssues } from "../axes/coverage";
import { healthTable } from "./health-table";
import { parquetCreatedBy, parquetFiles, type ParquetLayout } from "./parquet-file";
import { rolloutsTable, supersededTable, updatesTable, ROLLOUTS_FILE, UPDATES_FILE } from "./record-tables";
import { profileOfAligned } from "../registry/profiles";
import { summaryColumnsFor, summaryTable } from "./summary-table";
import { workspaceVersion as readWorkspaceVersion } from "./workspace-version";

/** One file of the export set. */
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
}

/** The manifest's profile entry of aligned runs. */
function exportProfile(aligned: AlignedRuns): ExportProfile {
  const p = profileOfAligned(aligned);
  return {
    name: p.name,
    label: p.label,
    how: aligned.profile?.how ?? "given",
    evidence: aligned.profile?.evidence ?? [],
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
 * Builds the export files from an archive and its alignment (`alignRuns(archive.runs)`). Throws
 * `invalid aligned: ...` when the aligned runs are not the archive's runs in its order.
 * @example const { files } = buildExports(archive, alignRuns(archive.runs));
 */
export function buildExports(archive: Archive, aligned: AlignedRuns, opts: BuildExportsOptions = {}): ExportBuild {
  const sourceIds = archive.manifest.runs.map((r) => r.runId);
  const alignedIds = aligned.runs.map((r) => r.runId);
  if (sourceIds.join("\n") !== alignedIds.join("\n")) {
    throw new Error(
      `invalid aligned: runs ${alignedIds.join(", ") || "(none)"} are not the archive's runs ${sourceIds.join(", ") || "(none)"} (align archive.runs)`,
    );
  }
  assertMappingHolds(aligned, { allowIssues: opts.allowIssues, what: "to export" });
  const summary = summaryTable(aligned, { reporter: opts.reporter, allowIssues: true });
  const health = runHealthChecks(aligned, opts.health ?? defaultHealthParams());
  // One table at a time: a table's cells can be collected once its text exists.
  const makers: (() => ExportTable)[] = [
    () => rolloutsTable(aligned),
    () => updatesTable(aligned),
    () => summary.table,
    () => supersededTable(aligned),
    () => healthTable(health),
  ];
  const files: ExportFile[] = [];
  const entries: ExportFileEntry[] = [];
  // Parquet files follow the CSVs in the manifest; made while their table is alive.
  const parquet: ExportFile[] = [];
  const parquetEntries: ExportFileEntry[] = [];
  const workspaceVersion = opts.workspaceVersion ?? readWorkspaceVersion();
  for (const make of makers) {
    const t = make();
    const text = csvText(t);
    files.push({ name: t.name, text });
    entries.push({
      name: t.name,
      description: FILE_DESCRIPTIONS[t.name],
      sha256: sha256Text(text),
      bytes: Buffer.byteLength(text, "utf8"),
      rows: t.rows.length,
      columns: [...t.columns],
    });
    if (opts.parquet && PARQUET_TABLES.includes(t.name)) {
      for (const f of parquetFiles(t, opts.parquet.layout, parquetCreatedBy(workspaceVersion))) {
        parquet.push({ name: f.name, text: "", bytes: f.bytes });
        parquetEntries.push({
          name: f.name,
          description: parquetFileDescription(t.name, opts.parquet.layout),
          sha256: createHash("sha256").update(f.bytes).digest("hex"),
          bytes: f.bytes.byteLength,
          rows: f.rows,
          columns: f.columns,
        });
      }
    }
  }
  files.push(...parquet);
  entries.push(...parquetEntries);
  const source = archive.manifest;
  const manifest: ExportManifest = {
    kind: EXPORT_MANIFEST_KIND,
    formatVersion: 1,
    workspaceVersion,
    source: { kind: source.kind, formatVersion: source.formatVersion, readerVersion: source.readerVersion, runs: exportSourceRuns(source) },
    profile: exportProfile(aligned),
    axes: aligned.mapping,
    files: entries,
    cells: { ...CELL_CONVENTIONS },
    summaryColumns: summaryColumnsFor(profileOfAligned(aligned)).map(summaryColumnEntry),
    summaryNotes: summary.notes,
    alignmentIssues: aligned.issues.map((x) => `${x.kind}: ${x.message}`),
    builtDespiteIssues: blockingIssues(aligned).length > 0,
    superseded: aligned.superseded.map(exportSuperseded),
    alignmentNotes: aligned.notes.map((x) => `${x.kind}: ${x.message}`),
  };
  files.push({ name: EXPORT_MANIFEST_FILE, text: serializeExportManifest(manifest) });
  return { files, manifest, health };
}
