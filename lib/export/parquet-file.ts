/**
 * Parquet bytes of a record table (rollouts, updates): the CSV's columns and rows, typed. `round` and
 * `run_id` are strings, the integer axis columns int64, every other column float64 with NaN and
 * ±Infinity kept as IEEE values and a missing cell as null. Written by parquet-wasm (the Rust
 * `parquet` crate) from an Arrow table built with apache-arrow; same table, same bytes: no time or
 * random id is written, `created_by` is set by the caller, ZSTD pages.
 */
import type { ExportCell } from "./export-cell";
import type { ExportTable } from "./csv-text";

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
  return `rl-run-diagnostics ${workspaceVersion} (parquet-wasm)`;
}

// The few parts of apache-arrow and parquet-wasm used here. Both are loaded on first use (the wasm
// module is 5 MB: CSV-only exports and notebooks never pay for it) and typed here because
// apache-arrow's own declarations need a newer @types/node and TypeScript than tslab compiles with.
interface ArrowData {
  readonly length: number;
}
interface ArrowModule {
  Float64: new () => object;
  Int64: new () => object;
  Utf8: new () => object;
  Field: new (name: string, type: object, nullable: boolean) => object;
  Struct: new (fields: object[]) => object;
  Schema: new (fields: object[]) => object;
  RecordBatch: new (schema: object, data: ArrowData) => object;
  Table: new (batches: object[]) => object;
  makeData(props: {
    type: object;
    length: number;
    nullCount: number;
    data?: Float64Array | BigInt64Array | Uint8Array;
    valueOffsets?: Int32Array;
    nullBitmap?: Uint8Array;
    children?: ArrowData[];
  }): ArrowData;
  tableToIPC(table: object, format: "stream"): Uint8Array;
}
interface WriterPropertiesBuilder {
  setCreatedBy(value: string): WriterPropertiesBuilder;
  setCompression(value: number): WriterPropertiesBuilder;
  build(): object;
}
interface ParquetWasmModule {
  Table: { fromIPCStream(buf: Uint8Array): object };
  WriterPropertiesBuilder: new () => WriterPropertiesBuilder;
  Compression: { ZSTD: number };
  writeParquet(table: object, props: object): Uint8Array;
}

let modules: { arrow: ArrowModule; parquet: ParquetWasmModule } | null = null;

/** apache-arrow and parquet-wasm (its CommonJS build for Node), loaded once. */
function parquetModules(): { arrow: ArrowModule; parquet: ParquetWasmModule } {
  if (modules === null) modules = { arrow: require("apache-arrow") as ArrowModule, parquet: require("parquet-wasm") as ParquetWasmModule };
  return modules;
}

/** Type of a column by name: PARQUET_COLUMN_TYPES, else float64. */
export function parquetColumnType(name: string): ParquetColumnType {
  return Object.prototype.hasOwnProperty.call(PARQUET_COLUMN_TYPES, name) ? PARQUET_COLUMN_TYPES[name] : "float64";
}

/** Validity bitmap (Arrow: least significant bit first, 1 = a value) and null count of column `j`. */
function validity(rows: readonly ExportCell[][], j: number): { nullBitmap: Uint8Array; nullCount: number } {
  const nullBitmap = new Uint8Array(Math.ceil(rows.length / 8));
  let nullCount = 0;
  for (let i = 0; i < rows.length; i++) {
    const c = rows[i][j];
    if (c === null || c === undefined) nullCount++;
    else nullBitmap[i >> 3] |= 1 << (i & 7);
  }
  return { nullBitmap, nullCount };
}

/** Throws naming the table, row (1-based, as in the CSV) and column when a cell does not fit the column type. */
function cellError(table: string, row: number, column: string, type: ParquetColumnType, cell: ExportCell): Error {
  return new Error(`invalid cell of ${table}: data row ${row + 1}, column ${column}: ${JSON.stringify(cell)} is not a ${type} value`);
}

/** Arrow Utf8 data of string column `j`: each distinct text encoded once (round and run_id repeat on every row). */
function stringData(arrow: ArrowModule, table: ExportTable, j: number): ArrowData {
  const { rows } = table;
  const encoded = new Map<string, Buffer>();
  const valueOffsets = new Int32Array(rows.length + 1);
  for (let i = 0; i < rows.length; i++) {
    const c = rows[i][j];
    let size = 0;
    if (c !== null && c !== undefined) {
      if (typeof c !== "string") throw cellError(table.name, i, table.columns[j], "string", c);
      let b = encoded.get(c);
      if (b === undefined) encoded.set(c, (b = Buffer.from(c, "utf8")));
      size = b.length;
    }
    valueOffsets[i + 1] = valueOffsets[i] + size;
  }
  const data = new Uint8Array(valueOffsets[rows.length]);
  for (let i = 0; i < rows.length; i++) {
    const c = rows[i][j];
    if (typeof c === "string") data.set(encoded.get(c)!, valueOffsets[i]);
  }
  return arrow.makeData({ type: new arrow.Utf8(), length: rows.length, ...validity(rows, j), valueOffsets, data });
}

/** Arrow data of column `j` of its type; one pass over the rows, no copy of the cells. */
function columnData(arrow: ArrowModule, table: ExportTable, j: number, type: ParquetColumnType): ArrowData {
  if (type === "string") return stringData(arrow, table, j);
  const { rows } = table;
  const data = type === "int64" ? new BigInt64Array(rows.length) : new Float64Array(rows.length);
  for (let i = 0; i < rows.length; i++) {
    const c = rows[i][j];
    if (c === null || c === undefined) continue;
    if (typeof c !== "number" || (type === "int64" && !Number.isSafeInteger(c))) throw cellError(table.name, i, table.columns[j], type, c);
    if (data instanceof BigInt64Array) data[i] = BigInt(c);
    else data[i] = c;
  }
  return arrow.makeData({ type: type === "int64" ? new arrow.Int64() : new arrow.Float64(), length: rows.length, ...validity(rows, j), data });
}

/**
 * Parquet bytes of `table` (rows in order), leaving out the columns in `omit` (the partition column
 * of a hive layout). Throws `invalid cell of <table>: ...` for a cell that does not fit its column.
 * @example parquetBytes({ name: "t.csv", columns: ["round", "x"], rows: [["R0", NaN]] }, "rl-run-diagnostics 0.1.0 (parquet-wasm)")
 */
export function parquetBytes(table: ExportTable, createdBy: string, omit: readonly string[] = []): Uint8Array {
  const { arrow, parquet } = parquetModules();
  const kept = table.columns.map((name, j) => ({ name, j })).filter((c) => !omit.includes(c.name));
  const fields: object[] = [];
  const children: ArrowData[] = [];
  for (const { name, j } of kept) {
    const type = parquetColumnType(name);
    const data = columnData(arrow, table, j, type);
    fields.push(new arrow.Field(name, type === "string" ? new arrow.Utf8() : type === "int64" ? new arrow.Int64() : new arrow.Float64(), true));
    children.push(data);
  }
  // A struct of the columns is a record batch: column order stays as given, whatever the names.
  const rows = arrow.makeData({ type: new arrow.Struct(fields), length: table.rows.length, nullCount: 0, children });
  const ipc = arrow.tableToIPC(new arrow.Table([new arrow.RecordBatch(new arrow.Schema(fields), rows)]), "stream");
  const props = new parquet.WriterPropertiesBuilder().setCreatedBy(createdBy).setCompression(parquet.Compression.ZSTD).build();
  return parquet.writeParquet(parquet.Table.fromIPCStream(ipc), props);
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
export function parquetFiles(table: ExportTable, layout: ParquetLayout, createdBy: string): ParquetFile[] {
  const stem = table.name.replace(/\.csv$/, "");
  if (layout === "flat") {
    return [{ name: `${stem}.parquet`, bytes: parquetBytes(table, createdBy), rows: table.rows.length, columns: [...table.columns] }];
  }
  const r = table.columns.indexOf("round");
  if (r < 0) throw new Error(`invalid table for the hive layout: ${table.name} has no round column`);
  const byRound = new Map<string, ExportCell[][]>();
  for (const row of table.rows) {
    const label = String(row[r]);
    if (!HIVE_VALUE.test(label) || label === "." || label === "..") {
      throw new Error(`invalid round for the hive layout: ${JSON.stringify(label)} (letters, digits, ".", "_" and "-" only)`);
    }
    const rows = byRound.get(label);
    if (rows) rows.push(row);
    else byRound.set(label, [row]);
  }
  const columns = table.columns.filter((c) => c !== "round");
  return Array.from(byRound, ([label, rows]) => ({
    name: `${stem}/round=${label}/part-0.parquet`,
    bytes: parquetBytes({ name: table.name, columns: table.columns, rows }, createdBy, ["round"]),
    rows: rows.length,
    columns,
  }));
}
