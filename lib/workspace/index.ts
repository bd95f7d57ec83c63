/** Notebook workspace: parameters, opening the archive, reporters, overviews and cross-checks. Re-exports only. */
export { cleanCell, cleanNotebook, KEPT_CELL_METADATA, KEPT_NOTEBOOK_METADATA } from "./clean-notebook";
export { fetchOrVerify, type FetchStepOptions, type FetchStepResult, hasCredentials } from "./fetch-or-verify";
export { type FlagFirstSeenRow, flagsFirstSeen } from "./flags-first-seen";
export { type LocalLogFiles, readLocalLogFiles } from "./local-log-files";
export { type CountingReporter, notebookReporter } from "./notebook-reporter";
export { openWorkspace, type OpenWorkspace, type OpenWorkspaceOptions } from "./open-workspace";
export { runOverview, type RunOverview } from "./run-overview";
export { snapshotOverview, type SnapshotOverviewRow } from "./snapshot-overview";
export { tensorboardCrossCheck } from "./tensorboard-cross-check";
export { ARCHIVE_SUBDIR, dataAndArchive, shownPath, workspaceParams, type WorkspaceParams } from "./workspace-params";
