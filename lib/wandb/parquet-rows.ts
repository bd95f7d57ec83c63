/**
 * Numeric history rows from one exported Parquet file, read row group by row group (memory stays one
 * row group however long the run). An export has every key as a column and every row holds every
 * column, null where the row did not log the key: null is ABSENT here, never NaN or 0 (NaN is a
 * number in a DOUBLE column). Numeric columns (DOUBLE, FLOAT, INT32, INT64) give numbers; a text
 * column is read as the JSON text of each value, and kept only where that text is a number or a
 * non-finite marker, as the paged path would; everything else (media, strings, booleans, nested
 * values) is dropped and counted, like the paged path does.
 */
import { frozenValue } from "../values/frozen-row";
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
  /** Columns with nested values (structs, lists): such a file is read row by row. */
  nestedColumns: number;
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
    return logical === undefined || logical === "INTEGER"
      ? el.converted_type === undefined || /^U?INT_/.test(el.converted_type)
        ? "number"
        : "other"
      : "other";
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
  const tree = hyparquet.parquetSchema(metadata).children;
  const columns: ExportColumn[] = tree.map((c) => ({ name: c.element.name, kind: columnKind(c as never) }));
  const nestedColumns = tree.filter((c) => c.children.length > 0).length;
  const step = columns.find((c) => c.name === "_step");
  if (!step)
    throw new Error(
      `has no _step column (columns: ${columns
        .slice(0, 8)
        .map((c) => c.name)
        .join(", ")}${columns.length > 8 ? ", ..." : ""})`,
    );
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
  return { index, columns, rows, groupRows: metadata.row_groups.map((g) => Number(g.num_rows)), firstStep, nestedColumns, buffer, metadata };
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

/** Rows per batch of frozen lines handed on by `readExportLines`. */
const LINE_BATCH = 1000;

/** One batch of rows as frozen lines, with each row's `_step` (NaN when missing) and the numeric keys seen. */
export interface ExportLines {
  lines: string[];
  steps: number[];
  keys: string[];
}

/**
 * Reads an opened export row group by row group straight into frozen lines, handed on in batches of 1000 (lib/values/frozen-row.ts
 * format): the columns are walked in frozen key order and each row's line is written from them, with
 * no row object, no per-row key sort and no transposition of the columns into rows. Same bytes as
 * `readExportRows` + the frozen serializer (a test compares them); same null/absent and drop rules.
 */
export async function readExportLines(file: ExportFile, dropped: DroppedKeyCounts, onGroup: (group: ExportLines) => void | Promise<void>): Promise<void> {
  // Frozen key order is Array#sort's (UTF-16 code units); each column's text before its value is made once.
  const cols: LineColumn[] = file.columns
    .map((c) => ({ name: c.name, kind: c.kind, prefix: JSON.stringify(c.name) + ":", isStep: c.name === "_step", values: [] as ArrayLike<unknown>, base: 0 }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  let start = 0;
  for (const count of file.groupRows) {
    const end = start + count;
    await readGroupColumns(file, cols, start, end);
    // Lines go on in batches: a line built by concatenation is a rope several times its flat size
    // until the writer flattens it, so a whole row group of them would multiply the peak memory.
    let lines: string[] = [];
    let steps: number[] = [];
    let keys = new Set<string>();
    for (let i = 0; i < count; i++) {
      const { line, step } = frozenLine(cols, start + i, dropped, keys);
      lines.push(line);
      steps.push(step);
      if (lines.length === LINE_BATCH || i === count - 1) {
        await onGroup({ lines, steps, keys: Array.from(keys) });
        lines = [];
        steps = [];
        keys = new Set<string>();
      }
    }
    for (const col of cols) col.values = [];
    start = end;
  }
}

/** A column as readExportLines walks it: its values for the row group being read, from row `base`. */
interface LineColumn {
  name: string;
  kind: ExportFile["columns"][number]["kind"];
  /** `"name":`, the text before its value in a frozen line. */
  prefix: string;
  isStep: boolean;
  values: ArrayLike<unknown>;
  base: number;
}

/** Reads rows [start, end) of every column into `cols` (one array per column: a whole chunk, or the pieces joined). */
async function readGroupColumns(file: ExportFile, cols: LineColumn[], start: number, end: number): Promise<void> {
  const { hyparquet, compressors } = await loadParquetModules();
  const pieces = new Map<string, { data: ArrayLike<unknown>; rowStart: number; rowEnd: number }[]>();
  await hyparquet.parquetRead({
    file: file.buffer,
    metadata: file.metadata,
    compressors,
    columns: file.columns.map((c) => c.name),
    rowStart: start,
    rowEnd: end,
    onChunk: (chunk) => {
      const list = pieces.get(chunk.columnName) ?? [];
      list.push({ data: chunk.columnData as ArrayLike<unknown>, rowStart: chunk.rowStart, rowEnd: chunk.rowEnd });
      pieces.set(chunk.columnName, list);
    },
  });
  for (const col of cols) {
    const list = pieces.get(col.name) ?? [];
    const whole = list.find((p) => p.rowStart <= start && p.rowEnd >= end);
    if (whole) {
      col.values = whole.data;
      col.base = whole.rowStart;
    } else {
      // Several pieces (or none: an all-null column): one array for the group.
      const values: unknown[] = new Array(end - start).fill(null);
      for (const p of list) for (let r = Math.max(p.rowStart, start); r < Math.min(p.rowEnd, end); r++) values[r - start] = p.data[r - p.rowStart];
      col.values = values;
      col.base = start;
    }
  }
}

/** Row r's frozen line and `_step`, columns in frozen key order; values that are no number are dropped and counted. */
function frozenLine(cols: LineColumn[], r: number, dropped: DroppedKeyCounts, keys: Set<string>): { line: string; step: number } {
  let out = "";
  let step = NaN;
  for (let c = 0; c < cols.length; c++) {
    const col = cols[c];
    const v = col.values[r - col.base];
    if (v === null || v === undefined) continue;
    let n: number | undefined;
    if (col.kind === "number") n = typeof v === "bigint" ? Number(v) : (v as number);
    else if (col.kind === "text" && typeof v === "string") n = numberFromText(v);
    if (n === undefined) {
      dropped.set(col.name, (dropped.get(col.name) ?? 0) + 1);
      continue;
    }
    if (col.isStep) step = n;
    keys.add(col.name);
    // String(n) prints finite numbers exactly as the frozen serializer does.
    out += (out === "" ? "{" : ",") + col.prefix + (Number.isFinite(n) ? String(n) : frozenValue(n));
  }
  return { line: out === "" ? "{}" : `${out}}`, step };
}
