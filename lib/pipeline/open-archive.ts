/**
 * The one way into a frozen archive for every reader of frozen data (notebooks, export, compare, the
 * TensorBoard cross-check; the follow reads its growing archive incrementally with the same parser,
 * chain check and profile choice): load it with every file's sha256 checked, verify its snapshot
 * chain where it has one, refuse it empty, choose the profile, align. Every refusal reads
 * `refusing to <purpose> <dir>: ...`; test/pipeline/open-archive.test.ts lists the callers.
 */
import * as path from "node:path";

import type { AlignRunsOptions } from "../align/align-options";
import { alignRuns } from "../align/align-runs";
import { blockingIssues } from "../align/issues";
import { loadOrReport, type LoadArchiveOptions, type VerifyReport } from "../archive/load-archive";
import { MANIFEST_FILE } from "../archive/manifest";
import { verifySnapshotChain } from "../archive/snapshot-chain";
import { profileForArchive } from "../registry/profile-choice";
import type { AlignedRuns, Archive, Reporter, SourceManifest } from "../types";

/** Options of {@link openArchive}. */
export interface OpenArchiveOptions {
  /** What the archive is opened for, the verb of every refusal: "analyse", "export from", "compare", "cross-check", "serve". */
  purpose: string;
  /** How the folder is named in refusals (compare's arm label); default the folder as given. */
  label?: string;
  /** The profile named by the user (CLI --profile, WORKSPACE_PROFILE); unnamed: the runs.json beside the folder, else detected. */
  profile?: string;
  /** What the data cannot decide, stated (--n, --always-use-train-step). */
  align?: Pick<AlignRunsOptions, "n" | "alwaysUseTrainStep">;
  reporter?: Reporter;
  /** Rows and record values as compact views (lib/values/compact-values.ts). Default false. */
  compact?: boolean;
  /** Load workers (LoadArchiveOptions.worker). */
  worker?: LoadArchiveOptions["worker"];
  /** Empty the rows once aligned (`archive.runs[i].rows`). Default false. */
  releaseRows?: boolean;
  /** Read the rows before alignment may release them (compare's wall clock). */
  beforeAlign?: (archive: Archive) => void;
  /** Each run's records as soon as they are final (AlignRunsOptions.onRunRecords). */
  onRunRecords?: AlignRunsOptions["onRunRecords"];
}

/** An archive opened: verified, loaded and aligned. */
export interface OpenedArchive {
  dir: string;
  manifest: SourceManifest;
  /** sha256 of manifest.json's bytes as loaded. */
  manifestSha256: string;
  archive: Archive;
  aligned: AlignedRuns;
  /** True when no run has an issue after which the axis mapping does not hold (lib/align/issues.ts). */
  mappingHolds: boolean;
}

/** The refusal of an archive, in the one wording. */
export function archiveRefusal(purpose: string, label: string, why: string): Error {
  return new Error(`refusing to ${purpose} ${label}: ${why}`);
}

/** Every file of the archive that does not verify, named with its problem (and both hashes for a changed file). */
function verifyProblems(dir: string, report: VerifyReport): string {
  return report.files
    .filter((f) => !f.ok)
    .map((f) => {
      if (f.file === MANIFEST_FILE && f.runId === "" && f.expected === "") return f.problem ?? "invalid manifest";
      const hashes = f.problem === "sha256 mismatch" ? ` (expected sha256 ${f.expected}, actual ${f.actual})` : "";
      return `${path.join(dir, f.file)}: ${f.problem}${hashes}`;
    })
    .join("; ");
}

/**
 * Loads (each file read once, hashed as parsed), verifies and aligns the archive in `dir`.
 * @example const { aligned } = await openArchive("data/wandb", { purpose: "analyse" });
 */
export async function openArchive(dir: string, opts: OpenArchiveOptions): Promise<OpenedArchive> {
  const label = opts.label ?? dir;
  const reporter = opts.reporter ?? {};
  const refuse = (why: string) => archiveRefusal(opts.purpose, label, why);
  const loaded = await loadOrReport(dir, reporter, { compact: opts.compact === true, worker: opts.worker });
  if ("report" in loaded) throw refuse(verifyProblems(dir, loaded.report));
  const { archive } = loaded;
  // A followed archive (npm run follow): its snapshot chain must verify too (none: nothing to check).
  const chain = await verifySnapshotChain(dir);
  if (!chain.ok) throw refuse(`its snapshot chain is broken: ${chain.problems.join("; ")}`);
  // Said here, rather than left to axis inference failing for want of rows.
  if (archive.runs.length === 0) throw refuse(`${MANIFEST_FILE} lists no runs (empty archive)`);
  opts.beforeAlign?.(archive);
  const profile = profileForArchive(opts.profile, dir);
  const aligned = alignRuns(archive.runs, {
    ...opts.align,
    profile,
    reporter,
    compact: opts.compact,
    releaseRows: opts.releaseRows,
    onRunRecords: opts.onRunRecords,
  });
  return {
    dir,
    manifest: archive.manifest,
    manifestSha256: archive.manifestSha256!,
    archive,
    aligned,
    mappingHolds: blockingIssues(aligned).length === 0,
  };
}
