/**
 * Complete, unsampled history of one run through the `HistoryPage` step-window protocol:
 * windows `[offset, min(offset + pageSize, lastStep + 1))`, `offset += pageSize` until
 * `offset >= lastStep + 1`. An empty window does not end the scan (step gaps, W&B issue #5014).
 * The result is checked: rows == historyLineCount, `_step` integer, inside its window, strictly
 * increasing; a row over `maxRowChars` or a run past `maxKeys` distinct keys is refused.
 */
import type { HistoryRow, RunMeta } from "../types";
import type { WandbConnection } from "./connection";
import { graphqlRequest } from "./graphql-request";
import { parseHistoryPage, preview, type DroppedKeyCounts } from "./parse-history-row";
import { HISTORY_PAGE_QUERY } from "./queries";
import { runPath } from "./read-run-meta";
import { WandbError } from "./wandb-error";

/** Default rows (step units) per `HistoryPage` window, as the official client. */
export const DEFAULT_PAGE_SIZE = 1000;

/** Options of `scanHistory`. */
export interface ScanHistoryOptions {
  /** Window width in `_step` units (default 1000). */
  pageSize?: number;
  /** Receives each page's numeric rows; when given, rows are not collected in the result. */
  onRows?: (rows: HistoryRow[]) => void | Promise<void>;
  signal?: AbortSignal;
  /** First step of the first window (default 0); the parquet path pages only the live tail from here. */
  fromStep?: number;
  /** Rows expected in `[fromStep, lastStep]` (default meta.historyLineCount). */
  expectedRows?: number;
  /** Rows read before this scan (progress only, default 0). */
  rowsBefore?: number;
}

/** What a scan returns. */
export interface ScanResult {
  /** All rows in `_step` order (empty when `onRows` took them). */
  rows: HistoryRow[];
  /** Rows fetched (== meta.historyLineCount, checked). */
  rowCount: number;
  /** Non-numeric keys dropped: key -> rows it was dropped from, keys sorted. */
  droppedKeys: Record<string, number>;
  /** Requests made (pages). */
  pages: number;
}

interface HistoryPageData {
  project: { run: { history: unknown[] | null } | null } | null;
}

/** Throws `invalid pageSize: <v>` unless a positive integer. */
export function checkPageSize(pageSize: number): number {
  if (!Number.isInteger(pageSize) || pageSize < 1) throw new Error(`invalid pageSize: ${pageSize}`);
  return pageSize;
}

/** Step windows `[minStep, maxStep)` a complete scan of a run with this `lastStep` asks for. */
export function historyWindows(lastStep: number, pageSize: number, fromStep = 0): { minStep: number; maxStep: number }[] {
  const stop = lastStep + 1;
  const windows: { minStep: number; maxStep: number }[] = [];
  for (let offset = fromStep; offset < stop; offset += pageSize) windows.push({ minStep: offset, maxStep: Math.min(offset + pageSize, stop) });
  return windows;
}

/** `_step` of an unparsed row text, for messages about rows too large to parse ("?" if not found). */
function stepOfText(text: string): string {
  const m = /"_step"\s*:\s*(-?[0-9][0-9.eE+-]*)/.exec(text);
  return m ? m[1] : "?";
}

/** Sorted plain object from a count map (deterministic manifest bytes). */
export function sortedCounts(counts: Map<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const key of Array.from(counts.keys()).sort()) out[key] = counts.get(key)!;
  return out;
}

/**
 * Fetches every history row of the run `meta` describes. Progress goes to the connection's
 * reporter as `fetch <run path>`, rows done of historyLineCount.
 */
export async function scanHistory(conn: WandbConnection, meta: RunMeta, opts: ScanHistoryOptions = {}): Promise<ScanResult> {
  const pageSize = checkPageSize(opts.pageSize ?? DEFAULT_PAGE_SIZE);
  const path = runPath(meta);
  const task = `fetch ${path}`;
  const dropped: DroppedKeyCounts = new Map();
  const collected: HistoryRow[] = [];
  const dataError = (detail: string, cause?: unknown) => new WandbError({ operation: "HistoryPage", runPath: path, detail, cause });
  const { maxRowChars, maxKeys } = conn.limits;
  const keys = new Set<string>(); // distinct numeric keys (dropped ones are counted in `dropped`)
  const fromStep = opts.fromStep ?? 0;
  const expected = opts.expectedRows ?? meta.historyLineCount;
  const before = opts.rowsBefore ?? 0;
  let rowCount = 0;
  let pages = 0;
  let prevStep = -Infinity;
  conn.reporter.progress?.(task, before, meta.historyLineCount);
  for (const { minStep, maxStep } of historyWindows(meta.lastStep, pageSize, fromStep)) {
    const data = await graphqlRequest<HistoryPageData>(
      conn,
      {
        operationName: "HistoryPage",
        query: HISTORY_PAGE_QUERY,
        variables: { entity: meta.entity, project: meta.project, run: meta.runId, minStep, maxStep, pageSize },
        runPath: path,
        where: `steps [${minStep}, ${maxStep})`,
      },
      opts.signal,
    );
    pages++;
    if (!data.project?.run) throw dataError(`run not found while reading steps [${minStep}, ${maxStep})`);
    const history = data.project.run.history ?? [];
    if (!Array.isArray(history)) throw dataError(`history of steps [${minStep}, ${maxStep}) is not a list`);
    for (let i = 0; i < history.length; i++) {
      const item = history[i];
      if (typeof item === "string" && item.length > maxRowChars) {
        throw dataError(
          `row ${i} of steps [${minStep}, ${maxStep}) (_step ${stepOfText(item)}) is ${item.length} characters long, over the limit of ${maxRowChars} (maxRowChars)`,
        );
      }
    }
    let rows: HistoryRow[];
    try {
      rows = parseHistoryPage(history, dropped);
    } catch (e) {
      throw dataError(`steps [${minStep}, ${maxStep}): ${(e as Error).message}`, e);
    }
    if (keys.size + dropped.size > maxKeys) {
      throw dataError(
        `more than ${maxKeys} distinct history keys (maxKeys) in steps [0, ${maxStep}), ${dropped.size} of them non-numeric: refused rather than held in memory`,
      );
    }
    for (let i = 0; i < rows.length; i++) {
      const step = rows[i]._step;
      if (typeof step !== "number" || !Number.isInteger(step)) {
        throw dataError(`row ${i} of steps [${minStep}, ${maxStep}) has no integer _step: ${preview(history[i])}`);
      }
      if (step < minStep || step >= maxStep) throw dataError(`step ${step} lies outside the requested window [${minStep}, ${maxStep})`);
      if (step <= prevStep) throw dataError(`step ${step} follows step ${prevStep}: _step is not strictly increasing`);
      prevStep = step;
      for (const key in rows[i]) {
        if (keys.has(key)) continue;
        keys.add(key);
        if (keys.size + dropped.size > maxKeys) {
          throw dataError(
            `more than ${maxKeys} distinct history keys (maxKeys) by _step ${step} (new key ${preview(key, 60)}): refused rather than held in memory`,
          );
        }
      }
    }
    rowCount += rows.length;
    if (rowCount > expected) {
      throw new WandbError({
        operation: "completeness",
        runPath: path,
        detail: `read ${before + rowCount} rows up to step ${prevStep}, more than the ${meta.historyLineCount} rows the server holds`,
      });
    }
    if (opts.onRows) await opts.onRows(rows);
    else for (const row of rows) collected.push(row);
    conn.reporter.progress?.(task, before + rowCount, meta.historyLineCount);
  }
  if (rowCount !== expected) {
    const exported = before > 0 ? ` and ${before} exported rows before them` : "";
    throw new WandbError({
      operation: "completeness",
      runPath: path,
      detail: `read ${rowCount} rows in steps [${fromStep}, ${meta.lastStep}]${exported}, the server holds ${meta.historyLineCount} (historyLineCount): history is incomplete`,
    });
  }
  return { rows: collected, rowCount, droppedKeys: sortedCounts(dropped), pages };
}
