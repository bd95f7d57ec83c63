/** CSV exports of aligned runs (rollouts, updates, summary) and their manifest. Re-exports only. */
export { type ExportCell, formatCell, NON_FINITE_CELLS, parseNumberCell } from "./export-cell";
export { type AnyTable, csvByteChunks, csvField, csvText, type ExportTable, streamed, tableRows } from "./csv-text";
export { EXPORT_TEXT_COLUMNS, type ExportCsv, readExportCsv, readExportCsvFile, type ReadExportCsvOptions } from "./read-export-csv";
export {
  ROLLOUT_AXIS_COLUMNS,
  ROLLOUTS_FILE,
  rolloutsTable,
  SUPERSEDED_COLUMNS,
  SUPERSEDED_FILE,
  supersededTable,
  UPDATE_AXIS_COLUMNS,
  UPDATES_FILE,
  updatesTable,
} from "./record-tables";
export {
  ALL_ROUNDS,
  SUMMARY_FILE,
  type SummaryColumn,
  summaryColumnsFor,
  type SummaryExport,
  type SummaryMeanColumn,
  type SummaryPlainColumn,
  type SummaryRowSource,
  summaryTable,
  type SummaryTableOptions,
} from "./summary-table";
export { HEALTH_COLUMNS, HEALTH_FILE, healthTable } from "./health-table";
export {
  CELL_CONVENTIONS,
  EXPORT_MANIFEST_FILE,
  EXPORT_MANIFEST_KIND,
  type ExportFileEntry,
  type ExportManifest,
  type ExportProfile,
  exportSourceRun,
  type ExportSourceRun,
  exportSourceRuns,
  exportSuperseded,
  type ExportSuperseded,
  FILE_DESCRIPTIONS,
  FLAGS_UNKNOWN,
  parquetFileDescription,
  serializeExportManifest,
  summaryColumnEntry,
  type SummaryColumnEntry,
} from "./export-manifest";
export { workspaceRootOf, workspaceVersion } from "./workspace-version";
export { buildExports, type BuildExportsOptions, csvEntry, type ExportBuild, type ExportFile, type ExportPlan, planExports, sha256Text } from "./build-exports";
export { serializeExportResult, writeOrReuseExports } from "./reused-exports";
export { type FileToWrite, STAGING_PREFIX, writeFilesAtomically, type WriteFilesOptions } from "./write-files-atomically";
export {
  checkExportDirs,
  type ExportResult,
  loadAndAlign,
  PARQUET_OUTPUTS,
  writeExports,
  type WriteExportsOptions,
  writePlannedExports,
} from "./write-exports";
