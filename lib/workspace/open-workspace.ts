/**
 * Open the frozen workspace for analysis: load the archive (every file's sha256 checked against
 * the manifest, the snapshot chain where there is one), align the runs, and say whether the axis
 * mapping holds for every run. The one entry point the analysis notebooks share, so they all
 * analyse exactly the same records; the archive pipeline is lib/pipeline/open-archive.ts.
 */
import { openArchive } from "../pipeline/open-archive";
import type { AlignedRuns, Archive, Reporter } from "../types";
import type { WorkspaceParams } from "./workspace-params";

/** A loaded, verified and aligned workspace. */
export interface OpenWorkspace {
  params: WorkspaceParams;
  archive: Archive;
  aligned: AlignedRuns;
  /** True when no run has an issue after which the axis mapping does not hold (lib/align/issues.ts BLOCKING_ISSUE_KINDS). */
  mappingHolds: boolean;
  /** True when `archive.runs[i].rows` were emptied once aligned (openWorkspace's `releaseRows`). */
  rowsReleased: boolean;
}

/** Options of {@link openWorkspace}. */
export interface OpenWorkspaceOptions {
  /**
   * Release the history rows once aligned (`archive.runs[i].rows` empty afterwards), for a notebook
   * that reads only the aligned records: at 10^6 updates the rows are about half of the kernel's
   * memory. Default false: rows kept (step-axis figures, run overviews read them).
   */
  releaseRows?: boolean;
  /**
   * Rows and record values as compact views (lib/values/compact-values.ts): same reads, a third of the
   * memory and far less garbage-collector work at 10^6 updates. Default false: plain objects.
   */
  compact?: boolean;
}

/**
 * Load, verify and align the archive in `params.archiveDir` (lib/pipeline/open-archive.ts: refusals
 * read `refusing to analyse <dir>: ...`).
 * @example const ws = await openWorkspace(workspaceParams(), reporter, { compact: true, releaseRows: true });
 */
export async function openWorkspace(params: WorkspaceParams, reporter: Reporter = {}, opts: OpenWorkspaceOptions = {}): Promise<OpenWorkspace> {
  const releaseRows = opts.releaseRows === true;
  const { archive, aligned, mappingHolds } = await openArchive(params.archiveDir, {
    purpose: "analyse",
    profile: params.profile,
    reporter,
    compact: opts.compact === true,
    releaseRows,
  });
  return { params, archive, aligned, mappingHolds, rowsReleased: releaseRows };
}
