/**
 * The one place lib/mcp opens a frozen archive: through the pipeline every reader of frozen data uses
 * (lib/pipeline/open-archive.ts), so the server answers from exactly the records the notebooks and
 * exports read, and refuses in the same words (`refusing to serve <dir>: ...`).
 */
import { existsSync } from "node:fs";
import * as path from "node:path";

import { MANIFEST_FILE } from "../archive/manifest";
import { openArchive } from "../pipeline/open-archive";
import type { AlignedRuns, Archive, Reporter } from "../types";
import { workspaceParams } from "../workspace/workspace-params";

/** An archive opened for answering: verified, loaded with its rows kept (history reads them), aligned. */
export interface OpenedArchive {
  /** The archive folder (manifest.json + history/). */
  archiveDir: string;
  /** The data folder (where runs.json may name the profile and health thresholds). */
  dataDir: string;
  /** sha256 of manifest.json's bytes: names the frozen data every answer came from. */
  manifestSha256: string;
  archive: Archive;
  aligned: AlignedRuns;
  /** True when no run has an issue after which the axis mapping does not hold. */
  mappingHolds: boolean;
}

/**
 * Opens the archive at `dir` (the archive itself or the data folder holding it as wandb/, as `npm
 * run export -- --data` takes either): every file's sha256 checked, rows kept compact, runs aligned.
 * Throws naming the folder when a file does not verify or a followed archive's snapshot chain is broken.
 */
export async function openServedArchive(dir: string, reporter: Reporter = {}): Promise<OpenedArchive> {
  // No WORKSPACE_PROFILE here: the profile is the one runs.json beside the archive names, else detected (as the export).
  const params = workspaceParams({ WORKSPACE_DATA: path.resolve(dir) });
  if (!existsSync(path.join(params.archiveDir, MANIFEST_FILE)))
    throw new Error(`invalid --data: ${dir} holds no ${MANIFEST_FILE}, nor wandb/${MANIFEST_FILE} (not a frozen archive)`);
  const opened = await openArchive(params.archiveDir, { purpose: "serve", reporter, compact: true });
  return {
    archiveDir: params.archiveDir,
    dataDir: params.dataDir,
    manifestSha256: opened.manifestSha256,
    archive: opened.archive,
    aligned: opened.aligned,
    mappingHolds: opened.mappingHolds,
  };
}
