/**
 * The archive manifest (`manifest.json`): its file layout, deterministic bytes (fixed key order,
 * 2-space indent, trailing newline) and validation when read back.
 */
import type { FrozenPart, ManifestRun, ManifestSource, SnapshotInfo, SourceManifest, TensorboardSource } from "../types";
import type { FrozenFileInfo } from "./frozen-file-writer";

/** Manifest file name inside an archive folder. */
export const MANIFEST_FILE = "manifest.json";

/** Folder of the per-run history files inside an archive folder. */
export const HISTORY_DIR = "history";

/** Folder of a followed archive's snapshot manifests (`snapshots/000001.json`, ...; docs/follow.md). */
export const SNAPSHOTS_DIR = "snapshots";

/** Run ids that are safe file names (W&B ids are [a-z0-9]; users may add - and _). */
const RUN_ID = /^[A-Za-z0-9][A-Za-z0-9_-]*$/;

/** Throws `invalid runId: <v>` unless the id is a safe file name. */
export function checkRunId(runId: string): string {
  if (typeof runId !== "string" || !RUN_ID.test(runId)) throw new Error(`invalid runId: ${JSON.stringify(runId)}`);
  return runId;
}

/** Archive-relative path of a run's frozen history, e.g. "history/abc123.jsonl". */
export function historyFile(runId: string): string {
  return `${HISTORY_DIR}/${checkRunId(runId)}.jsonl`;
}

/** One manifest run with keys in their fixed order. */
function orderedRun(r: ManifestRun): ManifestRun {
  const dropped: Record<string, number> = {};
  for (const key of Object.keys(r.droppedKeys ?? {}).sort()) dropped[key] = r.droppedKeys![key];
  const run: ManifestRun = {
    entity: r.entity,
    project: r.project,
    runId: r.runId,
    round: r.round,
    displayName: r.displayName ?? null,
    state: r.state,
    historyEvents: r.historyEvents,
    lastStep: r.lastStep,
    createdAt: r.createdAt,
    fetchedAt: r.fetchedAt,
    file: r.file,
    sha256: r.sha256,
    bytes: r.bytes,
    droppedKeys: dropped,
    // Only when not the default, so archives read by pages keep their bytes.
    ...(r.historyPath ? { historyPath: r.historyPath } : {}),
  };
  // Only runs read from files carry a source: server-run manifests keep their bytes.
  if (r.source) run.source = r.source.kind === "tensorboard" ? orderedTensorboardSource(r.source) : orderedSource(r.source);
  if (r.resumedIn) run.resumedIn = r.resumedIn.map((x) => ({ ...orderedSource(x), stepOffset: x.stepOffset }));
  // Only in a followed archive's snapshots.
  if (r.frozenBefore) run.frozenBefore = { bytes: r.frozenBefore.bytes, sha256: r.frozenBefore.sha256 };
  // Only where a config was read (absent: flags unknown), names sorted.
  if (r.flags) run.flags = sortedByName(r.flags, (f) => ({ value: f.value, source: f.source }));
  if (r.flagsDropped && Object.keys(r.flagsDropped).length > 0) run.flagsDropped = sortedByName(r.flagsDropped, (x) => x);
  if (r.versions && Object.keys(r.versions).length > 0) run.versions = sortedByName(r.versions, (v) => ({ value: v.value, source: v.source }));
  // Only where the fetch decided it: archives fetched without keep their bytes.
  if (r.profile) run.profile = { name: r.profile.name, how: r.profile.how, evidence: [...r.profile.evidence] };
  return run;
}

/** An object with its keys in code-unit order and each value through `f`. */
function sortedByName<T, U>(o: Readonly<Record<string, T>>, f: (v: T) => U): Record<string, U> {
  const out: Record<string, U> = {};
  for (const k of Object.keys(o).sort()) out[k] = f(o[k]);
  return out;
}

/** A run's file source with keys in their fixed order. */
function orderedSource(s: ManifestSource): ManifestSource {
  // tornTail only where the file ends torn: sources of whole files keep their bytes.
  const torn = s.tornTail ? { tornTail: { offset: s.tornTail.offset, bytes: s.tornTail.bytes } } : {};
  return { kind: s.kind, file: s.file, sha256: s.sha256, bytes: s.bytes, sdkVersion: s.sdkVersion, exitCode: s.exitCode, ...torn, server: null };
}

/** A run's TensorBoard source with keys in their fixed order. */
function orderedTensorboardSource(s: TensorboardSource): TensorboardSource {
  const dropped: Record<string, number> = {};
  for (const key of Object.keys(s.droppedSummaries).sort()) dropped[key] = s.droppedSummaries[key];
  return {
    kind: s.kind,
    files: s.files.map((f) => ({
      file: f.file,
      sha256: f.sha256,
      bytes: f.bytes,
      fileVersion: f.fileVersion,
      events: f.events,
      tornTail: f.tornTail === null ? null : { offset: f.tornTail.offset, bytes: f.tornTail.bytes },
    })),
    scalarValues: s.scalarValues,
    supersededValues: s.supersededValues,
    // Only where a file re-logged another's steps: sources without a restart keep their bytes.
    ...(s.restarts && s.restarts.length > 0
      ? { restarts: s.restarts.map((r) => ({ file: r.file, by: r.by, fromStep: r.fromStep, toStep: r.toStep, values: r.values })) }
      : {}),
    droppedSummaries: dropped,
    server: null,
  };
}

/**
 * How often a run's frozen `_step` may go back: once per later `.wandb` log of a run resumed into its
 * own id, once per restart found in its TensorBoard files; 0 for any other run.
 */
export function allowedGoBacks(run: Pick<ManifestRun, "resumedIn" | "source">): number {
  const restarts = run.source?.kind === "tensorboard" ? (run.source.restarts?.length ?? 0) : 0;
  return (run.resumedIn?.length ?? 0) + restarts;
}

/** Throws `<what>` unless a parsed TensorBoard source's `restarts` name two of its files and their steps. */
function checkRestarts(restarts: unknown, files: readonly Record<string, unknown>[], where: string): void {
  if (!Array.isArray(restarts) || restarts.length === 0) throw new Error(`${where} is not a non-empty list`);
  const names = new Set(files.map((f) => f.file));
  restarts.forEach((r: Record<string, unknown>, j: number) => {
    const at = `${where}[${j}]`;
    if (r === null || typeof r !== "object") throw new Error(`${at} is not an object`);
    if (!names.has(r.file) || !names.has(r.by)) throw new Error(`${at}.file and .by must name files of the source`);
    for (const key of ["fromStep", "toStep", "values"])
      if (!Number.isInteger(r[key]) || (r[key] as number) < 0) throw new Error(`${at}.${key} is not a non-negative integer`);
  });
}

/** Throws `<what>` unless a parsed TensorBoard `source` lists its files with names, hashes and sizes. */
function checkTensorboardSource(s: Record<string, unknown>, where: string): void {
  if (!Array.isArray(s.files) || s.files.length === 0) throw new Error(`${where}.files is not a non-empty list`);
  s.files.forEach((f: Record<string, unknown>, j: number) => {
    const at = `${where}.files[${j}]`;
    if (f === null || typeof f !== "object") throw new Error(`${at} is not an object`);
    if (typeof f.file !== "string" || !f.file || /[\\/]/.test(f.file)) throw new Error(`${at}.file must be a file name without folders`);
    if (typeof f.sha256 !== "string" || !/^[0-9a-f]{64}$/.test(f.sha256)) throw new Error(`${at}.sha256 is not a sha256 hex digest`);
    if (!Number.isInteger(f.bytes) || !Number.isInteger(f.events)) throw new Error(`${at}.bytes and .events must be integers`);
  });
  for (const key of ["scalarValues", "supersededValues"]) if (!Number.isInteger(s[key])) throw new Error(`${where}.${key} is not an integer`);
  if (s.restarts !== undefined) checkRestarts(s.restarts, s.files, `${where}.restarts`);
  if (s.droppedSummaries === null || typeof s.droppedSummaries !== "object") throw new Error(`${where}.droppedSummaries is not an object`);
  if (s.server !== null) throw new Error(`${where}.server must be null (no server was involved)`);
}

/** Throws `<what>` unless a parsed `source` of a manifest run is a valid `.wandb` file or TensorBoard source. */
function checkSource(source: unknown, where: string): void {
  const s = source as Record<string, unknown> | null;
  if (s === null || typeof s !== "object" || Array.isArray(s)) throw new Error(`${where} is not an object`);
  if (s.kind === "tensorboard") {
    checkTensorboardSource(s, where);
    return;
  }
  if (s.kind !== "wandb-file") throw new Error(`${where}.kind is ${JSON.stringify(s.kind)}, expected "wandb-file" or "tensorboard"`);
  if (typeof s.file !== "string" || !s.file || /[\\/]/.test(s.file)) throw new Error(`${where}.file must be a file name without folders`);
  if (typeof s.sha256 !== "string" || !/^[0-9a-f]{64}$/.test(s.sha256)) throw new Error(`${where}.sha256 is not a sha256 hex digest`);
  if (!Number.isInteger(s.bytes)) throw new Error(`${where}.bytes is not an integer`);
  if (s.sdkVersion !== null && typeof s.sdkVersion !== "string") throw new Error(`${where}.sdkVersion is not a string or null`);
  if (s.exitCode !== null && !Number.isInteger(s.exitCode)) throw new Error(`${where}.exitCode is not an integer or null`);
  if (s.tornTail !== undefined) {
    const t = s.tornTail as Record<string, unknown> | null;
    if (t === null || !Number.isInteger(t.offset) || !Number.isInteger(t.bytes)) throw new Error(`${where}.tornTail is not {offset, bytes}`);
  }
  if (s.server !== null) throw new Error(`${where}.server must be null (no server was involved)`);
}

/** Throws unless `resumedIn` lists valid `.wandb` sources, each with a non-negative integer stepOffset, after a `source`. */
function checkResumedIn(resumedIn: unknown, source: unknown, where: string, bad: (what: string) => Error): void {
  if (source === undefined) throw bad(`${where} without a source (only a run read from .wandb files is resumed in later logs)`);
  if ((source as { kind?: unknown }).kind !== "wandb-file")
    throw bad(`${where} on a run read from TensorBoard (only a run read from .wandb files is resumed in later logs)`);
  if (!Array.isArray(resumedIn) || resumedIn.length === 0) throw bad(`${where} is not a non-empty list`);
  resumedIn.forEach((x, j) => {
    try {
      const { stepOffset, ...rest } = x as Record<string, unknown>;
      checkSource(rest, `${where}[${j}]`);
      if (!Number.isInteger(stepOffset) || (stepOffset as number) < 0) throw new Error(`${where}[${j}].stepOffset is not a non-negative integer`);
    } catch (e) {
      throw bad((e as Error).message);
    }
  });
}

/** What the manifest says of a run besides its frozen file: from the server's run metadata or a .wandb file. */
export interface FrozenRunIdentity {
  entity: string;
  project: string;
  runId: string;
  displayName: string | null;
  state: string;
  lastStep: number;
  createdAt: string | null;
  droppedKeys: Record<string, number>;
}

/** A run frozen into an archive being written: its manifest entry, and the keys of its rows (sorted), from which the fetch decides its framework. */
export interface FrozenEntry {
  run: ManifestRun;
  keys: string[];
}

/** A run's manifest entry from what was read and the file it was frozen into; `extra`: the history path taken, or the .wandb source. */
export function frozenManifestRun(
  run: FrozenRunIdentity,
  round: string,
  file: string,
  info: FrozenFileInfo,
  fetchedAt: string,
  extra: Pick<ManifestRun, "historyPath" | "source" | "resumedIn">,
): ManifestRun {
  return {
    entity: run.entity,
    project: run.project,
    runId: run.runId,
    round,
    displayName: run.displayName,
    state: run.state,
    historyEvents: info.rows,
    lastStep: run.lastStep,
    createdAt: run.createdAt,
    fetchedAt,
    file,
    sha256: info.sha256,
    bytes: info.bytes,
    droppedKeys: run.droppedKeys,
    ...extra,
  };
}

/** Where a run was read from, in a few words: "W&B server", "<file> (SDK <v>, no server)" or "TensorBoard <n> file(s) (no server)". */
export function sourceLabel(run: ManifestRun): string {
  const s = run.source;
  if (!s) return "W&B server";
  if (s.kind === "tensorboard") {
    const torn = s.files.filter((f) => f.tornTail).length;
    return `TensorBoard: ${s.files.map((f) => f.file).join(", ")} (one row per step${torn ? `, ${torn} torn file(s)` : ""}, no server)`;
  }
  return `${s.file} (SDK ${s.sdkVersion ?? "unknown"}, no server)`;
}

/** Manifest bytes: fixed key order, 2-space indent, trailing newline. */
export function serializeManifest(m: SourceManifest): string {
  const ordered: SourceManifest = {
    kind: m.kind,
    formatVersion: m.formatVersion,
    readerVersion: m.readerVersion,
    pageSize: m.pageSize,
    // Only in a followed archive's snapshots: one-shot archives keep their bytes.
    ...(m.snapshot ? { snapshot: orderedSnapshot(m.snapshot), previous: m.previous ?? null } : {}),
    runs: m.runs.map(orderedRun),
  };
  return JSON.stringify(ordered, null, 2) + "\n";
}

/** A snapshot's chain fields with keys in their fixed order. */
function orderedSnapshot(s: SnapshotInfo): SnapshotInfo {
  return { sequence: s.sequence, takenAt: s.takenAt, lineage: s.lineage, lineageReason: s.lineageReason };
}

const SHA256 = /^[0-9a-f]{64}$/;

/** Throws `<where> ...` unless a parsed `snapshot` is a valid SnapshotInfo. */
function checkSnapshot(value: unknown, where: string): void {
  const s = value as Record<string, unknown> | null;
  if (s === null || typeof s !== "object" || Array.isArray(s)) throw new Error(`${where} is not an object`);
  for (const key of ["sequence", "lineage"])
    if (!Number.isInteger(s[key]) || (s[key] as number) < 1) throw new Error(`${where}.${key} is not a positive integer`);
  if (typeof s.takenAt !== "string") throw new Error(`${where}.takenAt is not a string`);
  if (s.lineageReason !== null && typeof s.lineageReason !== "string") throw new Error(`${where}.lineageReason is not a string or null`);
}

/** Throws unless a parsed `frozenBefore` is a FrozenPart. */
function checkFrozenPart(value: unknown, where: string): void {
  const p = value as Partial<FrozenPart> | null;
  if (p === null || typeof p !== "object") throw new Error(`${where} is not an object`);
  if (!Number.isInteger(p.bytes) || (p.bytes as number) < 0) throw new Error(`${where}.bytes is not a byte count`);
  if (typeof p.sha256 !== "string" || !SHA256.test(p.sha256)) throw new Error(`${where}.sha256 is not a sha256 hex digest`);
}

/** Throws unless a parsed `profile` names a profile, how it was decided and the signature entries matched. */
function checkRunProfile(value: unknown, where: string, bad: (what: string) => Error): void {
  const p = value as Record<string, unknown> | null;
  if (p === null || typeof p !== "object" || Array.isArray(p)) throw bad(`${where} is not an object`);
  // A name no profile has is refused where it is read (profileByName), naming the profiles.
  if (typeof p.name !== "string" || !p.name) throw bad(`${where}.name is not a profile name`);
  if (p.how !== "detected" && p.how !== "given") throw bad(`${where}.how is ${JSON.stringify(p.how)}, expected "detected" or "given"`);
  if (!Array.isArray(p.evidence) || p.evidence.some((e) => typeof e !== "string")) throw bad(`${where}.evidence is not a list of keys`);
}

/** Validates parsed manifest JSON; throws `invalid manifest <file>: <what>`. */
export function parseManifest(text: string, file: string): SourceManifest {
  const bad = (what: string) => new Error(`invalid manifest ${file}: ${what}`);
  let m: unknown;
  try {
    m = JSON.parse(text);
  } catch (e) {
    throw bad(`not valid JSON (${(e as Error).message})`);
  }
  if (m === null || typeof m !== "object" || Array.isArray(m)) throw bad("not a JSON object");
  const man = m as Record<string, unknown>;
  if (man.kind !== "wandb-frozen-history") throw bad(`kind is ${JSON.stringify(man.kind)}, expected "wandb-frozen-history"`);
  if (man.formatVersion !== 1) throw bad(`formatVersion ${JSON.stringify(man.formatVersion)} is not supported (expected 1)`);
  if (typeof man.readerVersion !== "string") throw bad("readerVersion is not a string");
  if (typeof man.pageSize !== "number") throw bad("pageSize is not a number");
  if (!Array.isArray(man.runs)) throw bad("runs is not a list");
  if (man.snapshot !== undefined) {
    try {
      checkSnapshot(man.snapshot, "snapshot");
    } catch (e) {
      throw bad((e as Error).message);
    }
    if (man.previous !== null && (typeof man.previous !== "string" || !SHA256.test(man.previous))) throw bad("previous is not a sha256 hex digest or null");
  }
  const seen = new Set<string>();
  man.runs.forEach((r: unknown, i: number) => {
    if (r === null || typeof r !== "object") throw bad(`runs[${i}] is not an object`);
    const run = r as Record<string, unknown>;
    for (const key of ["entity", "project", "runId", "round", "state", "fetchedAt", "file", "sha256"]) {
      if (typeof run[key] !== "string") throw bad(`runs[${i}].${key} is not a string`);
    }
    for (const key of ["historyEvents", "lastStep", "bytes"]) {
      if (typeof run[key] !== "number" || !Number.isInteger(run[key])) throw bad(`runs[${i}].${key} is not an integer`);
    }
    if (run.historyPath !== undefined && run.historyPath !== "parquet" && run.historyPath !== "parquet+pages") {
      throw bad(`runs[${i}].historyPath is ${JSON.stringify(run.historyPath)}, expected "parquet" or "parquet+pages"`);
    }
    const runId = run.runId as string;
    if (!RUN_ID.test(runId)) throw bad(`runs[${i}].runId ${JSON.stringify(runId)} is not a safe run id`);
    if (run.file !== `${HISTORY_DIR}/${runId}.jsonl`) throw bad(`runs[${i}].file is ${JSON.stringify(run.file)}, expected "${HISTORY_DIR}/${runId}.jsonl"`);
    if (!/^[0-9a-f]{64}$/.test(run.sha256 as string)) throw bad(`runs[${i}].sha256 is not a sha256 hex digest`);
    if (run.source !== undefined) {
      try {
        checkSource(run.source, `runs[${i}].source`);
      } catch (e) {
        throw bad((e as Error).message);
      }
    }
    if (run.resumedIn !== undefined) checkResumedIn(run.resumedIn, run.source, `runs[${i}].resumedIn`, bad);
    if (run.frozenBefore !== undefined) {
      try {
        checkFrozenPart(run.frozenBefore, `runs[${i}].frozenBefore`);
      } catch (e) {
        throw bad((e as Error).message);
      }
    }
    if (run.profile !== undefined) checkRunProfile(run.profile, `runs[${i}].profile`, bad);
    if (seen.has(runId)) throw bad(`run ${runId} is listed twice`);
    seen.add(runId);
  });
  return man as unknown as SourceManifest;
}
