/**
 * Where a notebook or CLI reads and writes: resolved once from the environment, so the notebooks
 * take their parameters the same way headless (runner, tests) and in JupyterLab.
 *
 * | variable            | default                 | meaning                                        |
 * |---------------------|-------------------------|------------------------------------------------|
 * | WORKSPACE_DATA      | data                    | data folder (runs.json, wandb/ archive, local/, tensorboard/), or the archive itself (as `npm run export -- --data`) |
 * | WORKSPACE_EXPORTS   | exports                 | where everything is written: the CSVs + manifest (notebook 05), notebooks/ and report/ (`npm start`), compare/ |
 * | WORKSPACE_FETCH     | (unset)                 | "1": notebook 01 fetches live (needs a key)    |
 * | WORKSPACE_PROFILE   | (unset: detected)       | framework profile: lib/registry/profiles.ts    |
 * | WORKSPACE_EXPORTS_WRITTEN | (unset)           | the result file of exports already written into WORKSPACE_EXPORTS (a follow's --html rebuild): notebook 05 shows them instead of building them again |
 *
 * Notebook 07 compares the archives listed in <data>/compare.json and writes into <exports>/compare/.
 */
import { existsSync } from "node:fs";
import { basename, dirname, isAbsolute, join, relative, resolve } from "node:path";

import { MANIFEST_FILE } from "../archive/manifest";
import { chooseProfile } from "../registry/profile-choice";

/** Resolved folders of the workspace. */
export interface WorkspaceParams {
  root: string;
  dataDir: string;
  /** The frozen archive: manifest.json + history/. Replaced whole by a fetch. */
  archiveDir: string;
  /** slime's local training logs, `<runId>.log`, for the cross-check. */
  localLogDir: string;
  /** The same runs frozen from their TensorBoard event files (an archive), for the W&B vs TensorBoard cross-check; optional. */
  tensorboardArchiveDir: string;
  /** Which runs to fetch, with their round labels. */
  runsConfig: string;
  exportsDir: string;
  /** True when the user asked notebook 01 to fetch live (WORKSPACE_FETCH=1). */
  fetchLive: boolean;
  /** Framework profile named by WORKSPACE_PROFILE or data/runs.json "profile"; undefined: detected from the keys. */
  profile: string | undefined;
  /** Arms and reference of the comparison (notebook 07, `npm run compare`): <data>/compare.json. */
  compareConfig: string;
  /** Where notebook 07 writes the comparison: <exports>/compare. */
  compareDir: string;
  /** The result file of exports already written into `exportsDir` for this archive (WORKSPACE_EXPORTS_WRITTEN), else undefined. */
  exportsWritten: string | undefined;
}

/** Folder of the frozen archive inside the data folder. */
export const ARCHIVE_SUBDIR = "wandb";

/**
 * The data folder and archive of a folder a user names (WORKSPACE_DATA, `npm run export -- --data`):
 * the archive itself when it holds a manifest.json (the data folder is then its parent, where
 * runs.json sits), a data folder when its `wandb/` holds one; either is accepted by both. A folder
 * with neither (nothing fetched yet) is taken as `unknown` says: "data" (a data folder, unless it is
 * named `wandb`), or "archive".
 * @example dataAndArchive("data") // { dataDir: "data", archiveDir: "data/wandb" }; so does dataAndArchive("data/wandb")
 */
export function dataAndArchive(dir: string, unknown: "data" | "archive" = "data"): { dataDir: string; archiveDir: string } {
  const archive = { dataDir: dirname(dir), archiveDir: dir };
  const data = { dataDir: dir, archiveDir: join(dir, ARCHIVE_SUBDIR) };
  if (existsSync(join(dir, MANIFEST_FILE))) return archive;
  if (existsSync(join(dir, ARCHIVE_SUBDIR, MANIFEST_FILE))) return data;
  return unknown === "archive" || basename(dir) === ARCHIVE_SUBDIR ? archive : data;
}

/**
 * Resolve the workspace folders from the environment; relative paths are taken from `root`
 * (the kernel and the CLIs run in the workspace root).
 */
export function workspaceParams(env: NodeJS.ProcessEnv = process.env, root: string = process.cwd()): WorkspaceParams {
  const abs = (p: string) => (isAbsolute(p) ? p : resolve(root, p));
  const fetch = env.WORKSPACE_FETCH ?? "";
  if (fetch !== "" && fetch !== "0" && fetch !== "1") throw new Error(`invalid WORKSPACE_FETCH: ${fetch} (use 1 to fetch live)`);
  const { dataDir, archiveDir } = dataAndArchive(abs(env.WORKSPACE_DATA || "data"));
  const runsConfig = join(dataDir, "runs.json");
  return {
    root,
    dataDir,
    archiveDir,
    localLogDir: join(dataDir, "local"),
    tensorboardArchiveDir: join(dataDir, "tensorboard"),
    runsConfig,
    exportsDir: abs(env.WORKSPACE_EXPORTS || "exports"),
    compareConfig: join(dataDir, "compare.json"),
    compareDir: join(abs(env.WORKSPACE_EXPORTS || "exports"), "compare"),
    fetchLive: fetch === "1",
    profile: chooseProfile(env.WORKSPACE_PROFILE, runsConfig),
    exportsWritten: env.WORKSPACE_EXPORTS_WRITTEN ? abs(env.WORKSPACE_EXPORTS_WRITTEN) : undefined,
  };
}

/**
 * A path as shown to readers of a shared notebook or log: relative to the workspace root when it is
 * inside it (no home paths in shared files), else as given.
 */
export function shownPath(root: string, p: string): string {
  const rel = relative(root, p);
  return rel === "" ? "." : rel.startsWith("..") || isAbsolute(rel) ? p : rel;
}
