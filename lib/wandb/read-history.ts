/**
 * Complete history of one run over either of W&B's two paths:
 * - `pages`: the `HistoryPage` step-window scan (scan-history.ts);
 * - `parquet`: what the official client does since 0.27.1: `parquetHistory(liveKeys: ["_step"])`
 *   gives signed URLs of the exported parquet files and the steps not exported yet; the files are
 *   downloaded and read, then the live tail is paged with `HistoryPage` from the step after the last
 *   exported one.
 * `auto` takes the parquet path when the server lists exported files, else pages. Both paths give
 * the same rows (absent keys stay absent), and the completeness check covers both parts together:
 * rows == historyLineCount, `_step` integer and strictly increasing across files and the live tail.
 *
 * The live tail is read as wandb-core 0.31 reads it: `liveData` matters only for its smallest `_step`
 * (where the tail starts; it must lie after the exports); a server may list one live row, all of them
 * or none. The counts come from the same query as the listing (`historyLineCount`, `historyKeys`), so
 * on a running run the files, the tail and the counts describe one moment: rows appended after it lie
 * after its last step, are never asked for and belong to the next read.
 */
import { frozenRowSerializer } from "../values/frozen-row";
import type { HistoryRow, RunMeta } from "../types";
import type { WandbConnection } from "./connection";
import { downloadExportFile, ExpiredExportUrl } from "./download-export";
import { graphqlRequest } from "./graphql-request";
import type { DroppedKeyCounts } from "./parse-history-row";
import { openExportFile, readExportLines, readExportRows, type ExportFile } from "./parquet-rows";
import { PARQUET_HISTORY_QUERY } from "./queries";
import { lastStepOf, runPath } from "./read-run-meta";
import { scanHistory, sortedCounts, type ScanHistoryOptions } from "./scan-history";
import { WandbError } from "./wandb-error";

/** Which history path to take (`--history-path`). */
export type HistoryPathChoice = "auto" | "parquet" | "pages";

/** The path a run's history actually came through (recorded in the manifest). */
export type HistoryPathTaken = "pages" | "parquet" | "parquet+pages";

/** The choices, in the order help texts list them. */
export const HISTORY_PATH_CHOICES: readonly HistoryPathChoice[] = ["auto", "parquet", "pages"];

/** Throws `invalid historyPath: <v>` unless one of auto, parquet, pages. */
export function checkHistoryPath(value: string): HistoryPathChoice {
  if ((HISTORY_PATH_CHOICES as readonly string[]).indexOf(value) < 0) throw new Error(`invalid historyPath: ${value}`);
  return value as HistoryPathChoice;
}

/** Options of `readHistory`: those of `scanHistory` plus the path. */
export interface ReadHistoryOptions extends Pick<ScanHistoryOptions, "pageSize" | "onRows" | "signal" | "pagesInFlight"> {
  /**
   * Receives the rows as frozen lines instead (lib/values/frozen-row.ts format, no newlines): what a
   * freeze needs; exported files are then written straight from their columns. Takes precedence over onRows.
   */
  onLines?: (lines: string[]) => void | Promise<void>;
  /** Default "auto". */
  historyPath?: HistoryPathChoice;
}

/** What `readHistory` returns. */
export interface HistoryReadResult {
  /** All rows in `_step` order (empty when `onRows` took them). */
  rows: HistoryRow[];
  rowCount: number;
  /** Non-numeric keys dropped: key -> rows, keys sorted. */
  droppedKeys: Record<string, number>;
  /** The numeric keys the rows hold, sorted. */
  keys: string[];
  path: HistoryPathTaken;
  /** Exported files read (0 on the pages path). */
  files: number;
  /** `HistoryPage` requests made. */
  pages: number;
  /** The counts the read is complete against (the listing's on the parquet path, else the caller's meta). */
  snapshot: HistorySnapshot;
}

interface ParquetHistoryData {
  project: {
    run: { historyLineCount?: unknown; historyKeys?: unknown; parquetHistory: { parquetUrls: unknown; liveData: unknown } | null } | null;
  } | null;
}

/** Integer `_step` of one `liveData` row (an object, or its JSON text); null when it has none. */
function liveStepOf(row: unknown): number | null {
  let obj: unknown = row;
  if (typeof row === "string") {
    try {
      obj = JSON.parse(row);
    } catch {
      obj = null;
    }
  }
  const step = obj !== null && typeof obj === "object" ? (obj as { _step?: unknown })._step : undefined;
  return typeof step === "number" && Number.isInteger(step) ? step : null;
}

/** What `parquetHistory` lists, with the run's counts read in the same query. */
export interface ParquetListing {
  urls: string[];
  /** Smallest `_step` of `liveData` (where wandb-core starts the live tail); null when it lists none. */
  minLiveStep: number | null;
  /** Rows `liveData` lists (a server may list only some of the live rows). */
  liveListed: number;
  /** The run's counts in the same response: what the read's completeness is checked against. */
  snapshot: HistorySnapshot;
}

/** A run's row count and last step at one moment (one response). */
export interface HistorySnapshot {
  historyLineCount: number;
  lastStep: number;
}

/** How often fresh URLs are asked for when a signed URL is refused (expired) before giving up. */
export const MAX_URL_REFRESHES = 3;

/** Asks `parquetHistory(liveKeys: ["_step"])` and the run's counts for one run; checks the answer's shape. */
export async function listParquetHistory(conn: WandbConnection, meta: RunMeta, signal?: AbortSignal): Promise<ParquetListing> {
  const path = runPath(meta);
  const bad = (detail: string) => new WandbError({ operation: "RunParquetHistory", runPath: path, detail });
  const data = await graphqlRequest<ParquetHistoryData>(
    conn,
    {
      operationName: "RunParquetHistory",
      query: PARQUET_HISTORY_QUERY,
      variables: { entity: meta.entity, project: meta.project, runName: meta.runId, liveKeys: ["_step"] },
      runPath: path,
    },
    signal,
  );
  const run = data.project?.run;
  if (!run) throw bad("run not found");
  const ph = run.parquetHistory;
  if (!ph) throw bad("parquetHistory is null");
  const urls = ph.parquetUrls ?? [];
  if (!Array.isArray(urls) || !urls.every((u) => typeof u === "string" && /^https?:\/\//.test(u))) throw bad("parquetUrls is not a list of http(s) URLs");
  const live = ph.liveData ?? [];
  if (!Array.isArray(live)) throw bad("liveData is not a list");
  let minLiveStep: number | null = null;
  live.forEach((row, i) => {
    const step = liveStepOf(row);
    if (step === null) throw bad(`liveData row ${i} has no integer _step: ${JSON.stringify(row).slice(0, 120)}`);
    if (minLiveStep === null || step < minLiveStep) minLiveStep = step;
  });
  const count = run.historyLineCount ?? 0;
  if (typeof count !== "number" || !Number.isInteger(count) || count < 0) throw bad(`historyLineCount is not a count: ${JSON.stringify(run.historyLineCount)}`);
  const snapshot = { historyLineCount: count, lastStep: lastStepOf(run.historyKeys, path) };
  return { urls: urls as string[], minLiveStep, liveListed: live.length, snapshot };
}

/** Downloads and opens every listed file, asking for fresh URLs when one is refused as expired. */
async function fetchExportFiles(conn: WandbConnection, meta: RunMeta, listing: ParquetListing, signal?: AbortSignal): Promise<ExportFile[]> {
  const path = runPath(meta);
  const files: ExportFile[] = [];
  let urls = listing.urls;
  let refreshes = 0;
  for (let i = 0; i < urls.length; ) {
    let bytes: Uint8Array;
    try {
      bytes = await downloadExportFile(conn, urls[i], { runPath: path, index: i, count: urls.length }, signal);
    } catch (e) {
      if (!(e instanceof ExpiredExportUrl)) throw e;
      if (++refreshes > MAX_URL_REFRESHES) {
        throw new WandbError({
          operation: "parquet download",
          runPath: path,
          status: 403,
          detail: `${e.message}, also after asking for fresh URLs ${MAX_URL_REFRESHES} times`,
        });
      }
      conn.reporter.info?.(`W&B parquet download of ${path}: ${e.message}; asking for fresh URLs (${refreshes} of ${MAX_URL_REFRESHES})`);
      const fresh = await listParquetHistory(conn, meta, signal);
      // A running run's live rows grow between two listings; its exported files must not change.
      if (fresh.urls.length !== urls.length) {
        throw new WandbError({
          operation: "RunParquetHistory",
          runPath: path,
          detail: `the export changed while it was read (${urls.length} files before, ${fresh.urls.length} now): fetch again`,
        });
      }
      urls = fresh.urls;
      continue;
    }
    try {
      files.push(await openExportFile(bytes, i));
    } catch (e) {
      throw new WandbError({ operation: "parquet read", runPath: path, detail: `exported file ${i + 1} of ${urls.length}: ${(e as Error).message}`, cause: e });
    }
    i++;
  }
  // Files are read in `_step` order whatever order the server lists them in.
  return files.sort((a, b) => (a.firstStep ?? Infinity) - (b.firstStep ?? Infinity));
}

/** Checks one group of exported rows' steps: integer, strictly increasing `_step`, within the run's last step. */
function checkExportedSteps(steps: ArrayLike<unknown>, prev: { step: number }, meta: RunMeta, file: ExportFile, fileCount: number): void {
  for (let i = 0; i < steps.length; i++) {
    const step = steps[i];
    const where = `exported file ${file.index + 1} of ${fileCount}`;
    const fail = (detail: string) => new WandbError({ operation: "completeness", runPath: runPath(meta), detail: `${where}: ${detail}` });
    if (typeof step !== "number" || !Number.isInteger(step)) throw fail(`a row has no integer _step (after step ${prev.step})`);
    if (step <= prev.step) throw fail(`step ${step} follows step ${prev.step}: _step is not strictly increasing (duplicate or overlapping exports)`);
    if (step > meta.lastStep) throw fail(`step ${step} lies after the run's last step ${meta.lastStep}`);
    prev.step = step;
  }
}

/** The parquet path for one run whose listing has files; `meta` carries the listing's snapshot. See the module doc. */
async function readParquetPath(conn: WandbConnection, meta: RunMeta, listing: ParquetListing, opts: ReadHistoryOptions): Promise<HistoryReadResult> {
  const files = await fetchExportFiles(conn, meta, listing, opts.signal);
  const read = new ExportedRows(conn, meta, files.length);
  const collected: HistoryRow[] = [];
  const serialize = frozenRowSerializer();
  // Rows go on as frozen lines when the caller freezes (onLines), else as rows.
  const emit = async (rows: HistoryRow[]) => {
    if (opts.onLines) await opts.onLines(rows.map(serialize));
    else if (opts.onRows) await opts.onRows(rows);
    else for (const row of rows) collected.push(row);
  };
  read.progress();
  for (const file of files) {
    await readExportFile(read, file, opts.onLines, emit);
    file.buffer = new ArrayBuffer(0); // done with it: let the bytes go before the next file
  }
  const tail = await readLiveTail(conn, meta, listing, { lastExported: read.prev.step, exported: read.exported }, opts, emit);
  for (const [key, n] of Object.entries(tail.droppedKeys)) read.dropped.set(key, (read.dropped.get(key) ?? 0) + n);
  return {
    rows: collected,
    rowCount: read.exported + tail.rowCount,
    droppedKeys: sortedCounts(read.dropped),
    keys: [...new Set([...read.keys, ...tail.keys])].sort(),
    path: tail.rowCount > 0 ? "parquet+pages" : "parquet",
    files: files.length,
    pages: tail.pages,
    snapshot: { historyLineCount: meta.historyLineCount, lastStep: meta.lastStep },
  };
}

/** One export file: as frozen lines straight from its columns when the caller freezes and it has no nested column, else as rows. */
async function readExportFile(
  read: ExportedRows,
  file: ExportFile,
  onLines: ReadHistoryOptions["onLines"],
  emit: (rows: HistoryRow[]) => Promise<void>,
): Promise<void> {
  if (onLines && file.nestedColumns === 0) {
    await readExportLines(file, read.dropped, async (group) => {
      read.checkGroup(file, group.steps, group.keys);
      await onLines(group.lines);
      read.progress();
    });
    return;
  }
  await readExportRows(file, read.dropped, async (rows) => {
    const groupKeys = new Set<string>();
    for (const row of rows) for (const key in row) groupKeys.add(key);
    read.checkGroup(
      file,
      rows.map((r) => r._step),
      groupKeys,
    );
    await emit(rows);
    read.progress();
  });
}

/** What the exported files of one run gave so far, and the checks every row group passes (steps, keys, count). */
class ExportedRows {
  readonly dropped: DroppedKeyCounts = new Map();
  /** Distinct numeric keys of the exported rows (columns: a key only some rows hold is a column of the file). */
  readonly keys = new Set<string>();
  readonly prev = { step: -Infinity };
  exported = 0;
  private readonly path: string;

  constructor(
    private readonly conn: WandbConnection,
    private readonly meta: RunMeta,
    private readonly fileCount: number,
  ) {
    this.path = runPath(meta);
  }

  progress(): void {
    this.conn.reporter.progress?.(`fetch ${this.path}`, this.exported, this.meta.historyLineCount);
  }

  /** Checks shared by both ways of reading a file: steps, distinct keys, row count. */
  checkGroup(file: ExportFile, steps: ArrayLike<unknown>, groupKeys: Iterable<string>): void {
    const { conn, meta, prev } = this;
    checkExportedSteps(steps, prev, meta, file, this.fileCount);
    for (const key of groupKeys) this.keys.add(key);
    if (this.keys.size + this.dropped.size > conn.limits.maxKeys) {
      throw new WandbError({
        operation: "parquet read",
        runPath: this.path,
        detail: `more than ${conn.limits.maxKeys} distinct history keys (maxKeys) by _step ${prev.step}: refused rather than held in memory`,
      });
    }
    this.exported += steps.length;
    if (this.exported > meta.historyLineCount) {
      throw new WandbError({
        operation: "completeness",
        runPath: this.path,
        detail: `exported files hold more than the ${meta.historyLineCount} rows the server holds (historyLineCount), by step ${prev.step}`,
      });
    }
  }
}

/**
 * The live tail after the exported rows, as wandb-core 0.31 reads it: `liveData`'s smallest step must
 * lie after the exports; every row after the last exported step up to the snapshot's last step is
 * paged, however many of them `liveData` listed, and the rows must make up historyLineCount.
 */
async function readLiveTail(
  conn: WandbConnection,
  meta: RunMeta,
  listing: ParquetListing,
  done: { lastExported: number; exported: number },
  opts: ReadHistoryOptions,
  emit: (rows: HistoryRow[]) => Promise<void>,
): Promise<{ rowCount: number; pages: number; droppedKeys: Record<string, number>; keys: string[] }> {
  const path = runPath(meta);
  const { lastExported, exported } = done;
  if (listing.minLiveStep !== null && listing.minLiveStep <= lastExported) {
    throw new WandbError({
      operation: "completeness",
      runPath: path,
      detail: `live step ${listing.minLiveStep} is not after the last exported step ${lastExported}: exports and live rows overlap`,
    });
  }
  const fromStep = Number.isFinite(lastExported) ? lastExported + 1 : 0;
  const liveRows = meta.historyLineCount - exported;
  if (fromStep > meta.lastStep && liveRows === 0) return { rowCount: 0, pages: 0, droppedKeys: {}, keys: [] };
  if (listing.minLiveStep === null && liveRows > 0) {
    // wandb-core reads no live tail then; the counts say there is one, so it is read.
    conn.reporter.info?.(`W&B RunParquetHistory of ${path}: liveData lists no rows, but ${liveRows} rows follow the exports (historyLineCount); paging them`);
  }
  const scan = await scanHistory(conn, meta, {
    pageSize: opts.pageSize,
    signal: opts.signal,
    pagesInFlight: opts.pagesInFlight,
    fromStep,
    expectedRows: liveRows,
    rowsBefore: exported,
    onRows: emit,
  });
  return { rowCount: scan.rowCount, pages: scan.pages, droppedKeys: scan.droppedKeys, keys: scan.keys };
}

/** `meta` with the counts of a snapshot read later (the listing's). */
function withSnapshot(meta: RunMeta, snapshot: HistorySnapshot): RunMeta {
  return { ...meta, historyLineCount: snapshot.historyLineCount, lastStep: snapshot.lastStep };
}

/**
 * Reads one run's complete history over the chosen path (see the module doc). Throws `WandbError`
 * when `parquet` is forced and the server lists no exported files. Completeness is checked against
 * the counts read with the listing when there is one (returned as `snapshot`), else against `meta`'s.
 */
export async function readHistory(conn: WandbConnection, meta: RunMeta, opts: ReadHistoryOptions = {}): Promise<HistoryReadResult> {
  const choice = opts.historyPath ?? "auto";
  let current = meta;
  if (choice !== "pages") {
    let listing: ParquetListing | null;
    try {
      listing = await listParquetHistory(conn, meta, opts.signal);
    } catch (e) {
      // A server without the field (older W&B Server) answers with a GraphQL error: page instead.
      const noField = e instanceof WandbError && (e.status === 200 || e.status === 400) && /GraphQL error/.test(e.message);
      if (choice === "parquet" || !noField) throw e;
      conn.reporter.info?.(`W&B RunParquetHistory of ${runPath(meta)}: not offered by this server; reading HistoryPage windows`);
      listing = null;
    }
    if (listing !== null) current = withSnapshot(meta, listing.snapshot);
    if (listing !== null && listing.urls.length > 0) return readParquetPath(conn, current, listing, opts);
    if (choice === "parquet" && current.historyLineCount > 0) {
      throw new WandbError({
        operation: "RunParquetHistory",
        runPath: runPath(meta),
        detail: `the server lists no exported parquet files for this run (${listing?.liveListed ?? 0} live rows); use --history-path auto or pages`,
      });
    }
  }
  const onLines = opts.onLines;
  const serialize = frozenRowSerializer();
  const onRows = onLines ? (rows: HistoryRow[]) => onLines(rows.map(serialize)) : opts.onRows;
  const scan = await scanHistory(conn, current, { pageSize: opts.pageSize, signal: opts.signal, pagesInFlight: opts.pagesInFlight, onRows });
  const snapshot = { historyLineCount: current.historyLineCount, lastStep: current.lastStep };
  return { rows: scan.rows, rowCount: scan.rowCount, droppedKeys: scan.droppedKeys, keys: scan.keys, path: "pages", files: 0, pages: scan.pages, snapshot };
}
