/** W&B history reader: complete, unsampled history over the public GraphQL API. Re-exports only. */
export { connectWandb, type WandbConnection, type WandbReaderOptions } from "./connection";
export { type ApiKeyOptions, DEFAULT_BASE_URL, netrcApiKey, type NetrcEntry, parseNetrc, resolveApiKey, resolveBaseUrl, resolveNetrcPath } from "./credentials";
export { describeExportUrl, downloadExportFile, ExpiredExportUrl, type ExportFileRef, isWholeParquet } from "./download-export";
export { DEFAULT_CONCURRENCY, type FetchedRun, fetchRuns, type FetchRunsOptions } from "./fetch-runs";
export { type GraphqlOperation, graphqlRequest, redactKey } from "./graphql-request";
export { checkConcurrency, mapConcurrent } from "./map-concurrent";
export {
  type DroppedKeyCounts,
  HistoryRowParseError,
  nonFiniteValue,
  parseExtendedJson,
  parseHistoryPage,
  parseHistoryRow,
  preview,
  quoteNonFiniteTokens,
  toNumericRow,
} from "./parse-history-row";
export { type ExportColumn, type ExportFile, type ExportLines, exportRowToNumeric, openExportFile, readExportLines, readExportRows } from "./parquet-rows";
export { HISTORY_PAGE_QUERY, PARQUET_HISTORY_QUERY, RUN_CONFIG_QUERY, RUN_QUERY } from "./queries";
export {
  checkHistoryPath,
  HISTORY_PATH_CHOICES,
  type HistoryPathChoice,
  type HistoryPathTaken,
  type HistoryReadResult,
  type HistorySnapshot,
  listParquetHistory,
  MAX_URL_REFRESHES,
  type ParquetListing,
  readHistory,
  type ReadHistoryOptions,
} from "./read-history";
export { readRunConfig } from "./read-run-config";
export { lastStepOf, readRunMeta, runPath, type RunRef } from "./read-run-meta";
export { DEFAULT_READER_LIMITS, type ReaderLimits, resolveReaderLimits } from "./reader-limits";
export {
  abortableSleep,
  type AttemptFailure,
  backoffMs,
  decideRetry,
  DEFAULT_RETRY_POLICY,
  type HeaderSource,
  NO_RETRY_STATUS,
  parseRateLimitReset,
  parseRetryAfter,
  rateLimitPauseMs,
  rateLimitWaitMs,
  resolveRetryPolicy,
  type RetryDecision,
  type RetryPolicy,
} from "./retry-policy";
export { checkPageSize, DEFAULT_PAGE_SIZE, historyWindows, scanHistory, type ScanHistoryOptions, type ScanResult, sortedCounts } from "./scan-history";
export { READER_VERSION, USER_AGENT } from "./version";
export { formatWandbError, WandbError, type WandbErrorInfo } from "./wandb-error";
