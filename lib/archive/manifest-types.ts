/**
 * Types of the frozen archive, beside its manifest (manifest.ts): history rows, run metadata, the
 * source manifest and its runs, and a loaded archive. The stages after the archive (alignment,
 * exports) read these; nothing here depends on a stage after it.
 *
 * Value convention: inside the workspace a logged value is a JS `number`; NaN, Infinity and
 * -Infinity are kept as such. A key that was not logged in a row is ABSENT from the row object,
 * never 0, never null. (`null` from the JS SDK is read as NaN: it is how that SDK writes NaN.)
 */

/** A declared flag's value (lib/registry/semantic-flags.ts declares which flags exist). */
export type FlagValue = boolean | number | string;

/** A run's flags as frozen: each value with where it was read. */
export type RunFlags = Readonly<Record<string, { value: FlagValue; source: "config" | "stated" }>>;

/** Where a version was read: the run's `_wandb` config entry, a `.wandb` telemetry record, the run's requirements.txt, or stated by hand. */
export type VersionSource = "config" | "telemetry" | "requirements" | "stated";

/** A version as frozen, with where it was read (lib/registry/versions.ts says which packages). */
export type RunVersions = Readonly<Record<string, { value: string; source: VersionSource }>>;

/** One W&B history row, numeric keys only, plus `_step` (and usually `_runtime`, `_timestamp`). */
export type HistoryRow = Record<string, number>;

/** Run metadata as read from the W&B `Run` query (no config, no summary, no credentials). */
export interface RunMeta {
  entity: string;
  project: string;
  /** Short run id as seen in URLs (W&B field `name`). */
  runId: string;
  displayName: string | null;
  state: string;
  createdAt: string | null;
  heartbeatAt: string | null;
  /** Rows the server holds (W&B `historyLineCount`). */
  historyLineCount: number;
  /** Highest `_step` (from `historyKeys.lastStep`); -1 when the run has no history. */
  lastStep: number;
}

/** One run's frozen history as loaded from the archive. */
export interface RunHistory {
  runId: string;
  /** Round label given by the user in `data/runs.json`, e.g. "R0". */
  round: string;
  entity: string;
  project: string;
  state: string;
  rows: HistoryRow[];
  /**
   * The run's semantic flags (lib/registry/semantic-flags.ts) as frozen; absent when the archive
   * records none (flags unknown: metrics keep their default meaning).
   */
  flags?: RunFlags;
  /** Package versions the run records (lib/registry/versions.ts), as frozen; absent when none was recorded. */
  versions?: RunVersions;
  /**
   * "tensorboard" for a run frozen from TensorBoard event files: one row per step, every tag logged at
   * that step merged, and before a restart's re-logged steps the earlier file's values there (source
   * `restarts`); step profiles read it through their `tensorboard` declaration; absent for W&B runs.
   */
  sourceKind?: "tensorboard";
  /** The run's framework as the fetch decided it (manifest `profile`); absent in archives fetched before it was recorded. */
  profile?: RunProfile;
}

/** One run of the source manifest (`data/manifest.json`). */
export interface ManifestRun {
  entity: string;
  project: string;
  runId: string;
  round: string;
  state: string;
  /** History events = rows frozen (checked equal to the server's historyLineCount). */
  historyEvents: number;
  lastStep: number;
  createdAt: string | null;
  /** ISO time the run was read. */
  fetchedAt: string;
  /** Path of the frozen file relative to the archive folder, e.g. "history/abc123.jsonl". */
  file: string;
  sha256: string;
  bytes: number;
  /** Run label shown in the W&B UI (W&B `displayName`). Added by the archive writer. */
  displayName?: string | null;
  /** Non-numeric keys left out of the frozen file (media, strings, ...): key -> rows, keys sorted. */
  droppedKeys?: Record<string, number>;
  /** Set when the run was read from a local `.wandb` transaction log or TensorBoard event files instead of a server. */
  source?: ManifestSource | TensorboardSource;
  /**
   * Later `.wandb` logs of the same run id (the run resumed into its own id offline: each log is
   * written apart), in the order their processes started (`source` first), whatever order they were
   * given in. A log that restarts at `_step` 0 has its rows frozen with `_step` + `stepOffset`,
   * continuing the run's count of logging calls as W&B does when a run resumes online; one that starts
   * later (a framework's own step, as verl's) is kept as logged (`stepOffset` 0), so the frozen
   * `_step` may go back once per later log, at the checkpoint it resumed from.
   */
  resumedIn?: ResumedSource[];
  /**
   * How the history was read when not by `HistoryPage` windows alone: "parquet" (exported files) or
   * "parquet+pages" (exported files, then the live tail paged). Absent = pages.
   */
  historyPath?: "parquet" | "parquet+pages";
  /**
   * In a snapshot of a followed archive (`npm run follow`, docs/follow.md): the length and sha256 of
   * the part of this run's file the previous snapshot froze, which this file must start with.
   */
  frozenBefore?: FrozenPart;
  /**
   * The run's semantic flags read from its config (lib/registry/semantic-flags.ts: only declared
   * entries, typed); `{}` when the config was read and holds none of them. Absent: flags unknown.
   */
  flags?: RunFlags;
  /** Declared flags whose config value had the wrong type: dropped, by name, with the type expected and found. */
  flagsDropped?: Record<string, string>;
  /**
   * Package versions the run records (lib/registry/versions.ts: wandb, python, transformers, the
   * framework's), each with where it was read; absent when none was recorded.
   */
  versions?: RunVersions;
  /**
   * The run's framework, decided when it was frozen (lib/registry/detect-profile.ts decideRunProfiles):
   * its name, "detected" or "given", and the signature entries its keys match. Absent: not decided
   * (an archive of an older fetch, or a fetch that was not asked to decide); read by detecting then.
   */
  profile?: RunProfile;
}

/** The first `bytes` bytes of a frozen file and their sha256 (`ManifestRun.frozenBefore`). */
export interface FrozenPart {
  bytes: number;
  sha256: string;
}

/** Where a snapshot of a followed archive stands in its chain (docs/follow.md). */
export interface SnapshotInfo {
  /** 1 for the first snapshot written into the folder, then +1 per snapshot. */
  sequence: number;
  /** ISO time the poll that wrote it began. */
  takenAt: string;
  /** 1, then +1 each time a rewrite of logged history (a rewind, a resume in place, a deletion) starts a new lineage. */
  lineage: number;
  /** Why this lineage began (null for lineage 1). */
  lineageReason: string | null;
}

/** A later `.wandb` log of a run resumed into its own id, and the shift its `_step` got (see ManifestRun.resumedIn). */
export interface ResumedSource extends ManifestSource {
  stepOffset: number;
}

/** Where a run read without a server came from (a `.wandb` transaction log). */
export interface ManifestSource {
  kind: "wandb-file";
  /** File name of the transaction log, without its folder (no local paths in shared manifests). */
  file: string;
  /** sha256 and size of the transaction log as read. */
  sha256: string;
  bytes: number;
  /** SDK version that wrote the file, null when the file does not say. */
  sdkVersion: string | null;
  /** Exit code of the run's exit record, null when the file has none (state crashed). */
  exitCode: number | null;
  /** Where the file's end held no whole record (a killed run, or a copy cut short); absent when it ends whole. */
  tornTail?: { offset: number; bytes: number };
  /** Always null: no server was involved in reading this run. */
  server: null;
}

/** One TensorBoard event file a run was read from. */
export interface TensorboardSourceFile {
  /** File name without its folder (no local paths in shared manifests). */
  file: string;
  sha256: string;
  bytes: number;
  /** `file_version` of its first event ("brain.Event:2"), null when absent. */
  fileVersion: string | null;
  /** Events (records) read. */
  events: number;
  /** The end of the file that held no whole record (a killed writer), or null. */
  tornTail: { offset: number; bytes: number } | null;
}

/** A later event file of a run that re-logged steps an earlier file had logged (a restart from a checkpoint). */
export interface TensorboardRestart {
  /** The earlier file (its name in `files`). */
  file: string;
  /** The later file that re-logged its steps. */
  by: string;
  /** Lowest and highest step re-logged. */
  fromStep: number;
  toStep: number;
  /** Values of the earlier file re-logged (counted in `supersededValues` too). */
  values: number;
}

/**
 * Where a run read from TensorBoard event files came from (lib/tensorboard/). Its frozen rows are one
 * per step (every tag logged at that step), `_step` the event step, `_timestamp` the latest wall time
 * of the step: not one per logging call as W&B's; a restart's re-logged values add rows (`restarts`).
 */
export interface TensorboardSource {
  kind: "tensorboard";
  /** The event files of the run, in the order read (file-name order). */
  files: TensorboardSourceFile[];
  /** Scalar values read, before superseding. */
  scalarValues: number;
  /** Scalar values superseded: a later value of the same tag at the same or an earlier step (a restart re-logging). */
  supersededValues: number;
  /**
   * The restarts found at fetch: a later file re-logged steps of an earlier one. Their earlier values
   * are frozen before the re-logged steps, so the frozen `_step` goes back once per restart, as a
   * W&B run resumed in place does, and alignment supersedes the records (the same rule for every
   * source). Absent when no file re-logged another's steps (and in archives frozen before it was kept).
   */
  restarts?: TensorboardRestart[];
  /** Non-scalar summaries left out, by kind (histogram, image, audio, text, a plugin name, tensor): values, kinds sorted. */
  droppedSummaries: Record<string, number>;
  /** Always null: no server was involved in reading this run. */
  server: null;
}

/** The source manifest of a frozen archive. */
export interface SourceManifest {
  kind: "wandb-frozen-history";
  formatVersion: 1;
  readerVersion: string;
  pageSize: number;
  /** Set in a followed archive's snapshots (npm run follow): this snapshot's place in the chain. */
  snapshot?: SnapshotInfo;
  /** Set with `snapshot`: sha256 of the previous snapshot's manifest bytes, null for the first. */
  previous?: string | null;
  /** Runs in the order the user listed them (round order). */
  runs: ManifestRun[];
}

/** A loaded, hash-verified archive. */
export interface Archive {
  dir: string;
  manifest: SourceManifest;
  runs: RunHistory[];
  /** sha256 of manifest.json's bytes as loaded (set by loadArchive; names the frozen data compared). */
  manifestSha256?: string;
}

/**
 * A framework profile as decided for runs (lib/registry/detect-profile.ts): a run's when it was frozen
 * (`ManifestRun.profile`), or the one an alignment read its runs with (`AlignedRuns.profile`).
 */
export interface RunProfile {
  name: string;
  /** "detected" from the runs' keys, or "given" (data/runs.json "profile", CLI --profile). */
  how: "detected" | "given";
  /** The profile's signature entries the keys match (empty when given). */
  evidence: string[];
}
