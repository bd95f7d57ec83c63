/**
 * Fetch complete W&B histories and freeze them into an archive folder: one numeric JSONL file per
 * run plus `manifest.json` with sha256 digests. The folder is replaced atomically; credentials,
 * configs, summaries, console logs and media are never written.
 */
import { promises as fsp } from "node:fs";
import { availableParallelism } from "node:os";
import * as path from "node:path";
import { writeSynced } from "./write-synced";

import type { ManifestRun, Reporter, RunMeta, SourceManifest } from "../types";
import { connectWandb, type WandbConnection } from "../wandb/connection";
import { DEFAULT_CONCURRENCY } from "../wandb/fetch-runs";
import { checkConcurrency, mapConcurrent } from "../wandb/map-concurrent";
import { readRunMeta, runPath } from "../wandb/read-run-meta";
import type { ReaderLimits } from "../wandb/reader-limits";
import type { RetryPolicy } from "../wandb/retry-policy";
import { checkHistoryPath, type HistoryPathChoice } from "../wandb/read-history";
import { checkPageSize, DEFAULT_PAGE_SIZE, pagesPerRun } from "../wandb/scan-history";
import { READER_VERSION } from "../wandb/version";
import { resolveClock } from "./clock";
import { freezeTensorboardRun } from "./freeze-tensorboard";
import { freezeWandbFileRun } from "./freeze-wandb-file";
import { freezeServerRun, type ServerRunFrozen, type ServerRunJob } from "./freeze-server-run";
import { startFreezeThreads } from "./freeze-threads";
import type { ConnectionSpec } from "./freeze-worker";
import { checkRunId, type FrozenEntry, frozenManifestRun, HISTORY_DIR, historyFile, MANIFEST_FILE, serializeManifest } from "./manifest";
import { decideRunProfiles } from "../registry/detect-profile";
import { checkArchiveDir, replaceDirAtomically } from "./replace-dir";
import { type ConfigFacts, readConfigFacts } from "./run-config-facts";
import { refuseWorseCopies } from "./worse-copy";
import { fromFiles, joinResumedLogs, type RunSelection, withStated } from "./run-selection";

export type { RunSelection } from "./run-selection";

/** Options of `fetchAndFreeze`. */
export interface FetchAndFreezeOptions {
  entity: string;
  project: string;
  /** Runs in round order; the manifest keeps this order. */
  runs: RunSelection[];
  /** Archive folder, replaced as a whole (it must hold nothing but an archive). */
  outDir: string;
  /** Default `WANDB_BASE_URL` or https://api.wandb.ai. */
  baseUrl?: string;
  /** Default `WANDB_API_KEY`, then the netrc entry of the base URL's host. */
  apiKey?: string;
  /** `HistoryPage` window in steps, default 1000. */
  pageSize?: number;
  /**
   * `HistoryPage` requests at once in all, default 4: runs fetched together, and the pages of a run when
   * fewer server runs than that are fetched (pagesPerRun: one run reads 4 windows at once).
   */
  concurrency?: number;
  /** W&B history path: exported parquet files when the server lists them ("auto", default), or forced. */
  historyPath?: HistoryPathChoice;
  reporter?: Reporter;
  /** Clock of `fetchedAt`; default SOURCE_DATE_EPOCH if set, else the wall clock. */
  now?: () => Date;
  /** Default false: a run whose state is `running` is refused unless allowed. */
  allowRunning?: boolean;
  /** Retry policy overrides (tests). */
  retry?: Partial<RetryPolicy>;
  /** Input limit overrides (response bytes, row size, distinct keys per run); defaults in reader-limits.ts. */
  limits?: Partial<ReaderLimits>;
  /** Netrc file, default `NETRC` or ~/.netrc. */
  netrcPath?: string;
  /** Environment for WANDB_*, NETRC, SOURCE_DATE_EPOCH (default process.env). */
  env?: NodeJS.ProcessEnv;
  signal?: AbortSignal;
  /**
   * Threads that read and freeze server runs (0: all on the calling thread). Default: one per core,
   * at most one per run, when two or more runs hold 20,000 rows or more in all.
   */
  threads?: number;
  /**
   * Decide each run's framework from the keys it froze ("detect") or check it against a named profile,
   * record it in the manifest (`profile`), and refuse, before the archive is replaced, runs of two
   * frameworks, a run with none of any profile's keys, or none of the named one's
   * (lib/registry/detect-profile.ts decideRunProfiles). The fetch CLI and notebook 01 always decide;
   * absent, histories are frozen whatever their keys (the profile is detected when they are read).
   */
  profile?: string;
  /**
   * Replace frozen runs even with a worse copy (fewer rows, finished -> crashed, a torn end the frozen
   * file did not have); default false: such a fetch is refused and the archive left as it was
   * (lib/archive/worse-copy.ts).
   */
  replace?: boolean;
}

/** Throws `invalid <option>: <value>` for bad entity, project, runs or rounds. */
function checkSelection(opts: FetchAndFreezeOptions): void {
  const fromServer = !Array.isArray(opts.runs) || opts.runs.some((r) => !fromFiles(r));
  if (fromServer && (typeof opts.entity !== "string" || !opts.entity.trim())) throw new Error(`invalid entity: ${JSON.stringify(opts.entity)}`);
  if (fromServer && (typeof opts.project !== "string" || !opts.project.trim())) throw new Error(`invalid project: ${JSON.stringify(opts.project)}`);
  if (!Array.isArray(opts.runs) || opts.runs.length === 0) throw new Error("invalid runs: no run selected");
  // A run id listed twice was refused, or joined as the logs of one run, by joinResumedLogs.
  for (const run of opts.runs) {
    checkRunId(run.runId);
    if (typeof run.round !== "string" || !run.round.trim()) throw new Error(`invalid round: ${JSON.stringify(run.round)} (run ${run.runId})`);
  }
  if (typeof opts.outDir !== "string" || !opts.outDir) throw new Error(`invalid outDir: ${JSON.stringify(opts.outDir)}`);
  if (opts.threads !== undefined) {
    if (!Number.isInteger(opts.threads) || opts.threads < 0) throw new Error(`invalid threads: ${opts.threads}`);
    if (opts.threads > 0 && !retryIsData(opts.retry))
      throw new Error(`invalid threads: ${opts.threads} (retry overrides that are functions cannot be sent to a thread)`);
  }
}

/** The manifest entry of a frozen server run. */
function manifestRun(meta: RunMeta, round: string, file: string, frozen: ServerRunFrozen, fetchedAt: string): ManifestRun {
  const extra = frozen.taken === "pages" ? {} : { historyPath: frozen.taken as ManifestRun["historyPath"] };
  return frozenManifestRun({ ...meta, lastStep: frozen.lastStep, droppedKeys: frozen.droppedKeys }, round, file, frozen.info, fetchedAt, extra);
}

/** Below this many rows in all, a thread's start-up (50-500 ms) costs more than it saves. */
export const THREADED_MIN_ROWS = 20_000;

/** True when no retry override is a function (a function cannot be sent to a thread). */
function retryIsData(retry: FetchAndFreezeOptions["retry"]): boolean {
  return Object.values(retry ?? {}).every((v) => typeof v !== "function");
}

/** The connection for the server runs; null when every run is read from files (no server, so no credentials are asked for). */
function serverConnection(opts: FetchAndFreezeOptions, serverRuns: number, reporter: Reporter, env: NodeJS.ProcessEnv): WandbConnection | null {
  if (serverRuns === 0) return null;
  return connectWandb({ baseUrl: opts.baseUrl, apiKey: opts.apiKey, netrcPath: opts.netrcPath, retry: opts.retry, limits: opts.limits, reporter, env });
}

/** Throws naming the runs whose state is `running` (their history may still grow). */
function refuseRunning(metas: readonly RunMeta[]): void {
  const running = metas.filter((m) => m.state === "running");
  if (running.length === 0) return;
  throw new Error(
    `run ${running.map(runPath).join(", ")} is still running: its history may still grow; wait until it ends, or allow it (allowRunning, CLI --allow-running)`,
  );
}

/**
 * Freeze threads to start: `threads` as given (checked), else one per core up to one per run and
 * the concurrency, when that is 2 or more and the server runs hold THREADED_MIN_ROWS rows in all.
 */
export function freezeThreadCount(opts: FetchAndFreezeOptions, serverMetas: readonly RunMeta[]): number {
  if (opts.threads !== undefined) return Math.min(opts.threads, serverMetas.length);
  const rows = serverMetas.reduce((a, m) => a + m.historyLineCount, 0);
  if (serverMetas.length < 2 || rows < THREADED_MIN_ROWS || !retryIsData(opts.retry)) return 0;
  const count = Math.min(availableParallelism(), serverMetas.length, opts.concurrency ?? DEFAULT_CONCURRENCY);
  return count >= 2 ? count : 0; // one thread only moves the work: no gain for its start-up
}

/** What a thread needs to rebuild the connection. */
function connectionSpec(conn: WandbConnection, retry: FetchAndFreezeOptions["retry"]): ConnectionSpec {
  return { baseUrl: conn.baseUrl, apiKey: conn.apiKey, retry: { ...retry }, limits: conn.limits };
}

/** What freezing one run needs from the fetch: the staging folder, the clock, and how a server run's history is read. */
interface FreezeContext {
  tmp: string;
  now: () => string;
  reporter: Reporter;
  pageSize: number;
  historyPath: HistoryPathChoice;
  /** `HistoryPage` windows each server run asks for at once. */
  pagesInFlight: number;
  /** Reads a server run's history into its file (on a freeze thread when there are any). */
  run: (job: ServerRunJob, signal: AbortSignal) => ReturnType<typeof freezeServerRun>;
}

/** Freezes one selected run into the staging folder by its source: TensorBoard files, a .wandb log, or the server (`meta`). */
async function freezeRun(ctx: FreezeContext, sel: RunSelection, read: ServerRunRead | null, signal: AbortSignal): Promise<FrozenEntry> {
  const frozen = await freezeBySource(ctx, sel, read, signal);
  return { run: withStated(frozen.run, sel), keys: frozen.keys };
}

async function freezeBySource(ctx: FreezeContext, sel: RunSelection, read: ServerRunRead | null, signal: AbortSignal): Promise<FrozenEntry> {
  if (sel.tensorboard) {
    const tb = { runId: sel.runId, round: sel.round, path: sel.tensorboard };
    return freezeTensorboardRun(tb, ctx.tmp, ctx.now, ctx.reporter, signal);
  }
  if (sel.file) {
    const files = { runId: sel.runId, round: sel.round, file: sel.file, resumedIn: sel.resumedIn };
    return freezeWandbFileRun(files, ctx.tmp, ctx.now, ctx.reporter, signal);
  }
  const file = historyFile(sel.runId);
  const job: ServerRunJob = {
    meta: read!.meta,
    filePath: path.join(ctx.tmp, file),
    pageSize: ctx.pageSize,
    historyPath: ctx.historyPath,
    pagesInFlight: ctx.pagesInFlight,
  };
  const frozen = await ctx.run(job, signal);
  return { run: { ...manifestRun(read!.meta, sel.round, file, frozen, ctx.now()), ...read!.facts }, keys: frozen.keys };
}

/**
 * Each run's entry with its framework (`profile`: "detect", or a profile's name), decided from the
 * keys it froze; throws (lib/registry/detect-profile.ts) naming the runs that do not fit. Without
 * `profile`, the entries as frozen (no framework recorded).
 */
function withProfiles(frozen: readonly FrozenEntry[], profile: string | undefined): ManifestRun[] {
  if (profile === undefined) return frozen.map((f) => f.run);
  const decided = decideRunProfiles(
    frozen.map((f) => ({ runId: f.run.runId, round: f.run.round, keys: f.keys })),
    profile === "detect" ? undefined : profile,
  );
  return frozen.map((f, i) => (decided === null ? f.run : { ...f.run, profile: decided[i] }));
}

/** A server run's metadata, and what its config gives the archive (its flags and versions; the config is not kept). */
interface ServerRunRead {
  meta: RunMeta;
  facts: ConfigFacts;
}

/** Reads each server run's metadata and config (the `Run` and `RunConfig` queries), `concurrency` runs at a time. */
function readServerRuns(
  conn: WandbConnection | null,
  opts: FetchAndFreezeOptions,
  serverRuns: readonly RunSelection[],
  concurrency: number,
): Promise<ServerRunRead[]> {
  return mapConcurrent(
    serverRuns,
    concurrency,
    async (run, _i, signal) => {
      const ref = { entity: opts.entity, project: opts.project, runId: run.runId };
      const meta = await readRunMeta(conn!, ref, signal);
      return { meta, facts: await readConfigFacts(conn!, ref, signal) };
    },
    opts.signal,
  );
}

/**
 * Reads the server runs' metadata (refusing running ones unless allowed), then freezes every selected
 * run into `ctx.tmp`'s history folder, server runs on freeze threads when there are enough rows.
 */
async function freezeAll(
  opts: FetchAndFreezeOptions,
  conn: WandbConnection | null,
  serverRuns: readonly RunSelection[],
  concurrency: number,
  ctx: Omit<FreezeContext, "run" | "pagesInFlight">,
): Promise<FrozenEntry[]> {
  const server = await readServerRuns(conn, opts, serverRuns, concurrency);
  const serverMetas = server.map((s) => s.meta);
  const metas = opts.runs.map((r) => (fromFiles(r) ? null : server[serverRuns.indexOf(r)])) as ServerRunRead[];
  if (!opts.allowRunning) refuseRunning(serverMetas);
  await fsp.mkdir(path.join(ctx.tmp, HISTORY_DIR));
  const onCaller = (job: ServerRunJob, signal: AbortSignal) => freezeServerRun(conn!, job, signal);
  const threadCount = freezeThreadCount(opts, serverMetas);
  const threads = threadCount > 0 ? startFreezeThreads(threadCount, connectionSpec(conn!, opts.retry), ctx.reporter, onCaller) : null;
  try {
    const freeze: FreezeContext = {
      ...ctx,
      pagesInFlight: pagesPerRun(concurrency, serverRuns.length),
      run: (job, signal) => (threads ? threads.run(job, signal) : onCaller(job, signal)),
    };
    return await mapConcurrent(opts.runs, concurrency, (sel, i, signal) => freezeRun(freeze, sel, metas[i], signal), opts.signal);
  } finally {
    await threads?.close();
  }
}

/**
 * Fetches every selected run's complete history and freezes it into `outDir`; returns the manifest
 * written. On any failure the previous archive stays byte-identical.
 * @example await fetchAndFreeze({ entity: "e", project: "p", runs: [{ runId: "8ov14yyc", round: "R0" }], outDir: "data/archive" });
 */
export async function fetchAndFreeze(given: FetchAndFreezeOptions): Promise<SourceManifest> {
  const opts = Array.isArray(given.runs) ? { ...given, runs: joinResumedLogs(given.runs) } : given;
  checkSelection(opts);
  const pageSize = checkPageSize(opts.pageSize ?? DEFAULT_PAGE_SIZE);
  const concurrency = checkConcurrency(opts.concurrency ?? DEFAULT_CONCURRENCY);
  const historyPath = checkHistoryPath(opts.historyPath ?? "auto");
  const env = opts.env ?? process.env;
  const clock = resolveClock(opts.now, env);
  const reporter = opts.reporter ?? {};
  const serverRuns = opts.runs.filter((r) => !fromFiles(r));
  const conn = serverConnection(opts, serverRuns.length, reporter, env);
  await checkArchiveDir(opts.outDir); // fail before any request; checked again under the lock

  return replaceDirAtomically(
    opts.outDir,
    async (tmp) => {
      const freeze = { tmp, now: () => clock().toISOString(), reporter, pageSize, historyPath };
      const frozen = await freezeAll(opts, conn, serverRuns, concurrency, freeze);
      const runs = withProfiles(frozen, opts.profile);
      if (!opts.replace) await refuseWorseCopies(opts.outDir, runs);
      const manifest: SourceManifest = { kind: "wandb-frozen-history", formatVersion: 1, readerVersion: READER_VERSION, pageSize, runs };
      const text = serializeManifest(manifest);
      await writeSynced(path.join(tmp, MANIFEST_FILE), text);
      return JSON.parse(text) as SourceManifest;
    },
    reporter,
  );
}
