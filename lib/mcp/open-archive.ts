/**
 * The one place lib/mcp opens a frozen archive: through the workspace's own loader and aligner
 * (lib/workspace/open-workspace.ts), so the server answers from exactly the records the notebooks and
 * exports read. When the archive-opening functions are unified, only this file changes.
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import * as path from "node:path";

import { MANIFEST_FILE } from "../archive/manifest";
import { verifySnapshotChain } from "../archive/snapshot-chain";
import type { AlignedRuns, Archive, Reporter } from "../types";
import { openWorkspace } from "../workspace/open-workspace";
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
export async function openArchive(dir: string, reporter: Reporter = {}): Promise<OpenedArchive> {
  // No WORKSPACE_PROFILE here: the profile is the one runs.json beside the archive names, else detected (as the export).
  const params = workspaceParams({ WORKSPACE_DATA: path.resolve(dir) });
  const manifestFile = path.join(params.archiveDir, MANIFEST_FILE);
  if (!existsSync(manifestFile)) throw new Error(`invalid --data: ${dir} holds no ${MANIFEST_FILE}, nor wandb/${MANIFEST_FILE} (not a frozen archive)`);
  // Hashed before loading: loading verifies every history file against these very bytes.
  const manifestSha256 = createHash("sha256").update(readFileSync(manifestFile)).digest("hex");
  const chain = await verifySnapshotChain(params.archiveDir);
  if (!chain.ok) throw new Error(`refusing ${params.archiveDir}: its snapshot chain is broken: ${chain.problems.join("; ")}`);
  const ws = await openWorkspace(params, reporter, { compact: true });
  return { archiveDir: params.archiveDir, dataDir: params.dataDir, manifestSha256, archive: ws.archive, aligned: ws.aligned, mappingHolds: ws.mappingHolds };
}
