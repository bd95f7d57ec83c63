/**
 * Numeric history rows from one exported Parquet file, read row group by row group (memory stays one
 * row group however long the run). An export has every key as a column and every row holds every
 * column, null where the row did not log the key: null is ABSENT here, never NaN or 0 (NaN is a
 * number in a DOUBLE column). Numeric columns (DOUBLE, FLOAT, INT32, INT64) give numbers; a text
 * column is read as the JSON text of each value, and kept only where that text is a number or a
 * non-finite marker, as the paged path would; everything else (media, strings, booleans, nested
 * values) is dropped and counted, like the paged path does.
 */
import type { HistoryRow } from "../types";
import { nonFiniteValue, parseExtendedJson, type DroppedKeyCounts } from "./parse-history-row";
import { loadParquetModules, type ParquetModules } from "./parquet-module";

type Metadata = ReturnType<ParquetModules["hyparquet"]["parquetMetadata"]>;

/** How a top-level column's values are read. */
type ColumnKind = "number" | "text" | "other";

/** A top-level column of an export. */
export interface ExportColumn {
  name: string;
  kind: ColumnKind;
}

/** An opened export file: its columns, rows, row groups, and the `_step` of its first row. */
export interface ExportFile {
  /** Index of the file in the server's list (for messages). */
  index: number;
  columns: ExportColumn[];
  rows: number;
  /** Row count of each row group, in file order. */
  groupRows: number[];
  /** `_step` of the first row, null when the file has no rows. */
  firstStep: number | null;
  buffer: ArrayBuffer;
  metadata: Metadata;
}

const NUMERIC_TYPES = new Set(["DOUBLE", "FLOAT", "INT32", "INT64"]);

/** Kind of a top-level schema node: plain numeric leaf, UTF-8 text leaf, or anything else. */
function columnKind(node: { children: unknown[]; element: { type?: string; converted_type?: string; logical_type?: { type?: string } } }): ColumnKind {
  if (node.children.length > 0) return "other";
  const el = node.element;
  const logical = el.logical_type?.type;
  if (el.type !== undefined && NUMERIC_TYPES.has(el.type)) {
    // Dates, times and decimals are not plain numbers as a history value would be.
    return logical === undefined || logical === "INTEGER" ? (el.converted_type === undefined || /^U?INT_/.test(el.converted_type) ? "number" : "other") : "other";
  }
  if (el.type === "BYTE_ARRAY" && (logical === "STRING" || logical === "JSON" || el.converted_type === "UTF8" || el.converted_type === "JSON")) return "text";
  return "other";
}

/** Copy-free ArrayBuffer view of exactly these bytes (hyparquet reads an ArrayBuffer). */
function exactBuffer(bytes: Uint8Array): ArrayBuffer {
  if (bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength) return bytes.buffer as ArrayBuffer;
  return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
}

/** Opens one downloaded export; throws when it is not Parquet or has no `_step` column. */
export async function openExportFile(bytes: Uint8Array, index: number): Promise<ExportFile> {
  const { hyparquet, compressors } = await loadParquetModules();
  const buffer = exactBuffer(bytes);
  const metadata = hyparquet.parquetMetadata(buffer);
  const columns: ExportColumn[] = hyparquet.parquetSchema(metadata).children.map((c) => ({ name: c.element.name, kind: columnKind(c as never) }));
  const step = columns.find((c) => c.name === "_step");
  if (!step) throw new Error(`has no _step column (columns: ${columns.slice(0, 8).map((c) => c.name).join(", ")}${columns.length > 8 ? ", ..." : ""})`);
  if (step.kind !== "number") throw new Error("its _step column is not numeric");
  const rows = Number(metadata.num_rows);
  let firstStep: number | null = null;
  if (rows > 0) {
    await hyparquet.parquetRead({
      file: buffer,
      metadata,
      compressors,
      columns: ["_step"],
      rowStart: 0,
      rowEnd: 1,
      onComplete: (r: unknown[][]) => {
        const v = r[0]?.[0];
        firstStep = typeof v === "bigint" ? Number(v) : typeof v === "number" ? v : null;
      },
    });
  }
  return { index, columns, rows, groupRows: metadata.row_groups.map((g) => Number(g.num_rows)), firstStep, buffer, metadata };
}

/** Number for a text column's value (JSON text of a number or of a non-finite marker), else undefined. */
function numberFromText(text: string): number | undefined {
  let parsed: unknown;
  try {
    parsed = parseExtendedJson(text);
  } catch {
    return undefined; // plain text, not JSON: a string value
  }
  return typeof parsed === "number" ? parsed : nonFiniteValue(parsed);
}

/** Numeric row from one row of column values; nulls are absent keys, the rest as the module doc says. */
export function exportRowToNumeric(columns: readonly ExportColumn[], values: readonly unknown[], dropped: DroppedKeyCounts): HistoryRow {
  const row: HistoryRow = {};
  for (let c = 0; c < columns.length; c++) {
    const v = values[c];
    if (v === null || v === undefined) continue;
    const col = columns[c];
    let n: number | undefined;
    if (col.kind === "number") n = typeof v === "bigint" ? Number(v) : (v as number);
    else if (col.kind === "text" && typeof v === "string") n = numberFromText(v);
    if (n === undefined) dropped.set(col.name, (dropped.get(col.name) ?? 0) + 1);
    else row[col.name] = n;
  }
  return row;
}

/** Reads an opened export row group by row group; `onRows` gets each group's numeric rows in order. */
export async function readExportRows(file: ExportFile, dropped: DroppedKeyCounts, onRows: (rows: HistoryRow[]) => void | Promise<void>): Promise<void> {
  const { hyparquet, compressors } = await loadParquetModules();
  const names = file.columns.map((c) => c.name);
  let start = 0;
  for (const count of file.groupRows) {
    let values: unknown[][] = [];
    await hyparquet.parquetRead({
      file: file.buffer,
      metadata: file.metadata,
      compressors,
      columns: names,
      rowStart: start,
      rowEnd: start + count,
      onComplete: (r: unknown[][]) => {
        values = r;
      },
    });
    const rows: HistoryRow[] = new Array(values.length);
    for (let i = 0; i < values.length; i++) rows[i] = exportRowToNumeric(file.columns, values[i], dropped);
    values = [];
    await onRows(rows);
    start += count;
  }
}
