/** The `runs` tool: the archives and their runs, as frozen, each history file with its sha256. */
import { blockingIssues } from "../align/issues";
import { profileOfAligned } from "../registry/profiles";
import type { ArchiveSet, ServedArchive } from "./served-archive";

/** One run of a `runs` answer. */
export interface RunEntry {
  runId: string;
  round: string;
  state: string;
  displayName: string | null;
  /** Rows frozen (= lines of its history file). */
  rows: number;
  lastStep: number;
  file: string;
  sha256: string;
  bytes: number;
  /** The declared settings read from its config (null: none was read), and its recorded package versions. */
  flags: Record<string, { value: boolean | number | string; source: string }> | null;
  versions: Record<string, { value: string; source: string }> | null;
  /** What its keys prove of its framework's version. */
  versionBounds: { package: string; atLeast?: string; below?: string; key: string }[];
}

/** One archive of a `runs` answer. */
export interface ArchiveEntry {
  archive: string;
  manifestSha256: string;
  framework: string;
  /** How the framework was decided: "given" or "detected", with the keys that decided. */
  frameworkHow: string;
  frameworkEvidence: string[];
  /** False when a run has an issue after which the axis mapping does not hold (summary, compare refuse then). */
  mappingHolds: boolean;
  blockingIssues: string[];
  runs: RunEntry[];
}

/** The `runs` answer of one archive. */
function archiveEntry(a: ServedArchive): ArchiveEntry {
  const { archive, aligned } = a.opened;
  const byId = new Map(aligned.runs.map((r) => [r.runId, r]));
  return {
    archive: a.name,
    manifestSha256: a.manifestSha256,
    framework: profileOfAligned(aligned).name,
    frameworkHow: aligned.profile?.how ?? "given",
    frameworkEvidence: aligned.profile?.evidence ?? [],
    mappingHolds: a.opened.mappingHolds,
    blockingIssues: blockingIssues(aligned).map((x) => `${x.kind}: ${x.message}`),
    runs: archive.manifest.runs.map((r) => ({
      runId: r.runId,
      round: r.round,
      state: r.state,
      displayName: r.displayName ?? null,
      rows: r.historyEvents,
      lastStep: r.lastStep,
      file: r.file,
      sha256: r.sha256,
      bytes: r.bytes,
      flags: r.flags ? { ...r.flags } : null,
      versions: r.versions ? { ...r.versions } : null,
      versionBounds: (byId.get(r.runId)?.versionBounds ?? []).map((b) => ({ ...b })),
    })),
  };
}

/** The `runs` answer: every archive (or the one named) with its runs. */
export function runsAnswer(set: ArchiveSet, input: { archive?: string }): { archives: ArchiveEntry[] } {
  const archives = input.archive === undefined ? set.all() : [set.get(input.archive)];
  return { archives: archives.map(archiveEntry) };
}
