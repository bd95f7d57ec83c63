/** Frozen archive: freeze fetched history, load and verify it offline. Re-exports only. */
export { resolveClock } from "./clock";
export { fetchAndFreeze, type FetchAndFreezeOptions, freezeThreadCount, THREADED_MIN_ROWS } from "./fetch-and-freeze";
export { fromFiles, joinResumedLogs, type RunSelection, withStated } from "./run-selection";
export { readConfigFacts } from "./run-config-facts";
export { freezeWandbFileRun, type WandbFileSelection } from "./freeze-wandb-file";
export { type FrozenFileInfo, type FrozenFileState, FrozenFileWriter } from "./frozen-file-writer";
export { FrozenRowError, frozenRowSerializer, frozenValue, parseFrozenRow, parseFrozenRowWith, serializeFrozenRow } from "../values/frozen-row";
export {
  ArchiveChangedError,
  historyMetaOf,
  loadArchive,
  type LoadArchiveOptions,
  loadOrReport,
  readHistoryFile,
  readHistoryInto,
  type VerifiedFile,
  verifyArchive,
  type VerifyReport,
} from "./load-archive";
export {
  checkRunId,
  type FrozenEntry,
  frozenManifestRun,
  type FrozenRunIdentity,
  HISTORY_DIR,
  historyFile,
  MANIFEST_FILE,
  parseManifest,
  serializeManifest,
  SNAPSHOTS_DIR,
  sourceLabel,
} from "./manifest";
export { type ArchiveLock, archiveSiblings, checkArchiveDir, lockArchiveDir, replaceDirAtomically, type SpareCopy } from "./replace-dir";
export { readRunsConfig, type RunsConfig } from "./runs-config";
export { verifySnapshotChain } from "./snapshot-chain";
export type { Archive, HistoryRow, ManifestRun, RunHistory, RunMeta, SourceManifest } from "./manifest-types";
