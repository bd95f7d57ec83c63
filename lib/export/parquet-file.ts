/**
 * Parquet bytes of a record table (rollouts, updates): the CSV's columns and rows, typed. `round` and
 * `run_id` are strings, the integer axis columns int64, every other column float64 with NaN and
 * ±Infinity kept as IEEE values and a missing cell as null. Written by hyparquet-writer (pure
 * JavaScript, the writer the test server already uses); same table, same bytes: no time or random id
 * is written, `created_by` is set by the caller, Snappy pages.
 */
import { pathToFileURL } from "node:url";

import type { ExportCell } from "./export-cell";
import { streamed, type AnyTable } from "./csv-text";
import type { StreamedTable } from "./packed-table";

/** Parquet physical type of an export column. */
export type ParquetColumnType = "string" | "int64" | "float64";

/** Columns that are not float64, by name (the axis columns of rollouts.csv and updates.csv). */
export const PARQUET_COLUMN_TYPES: Readonly<Record<string, ParquetColumnType>> = {
  round: "string",
  run_id: "string",
  rollout: "int64",
  update: "int64",
  train_step: "int64",
  update_in_rollout: "int64",
};

/** How the Parquet files of a table are laid out: one file, or one file per round in `round=<label>/` folders. */
export type ParquetLayout = "flat" | "hive";

/** The `created_by` field of every Parquet file the workspace writes (no version of a build tool, no time). */
export function parquetCreatedBy(workspaceVersion: string): string {
  return `rl-run-diagnostics ${workspaceVersion} (hyparquet-writer)`;
}

// hyparquet-writer is an ES module only, and tslab compiles lib/ to CommonJS: Node >= 20.19
// `require()`s it (tsx and tslab take that path); older Nodes need the real `import()` of
// loadParquetWriter first. Typed here: its declarations import `.d.ts` paths TypeScript 5.0 rejects.
/** One column as hyparquet-writer takes it. */
interface ColumnSource {
  name: string;
  data: (string | number | bigint | null)[];
  type: "STRING" | "INT64" | "DOUBLE";
  nullable: boolean;
}
/** The part of hyparquet-writer used here. */
interface ParquetWriterModule {
  parquetWriteBuffer(options: { columnData: ColumnSource[]; createdBy: string }): ArrayBuffer;
}

let writerModule: ParquetWriterModule | null = null;
const dynamicImport = new Function("specifier", "return import(specifier)") as (specifier: string) => Promise<unknown>;

/** Loads hyparquet-writer once: `require()`, or on Nodes before 20.19 a real `import()`. */
export async function loadParquetWriter(): Promise<void> {
  if (writerModule !== null) return;
  try {
    writerModule = require("hyparquet-writer") as ParquetWriterModule;
  } catch (e) {
    if ((e as { code?: string }).code !== "ERR_REQUIRE_ESM") throw e;
    writerModule = (await dynamicImport(pathToFileURL(require.resolve("hyparquet-writer")).href)) as ParquetWriterModule;
  }
}

/** The loaded writer; loaded here when `require()` can (Node >= 20.19). */
function parquetWriter(): ParquetWriterModule {
  if (writerModule === null) {
    try {
      writerModule = require("hyparquet-writer") as ParquetWriterModule;
    } catch (e) {
      if ((e as { code?: string }).code !== "ERR_REQUIRE_ESM") throw e;
      throw new Error("the Parquet writer (hyparquet-writer, an ES module) is not loaded: await loadParquetWriter() first on Node < 20.19");
    }
  }
  return writerModule;
}

/** Type of a column by name: PARQUET_COLUMN_TYPES, else float64. */
export function parquetColumnType(name: string): ParquetColumnType {
  return Object.hasOwn(PARQUET_COLUMN_TYPES, name) ? PARQUET_COLUMN_TYPES[name] : "float64";
}

/** Throws naming the table, row (1-based, as in the CSV) and column when a cell does not fit the column type. */
function cellError(table: string, row: number, column: string, type: ParquetColumnType, cell: ExportCell): Error {
  return new Error(`invalid cell of ${table}: data row ${row + 1}, column ${column}: ${JSON.stringify(cell)} is not a ${type} value`);
}

/** Throws unless `cell` fits `type`; the value as the writer takes it (null = missing). */
function writerValue(cell: ExportCell, type: ParquetColumnType): string | number | bigint | null | undefined {
  if (cell === null || cell === undefined) return null;
  if (type === "string" ? typeof cell === "string" : typeof cell === "number" && (type === "float64" || Number.isSafeInteger(cell)))
    return type === "int64" ? BigInt(cell) : cell;
  return undefined;
}

/** Values of the columns `keep` of the rows `pick` (all when omitted), one pass over the rows. */
function columnValues(
  table: StreamedTable,
  keep: readonly number[],
  types: readonly ParquetColumnType[],
  pick?: readonly number[],
): (string | number | bigint | null)[][] {
  const count = pick ? pick.length : table.rowCount;
  const out = keep.map(() => new Array<string | number | bigint | null>(count));
  for (let k = 0; k < count; k++) {
    const i = pick ? pick[k] : k;
    const row = table.row(i);
    for (let c = 0; c < keep.length; c++) {
      const v = writerValue(row[keep[c]], types[c]);
      if (v === undefined) throw cellError(table.name, i, table.columns[keep[c]], types[c], row[keep[c]]);
      out[c][k] = v;
    }
  }
  return out;
}

/** hyparquet-writer's type of a column type. */
const WRITER_TYPES: Readonly<Record<ParquetColumnType, ColumnSource["type"]>> = { string: "STRING", int64: "INT64", float64: "DOUBLE" };

/**
 * Parquet bytes of `table` (its rows `pick` in that order, all when omitted), leaving out the columns in
 * `omit` (the partition column of a hive layout). Throws `invalid cell of <table>: ...` for a cell that
 * does not fit its column.
 * @example parquetBytes({ name: "t.csv", columns: ["round", "x"], rows: [["R0", NaN]] }, "rl-run-diagnostics 0.1.0 (hyparquet-writer)")
 */
export function parquetBytes(table: AnyTable, createdBy: string, omit: readonly string[] = [], pick?: readonly number[]): Uint8Array {
  const t = streamed(table);
  const keep = t.columns.flatMap((name, j) => (omit.includes(name) ? [] : [j]));
  const types = keep.map((j) => parquetColumnType(t.columns[j]));
  const data = columnValues(t, keep, types, pick);
  const columnData: ColumnSource[] = keep.map((j, c) => ({ name: t.columns[j], data: data[c], type: WRITER_TYPES[types[c]], nullable: true }));
  return new Uint8Array(parquetWriter().parquetWriteBuffer({ columnData, createdBy }));
}

/** One Parquet file of a table: its path inside the export folder, bytes, rows and columns. */
export interface ParquetFile {
  name: string;
  bytes: Uint8Array;
  rows: number;
  columns: string[];
}

/** A round label as a hive folder name part: letters, digits, `.`, `_` and `-` only (no escaping needed by any reader). */
const HIVE_VALUE = /^[A-Za-z0-9._-]+$/;

/**
 * The Parquet files of a record table: `rollouts.parquet` (flat), or `rollouts/round=R0/part-0.parquet`
 * ... one per round in order of first appearance, without the `round` column, which readers take
 * from the path (hive). Throws `invalid round for the hive layout: <label>` for a label a path cannot carry.
 * @example parquetFiles(rolloutsTable(aligned), "hive", createdBy).map((f) => f.name) // ["rollouts/round=R0/part-0.parquet", ...]
 */
export function parquetFiles(table: AnyTable, layout: ParquetLayout, createdBy: string): ParquetFile[] {
  const t = streamed(table);
  const stem = t.name.replace(/\.csv$/, "");
  if (layout === "flat") {
    return [{ name: `${stem}.parquet`, bytes: parquetBytes(t, createdBy), rows: t.rowCount, columns: [...t.columns] }];
  }
  const r = t.columns.indexOf("round");
  if (r < 0) throw new Error(`invalid table for the hive layout: ${t.name} has no round column`);
  // Row indices per round, not rows: a round's cells are made again while its file is written.
  const byRound = new Map<string, number[]>();
  for (let i = 0; i < t.rowCount; i++) {
    const label = String(t.row(i)[r]);
    if (!HIVE_VALUE.test(label) || label === "." || label === "..") {
      throw new Error(`invalid round for the hive layout: ${JSON.stringify(label)} (letters, digits, ".", "_" and "-" only)`);
    }
    const rows = byRound.get(label);
    if (rows) rows.push(i);
    else byRound.set(label, [i]);
  }
  const columns = t.columns.filter((c) => c !== "round");
  return Array.from(byRound, ([label, rows]) => ({
    name: `${stem}/round=${label}/part-0.parquet`,
    bytes: parquetBytes(t, createdBy, ["round"], rows),
    rows: rows.length,
    columns,
  }));
}
