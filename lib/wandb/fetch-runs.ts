/** Complete histories of several runs, fetched concurrently with a bound. */
import type { HistoryRow, RunMeta } from "../types";
import { connectWandb, type WandbReaderOptions } from "./connection";
import { checkConcurrency, mapConcurrent } from "./map-concurrent";
import { readRunMeta, type RunRef } from "./read-run-meta";
import { pagesPerRun, scanHistory } from "./scan-history";

/** Default number of HistoryPage requests at once, shared by the runs read together (W&B rate-limits parallel readers, issue #7778). */
export const DEFAULT_CONCURRENCY = 4;

/** Options of `fetchRuns`. */
export interface FetchRunsOptions extends WandbReaderOptions {
  /** `HistoryPage` window width in steps (default 1000). */
  pageSize?: number;
  /** `HistoryPage` requests at once in all (default 4): runs read together, and pages of a run when fewer runs than that. */
  concurrency?: number;
  signal?: AbortSignal;
}

/** One run's metadata and complete numeric history. */
export interface FetchedRun {
  meta: RunMeta;
  rows: HistoryRow[];
  /** Non-numeric keys dropped: key -> rows, keys sorted. */
  droppedKeys: Record<string, number>;
}

/**
 * Reads metadata and complete history of each run, at most `concurrency` at once, results in input
 * order. The first failure stops the others and is thrown as a `WandbError`.
 * @example const [run] = await fetchRuns([{ entity: "e", project: "p", runId: "8ov14yyc" }]);
 */
export async function fetchRuns(refs: readonly RunRef[], opts: FetchRunsOptions = {}): Promise<FetchedRun[]> {
  const concurrency = checkConcurrency(opts.concurrency ?? DEFAULT_CONCURRENCY);
  const conn = connectWandb(opts);
  const pagesInFlight = pagesPerRun(concurrency, refs.length);
  return mapConcurrent(
    refs,
    concurrency,
    async (ref, _i, signal) => {
      const meta = await readRunMeta(conn, ref, signal);
      const scan = await scanHistory(conn, meta, { pageSize: opts.pageSize, signal, pagesInFlight });
      return { meta, rows: scan.rows, droppedKeys: scan.droppedKeys };
    },
    opts.signal,
  );
}
