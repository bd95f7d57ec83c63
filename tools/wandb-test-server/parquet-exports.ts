/**
 * W&B-style exported history of a run, as real Parquet files (written by hyparquet-writer): every
 * history key is a column and every row has every column, null where the row did not log the key.
 * What W&B's exporter does with non-numeric values is not public; here a key whose values are all
 * numbers (or NaN markers) is a DOUBLE column (`_step` INT64), any other key a STRING column holding
 * each value's JSON text. JSON `null` and the strings "NaN"/"Infinity"/"-Infinity" stand for
 * non-finite numbers in history rows (see wandb-protocol.md), so they are written as the numbers.
 */
import { parquetWriteBuffer } from "hyparquet-writer";

import { parseExtendedJson, toExtendedJson } from "./extended-json";
import type { StoredRun } from "./run-store";
import { lowerBound } from "./run-store";

/**
 * Which live rows `parquetHistory.liveData` lists: every row not exported ("all", what W&B does),
 * only the first of them ("first": wandb-core reads nothing but the smallest `_step`), or none
 * ("none") while rows are live.
 */
export type LiveListing = "all" | "first" | "none";

/** The choices of `LiveListing`. */
export const LIVE_LISTINGS: readonly LiveListing[] = ["all", "first", "none"];

/** How the server exports runs (`WandbTestServer.setParquetExports`). */
export interface ParquetExportConfig {
  /** Serve exported files at all (default false: parquetHistory lists no files, every row is live). */
  enabled: boolean;
  /** The last `lagSteps` steps of a run (`_step > lastStep - lagSteps`) are not exported yet (default 0). */
  lagSteps: number;
  /** Exported rows are split over this many files (default 1). */
  filesPerRun: number;
  /** Rows per row group inside a file (default 10,000). */
  rowGroupSize: number;
  /** Lifetime of a signed URL in seconds (default 3600). */
  urlTtlSeconds: number;
  /** Which live rows `liveData` lists (default "all"). */
  liveListing: LiveListing;
}

/** Defaults of `ParquetExportConfig`. */
export const DEFAULT_PARQUET_EXPORTS: Readonly<ParquetExportConfig> = Object.freeze({
  enabled: false,
  lagSteps: 0,
  filesPerRun: 1,
  rowGroupSize: 10_000,
  urlTtlSeconds: 3600,
  liveListing: "all",
});

/** The rows `liveData` lists out of the live ones, as `listing` says. */
export function listedLiveRows<T>(live: readonly T[], listing: LiveListing): T[] {
  if (listing === "none") return [];
  return listing === "first" ? live.slice(0, 1) : live.slice();
}

/** The exported part of a run: file bytes and how many rows they hold. */
export interface RunExport {
  files: Uint8Array[];
  /** Rows in the files (the first `exportedRows` stored rows). */
  exportedRows: number;
}

const NON_FINITE: Record<string, number> = { NaN: NaN, Infinity: Infinity, "-Infinity": -Infinity };

/** Number a history value stands for, or undefined when it is not numeric. */
function numericValue(v: unknown): number | undefined {
  if (typeof v === "number") return v;
  if (v === null) return NaN;
  if (typeof v === "string" && v in NON_FINITE) return NON_FINITE[v];
  return undefined;
}

/** Rows of a run that are exported under a lag of `lagSteps` steps. */
export function exportedRowCount(run: StoredRun, lagSteps: number): number {
  const n = run.steps.length;
  if (n === 0) return 0;
  if (lagSteps <= 0) return n;
  return lowerBound(run.steps, run.steps[n - 1] - lagSteps + 1);
}

/** One Parquet file of the given rows (parsed objects), one column per key, keys sorted. */
export function writeHistoryParquet(rows: Record<string, unknown>[], rowGroupSize: number): Uint8Array {
  const keys = new Set<string>();
  for (const row of rows) for (const key in row) keys.add(key);
  const columnData = Array.from(keys)
    .sort()
    .map((name) => {
      if (name === "_step") {
        return { name, type: "INT64" as const, nullable: false, data: BigInt64Array.from(rows, (r) => BigInt(r._step as number)) };
      }
      const numbers = rows.map((r) => (r[name] === undefined ? null : numericValue(r[name])));
      if (numbers.every((v) => v !== undefined)) return { name, type: "DOUBLE" as const, data: numbers as (number | null)[] };
      return { name, type: "STRING" as const, data: rows.map((r) => (r[name] === undefined ? null : toExtendedJson(r[name]))) };
    });
  return new Uint8Array(parquetWriteBuffer({ columnData, rowGroupSize, createdBy: "wandb-test-server" }));
}

/** Builds the exported files of a run under `config` (rows split evenly over `filesPerRun` files). */
export function buildRunExport(run: StoredRun, config: ParquetExportConfig): RunExport {
  const exportedRows = exportedRowCount(run, config.lagSteps);
  const files: Uint8Array[] = [];
  if (exportedRows === 0) return { files, exportedRows };
  const perFile = Math.ceil(exportedRows / Math.max(1, config.filesPerRun));
  for (let start = 0; start < exportedRows; start += perFile) {
    const end = Math.min(exportedRows, start + perFile);
    const rows = run.texts.slice(start, end).map((t) => parseExtendedJson(t) as Record<string, unknown>);
    files.push(writeHistoryParquet(rows, config.rowGroupSize));
  }
  return { files, exportedRows };
}
