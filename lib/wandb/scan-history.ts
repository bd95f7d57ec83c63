/**
 * Complete, unsampled history of one run through the `HistoryPage` step-window protocol:
 * windows `[offset, min(offset + pageSize, lastStep + 1))`, `offset += pageSize` until
 * `offset >= lastStep + 1`. An empty window does not end the scan (step gaps, W&B issue #5014).
 * The result is checked: rows == historyLineCount, `_step` integer, inside its window, strictly
 * increasing; a row over `maxRowChars` or a run past `maxKeys` distinct keys is refused.
 * Up to `pagesInFlight` windows are asked for at once (the next ones while a page is read), and
 * pages are read strictly in window order, so rows, checks and errors are those of one at a time.
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
  /**
   * Windows asked for at once (default 1): the requests a run's scan keeps in flight, so that the
   * server's answer and the network's round trip for the next windows overlap the reading of this one.
   */
  pagesInFlight?: number;
}

/** What a scan returns. */
export interface ScanResult {
  /** All rows in `_step` order (empty when `onRows` took them). */
  rows: HistoryRow[];
  /** Rows fetched (== meta.historyLineCount, checked). */
  rowCount: number;
  /** Non-numeric keys dropped: key -> rows it was dropped from, keys sorted. */
  droppedKeys: Record<string, number>;
  /** The numeric keys the rows hold, sorted (what a fetch decides the run's framework from). */
  keys: string[];
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

/** Throws `invalid pagesInFlight: <v>` unless a positive integer. */
export function checkPagesInFlight(pagesInFlight: number): number {
  if (!Number.isInteger(pagesInFlight) || pagesInFlight < 1) throw new Error(`invalid pagesInFlight: ${pagesInFlight}`);
  return pagesInFlight;
}

/**
 * Windows per run asked for at once when `concurrency` requests may be in flight in all and `runs`
 * runs are read together: the runs share the budget, so fewer runs than it read more pages each, and
 * the server never sees more requests at once than with one page per run.
 * @example pagesPerRun(4, 1) // 4; pagesPerRun(4, 3) // 1
 */
export function pagesPerRun(concurrency: number, runs: number): number {
  // At least 1: the runs read together are at most `concurrency`.
  return Math.floor(concurrency / Math.max(1, Math.min(runs, concurrency)));
}

/** A `HistoryPage` window: the steps `[minStep, maxStep)`. */
type StepWindow = { minStep: number; maxStep: number };

/** Step windows `[minStep, maxStep)` a complete scan of a run with this `lastStep` asks for. */
export function historyWindows(lastStep: number, pageSize: number, fromStep = 0): StepWindow[] {
  const stop = lastStep + 1;
  const windows: StepWindow[] = [];
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
  const inFlight = checkPagesInFlight(opts.pagesInFlight ?? 1);
  const scan = new HistoryScan(conn, meta, opts);
  const collected: HistoryRow[] = [];
  let pages = 0;
  scan.progress();
  const windows = historyWindows(meta.lastStep, pageSize, scan.fromStep);
  const answers = answersInOrder(windows, inFlight, (w, signal) => scan.request(w, pageSize, signal), opts.signal);
  for await (const { window, history } of answers) {
    const rows = scan.accept(window, history);
    pages++;
    if (opts.onRows) await opts.onRows(rows);
    else for (const row of rows) collected.push(row);
    scan.progress();
  }
  scan.checkComplete();
  return { rows: collected, rowCount: scan.rowCount, droppedKeys: sortedCounts(scan.dropped), keys: scan.sortedKeys(), pages };
}

/**
 * Each window's answer in window order, with up to `inFlight` requests running: the next is started
 * as soon as an answer is taken, before the caller reads it. A failed request fails at its turn (the
 * earlier windows' answers come first); when the caller stops or a request fails, the requests still
 * running are aborted and their failures dropped.
 */
async function* answersInOrder(
  windows: readonly StepWindow[],
  inFlight: number,
  request: (w: StepWindow, signal: AbortSignal) => Promise<unknown[]>,
  outer: AbortSignal | undefined,
): AsyncGenerator<{ window: StepWindow; history: unknown[] }> {
  const controller = new AbortController();
  const abort = () => controller.abort(outer?.reason);
  if (outer?.aborted) abort();
  outer?.addEventListener("abort", abort, { once: true });
  const running: Promise<unknown[]>[] = [];
  let next = 0;
  const start = () => {
    const answer = request(windows[next++], controller.signal);
    // Handled at its turn; one still running when the scan stops must not surface as unhandled.
    answer.catch(() => undefined);
    running.push(answer);
  };
  try {
    while (next < windows.length && running.length < inFlight) start();
    for (const window of windows) {
      const history = await running.shift()!;
      if (next < windows.length) start();
      yield { window, history };
    }
  } finally {
    controller.abort();
    outer?.removeEventListener("abort", abort);
  }
}

/** One run's scan: what it has read so far (rows, keys, last step) and the checks each page passes. */
class HistoryScan {
  readonly dropped: DroppedKeyCounts = new Map();
  /** Distinct numeric keys (dropped ones are counted in `dropped`). */
  private readonly keys = new Set<string>();
  private readonly path: string;
  readonly fromStep: number;
  private readonly expected: number;
  private readonly before: number;
  rowCount = 0;
  private prevStep = -Infinity;

  constructor(
    private readonly conn: WandbConnection,
    private readonly meta: RunMeta,
    opts: ScanHistoryOptions,
  ) {
    this.path = runPath(meta);
    this.fromStep = opts.fromStep ?? 0;
    this.expected = opts.expectedRows ?? meta.historyLineCount;
    this.before = opts.rowsBefore ?? 0;
  }

  progress(): void {
    this.conn.reporter.progress?.(`fetch ${this.path}`, this.before + this.rowCount, this.meta.historyLineCount);
  }

  /** The distinct numeric keys read so far, sorted. */
  sortedKeys(): string[] {
    return [...this.keys].sort();
  }

  private dataError(detail: string, cause?: unknown): WandbError {
    return new WandbError({ operation: "HistoryPage", runPath: this.path, detail, cause });
  }

  /** The answer of one step window: its history list, unparsed (any number of these may run at once). */
  async request(w: StepWindow, pageSize: number, signal: AbortSignal): Promise<unknown[]> {
    const { conn, meta } = this;
    const { minStep, maxStep } = w;
    const data = await graphqlRequest<HistoryPageData>(
      conn,
      {
        operationName: "HistoryPage",
        query: HISTORY_PAGE_QUERY,
        variables: { entity: meta.entity, project: meta.project, run: meta.runId, minStep, maxStep, pageSize },
        runPath: this.path,
        where: `steps [${minStep}, ${maxStep})`,
      },
      signal,
    );
    if (!data.project?.run) throw this.dataError(`run not found while reading steps [${minStep}, ${maxStep})`);
    const history = data.project.run.history ?? [];
    if (!Array.isArray(history)) throw this.dataError(`history of steps [${minStep}, ${maxStep}) is not a list`);
    return history;
  }

  /** The rows of one window's answer, parsed and checked (sizes, keys, steps, count so far); windows in order. */
  accept(w: StepWindow, history: unknown[]): HistoryRow[] {
    const { meta } = this;
    const rows = this.parse(history, w);
    this.checkRows(rows, history, w);
    this.rowCount += rows.length;
    if (this.rowCount > this.expected) {
      throw new WandbError({
        operation: "completeness",
        runPath: this.path,
        detail: `read ${this.before + this.rowCount} rows up to step ${this.prevStep}, more than the ${meta.historyLineCount} rows the server holds`,
      });
    }
    return rows;
  }

  /** Parses a page's rows, refusing one over maxRowChars and a page that takes the keys over maxKeys. */
  private parse(history: unknown[], { minStep, maxStep }: StepWindow): HistoryRow[] {
    const { maxRowChars, maxKeys } = this.conn.limits;
    for (let i = 0; i < history.length; i++) {
      const item = history[i];
      if (typeof item === "string" && item.length > maxRowChars) {
        throw this.dataError(
          `row ${i} of steps [${minStep}, ${maxStep}) (_step ${stepOfText(item)}) is ${item.length} characters long, over the limit of ${maxRowChars} (maxRowChars)`,
        );
      }
    }
    let rows: HistoryRow[];
    try {
      rows = parseHistoryPage(history, this.dropped);
    } catch (e) {
      throw this.dataError(`steps [${minStep}, ${maxStep}): ${(e as Error).message}`, e);
    }
    if (this.keys.size + this.dropped.size > maxKeys) {
      throw this.dataError(
        `more than ${maxKeys} distinct history keys (maxKeys) in steps [0, ${maxStep}), ${this.dropped.size} of them non-numeric: refused rather than held in memory`,
      );
    }
    return rows;
  }

  /** Every row has an integer `_step` inside the window, strictly after the previous one; new keys stay under maxKeys. */
  private checkRows(rows: HistoryRow[], history: unknown[], { minStep, maxStep }: StepWindow): void {
    const { maxKeys } = this.conn.limits;
    const { keys, dropped } = this;
    for (let i = 0; i < rows.length; i++) {
      const step = rows[i]._step;
      if (typeof step !== "number" || !Number.isInteger(step)) {
        throw this.dataError(`row ${i} of steps [${minStep}, ${maxStep}) has no integer _step: ${preview(history[i])}`);
      }
      if (step < minStep || step >= maxStep) throw this.dataError(`step ${step} lies outside the requested window [${minStep}, ${maxStep})`);
      if (step <= this.prevStep) throw this.dataError(`step ${step} follows step ${this.prevStep}: _step is not strictly increasing`);
      this.prevStep = step;
      for (const key in rows[i]) {
        if (keys.has(key)) continue;
        keys.add(key);
        if (keys.size + dropped.size > maxKeys) {
          throw this.dataError(
            `more than ${maxKeys} distinct history keys (maxKeys) by _step ${step} (new key ${preview(key, 60)}): refused rather than held in memory`,
          );
        }
      }
    }
  }

  /** The rows read are exactly what the server said it holds. */
  checkComplete(): void {
    if (this.rowCount === this.expected) return;
    const exported = this.before > 0 ? ` and ${this.before} exported rows before them` : "";
    throw new WandbError({
      operation: "completeness",
      runPath: this.path,
      detail: `read ${this.rowCount} rows in steps [${this.fromStep}, ${this.meta.lastStep}]${exported}, the server holds ${this.meta.historyLineCount} (historyLineCount): history is incomplete`,
    });
  }
}
