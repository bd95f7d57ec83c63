/**
 * The fetch step of notebook 01: fetch live and freeze when the user asked for it
 * (WORKSPACE_FETCH=1; runs.json may list local `.wandb` files, read without a server), otherwise verify the frozen archive against its manifest hashes and work
 * offline. Replacing the frozen evidence is never a side effect of merely rerunning a notebook.
 */
import { fetchAndFreeze } from "../archive/fetch-and-freeze";
import { verifyArchive, type VerifyReport } from "../archive/load-archive";
import { readRunsConfig } from "../archive/runs-config";
import { resolveApiKey, resolveBaseUrl } from "../wandb/credentials";
import type { Reporter, SourceManifest } from "../types";
import { shownPath, type WorkspaceParams } from "./workspace-params";

/** What the fetch step did. */
export interface FetchStepResult {
  mode: "live" | "offline";
  /** Set after a live fetch. */
  manifest: SourceManifest | null;
  /** Set after an offline verification (a live fetch verifies as it writes). */
  verify: VerifyReport | null;
  /** One sentence for the reader of the notebook. */
  message: string;
}

/** Options of fetchOrVerify beyond the workspace folders. */
export interface FetchStepOptions {
  reporter?: Reporter;
  env?: NodeJS.ProcessEnv;
  pageSize?: number;
  concurrency?: number;
}

/** True when an API key for the base URL is available (env or netrc); never returns the key. */
export function hasCredentials(env: NodeJS.ProcessEnv = process.env): boolean {
  try {
    resolveApiKey({ baseUrl: resolveBaseUrl(undefined, env), env });
    return true;
  } catch {
    return false;
  }
}

/**
 * Fetch + freeze (live) or verify (offline), as `params.fetchLive` says.
 * Throws when the frozen archive does not verify, naming each bad file.
 */
export async function fetchOrVerify(params: WorkspaceParams, opts: FetchStepOptions = {}): Promise<FetchStepResult> {
  const env = opts.env ?? process.env;
  if (params.fetchLive) {
    const config = readRunsConfig(params.runsConfig);
    const baseUrl = resolveBaseUrl(undefined, env);
    const manifest = await fetchAndFreeze({
      entity: config.entity,
      project: config.project,
      runs: config.runs,
      outDir: params.archiveDir,
      baseUrl,
      env,
      pageSize: opts.pageSize,
      concurrency: opts.concurrency,
      reporter: opts.reporter,
      // The framework is decided as the runs are frozen: runs the notebooks cannot read never replace the archive.
      profile: params.profile ?? "detect",
    });
    const rows = manifest.runs.reduce((s, r) => s + r.historyEvents, 0);
    const files = manifest.runs.filter((r) => r.source).length;
    const tensorboard = manifest.runs.filter((r) => r.source?.kind === "tensorboard").length;
    const kinds = [files > tensorboard ? ".wandb" : "", tensorboard > 0 ? "TensorBoard" : ""].filter(Boolean).join(" and ");
    const from = [
      files < manifest.runs.length ? `of ${config.entity}/${config.project} from ${new URL(baseUrl).host}` : "",
      files > 0 ? `${files < manifest.runs.length ? `, ${files} of them ` : ""}from local ${kinds} files (no server)` : "",
    ].join("");
    return {
      mode: "live",
      manifest,
      verify: null,
      message: `fetched ${manifest.runs.length} runs (${rows} history rows) ${from} and froze them into ${shownPath(params.root, params.archiveDir)}`,
    };
  }
  const verify = await verifyArchive(params.archiveDir);
  if (!verify.ok) {
    const bad = verify.files.filter((f) => !f.ok).map((f) => `${f.file}: ${f.problem ?? "sha256 mismatch"}`);
    throw new Error(`frozen archive ${shownPath(params.root, params.archiveDir)} does not verify against its manifest: ${bad.join("; ")}`);
  }
  const why = hasCredentials(env)
    ? "credentials are available; set WORKSPACE_FETCH=1 to fetch live and replace the frozen archive"
    : "no W&B credentials found";
  return {
    mode: "offline",
    manifest: null,
    verify,
    message: `working offline (${why}): ${verify.files.length} files of ${shownPath(params.root, params.archiveDir)} verified against their manifest sha256`,
  };
}
