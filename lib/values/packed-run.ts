/**
 * Runs whose compact rows stay packed (typed arrays from the load worker) until someone reads
 * `run.rows`: the first read unpacks them into views and keeps them, so every reader sees the same
 * rows as before. The aligner reads the packed form directly (lib/align/row-reader.ts) and never
 * makes a view per row: at 10^7 updates the 25 M row views were a third of the objects every garbage
 * collection walked during alignment.
 */
import type { HistoryRow, RunHistory } from "../types";
import { type PackedViews, unpackViews, type ViewClass } from "./compact-values";

/** Packed rows of runs that have not been unpacked (or given other rows) yet. */
const PACKED = new WeakMap<RunHistory, PackedViews>();

/**
 * A run holding `packed` rows: `rows` unpacks them on first read (views made with classes from
 * `classes`, shared across runs); assigning `rows` replaces them and drops the packed form.
 */
export function packedRun(meta: Omit<RunHistory, "rows">, packed: PackedViews, classes: Map<string, ViewClass>): RunHistory {
  let rows: HistoryRow[] | null = null;
  const run = { ...meta } as RunHistory;
  Object.defineProperty(run, "rows", {
    enumerable: true,
    configurable: true,
    get(): HistoryRow[] {
      if (rows === null) {
        rows = unpackViews(packed, classes);
        PACKED.delete(run);
      }
      return rows;
    },
    set(value: HistoryRow[]) {
      rows = value;
      PACKED.delete(run);
    },
  });
  PACKED.set(run, packed);
  return run;
}

/** The run's rows still packed (never read as `rows`), else null. */
export function packedRowsOf(run: RunHistory): PackedViews | null {
  return PACKED.get(run) ?? null;
}

/** Number of rows of a run, without unpacking packed rows. */
export function rowCount(run: RunHistory): number {
  const packed = PACKED.get(run);
  return packed !== undefined ? packed.at.length : run.rows.length;
}

/**
 * Drops a run's rows for good (alignment's `releaseRows`, once the run is aligned). Packed rows'
 * arena chunks are detached by a transfer, so their memory goes at the next minor collection: left
 * to be found unreachable, the old buffers waited for a full one, and at 10^6 updates the loaded
 * rows of every run (about 300 MB) stayed until alignment ended, the job's peak. Only chunks the
 * packed rows own (PackedViews.own: no other run's rows are in them), and only for rows no one reads
 * any more: a reader made before (row-reader.ts) would then see no values.
 */
export function releaseRows(run: RunHistory): void {
  const packed = PACKED.get(run);
  run.rows = [];
  if (packed === undefined || packed.own !== true) return;
  // Only plain ArrayBuffers can be transferred (a worker's are).
  const transferable = packed.chunks.filter((b) => b instanceof ArrayBuffer && b.byteLength > 0);
  structuredClone(transferable, { transfer: transferable });
}
