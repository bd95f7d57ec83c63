/**
 * The reporter every stage reports through, and the shared data types re-exported from where they
 * live: the archive's beside its manifest (lib/archive/manifest-types.ts), alignment's beside the
 * aligner (lib/align/aligned-types.ts). Kept so that the many importers of lib/types.ts need not
 * change at once; new code may import from either home.
 */
export type {
  FlagValue,
  RunFlags,
  VersionSource,
  RunVersions,
  HistoryRow,
  RunMeta,
  RunHistory,
  ManifestRun,
  FrozenPart,
  SnapshotInfo,
  ResumedSource,
  ManifestSource,
  TensorboardSourceFile,
  TensorboardRestart,
  TensorboardSource,
  SourceManifest,
  Archive,
  RunProfile,
} from "./archive/manifest-types";
export type {
  VersionBound,
  RowKind,
  RunAxis,
  AxisMapping,
  UpdateRecord,
  AxisRecord,
  EvalRecord,
  CoverageIssue,
  SupersededRecords,
  KeyRows,
  AlignmentNote,
  RunCoverage,
  AlignedRuns,
  AxisAlignment,
} from "./align/aligned-types";

/**
 * Progress and warnings from lib go through a reporter the caller supplies (CLI, notebook, test);
 * lib never writes to the console.
 */
export interface Reporter {
  /** A long task made progress: `done` of `total` units (total may be unknown = null). */
  progress?(task: string, done: number, total: number | null): void;
  /** Something the user should read, analysis goes on. Tests count these. */
  warn?(message: string): void;
  /** Plain information (e.g. "working offline"). */
  info?(message: string): void;
}
