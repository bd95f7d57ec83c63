/**
 * CSV bytes of an export table: header line, one line per row, `\n` line endings and a trailing
 * newline, a field quoted only where needed (papaparse's `unparse` rule, see csvField). Record tables
 * are written in byte chunks from rows made on demand, so no file's text or cells exist whole in memory.
 */
import { formatCell, type ExportCell } from "./export-cell";
import type { StreamedTable } from "./packed-table";

/** A table held whole: file name, header, rows of cells (each row as long as the header). */
export interface ExportTable {
  name: string;
  columns: string[];
  rows: ExportCell[][];
}

/** Either kind of export table. */
export type AnyTable = ExportTable | StreamedTable;

/** The table as rows made on demand (a whole table is served from its array). */
export function streamed(table: AnyTable): StreamedTable {
  if ("row" in table) return table;
  const { rows } = table;
  return { name: table.name, columns: table.columns, rowCount: rows.length, row: (i) => rows[i] };
}

/** Every row of a table as an array (tests and small tables; never on the export path of record tables). */
export function tableRows(table: AnyTable): ExportCell[][] {
  if (!("row" in table)) return table.rows;
  const out: ExportCell[][] = [];
  for (let i = 0; i < table.rowCount; i++) out.push(table.row(i));
  return out;
}

/** Characters that make papaparse quote a field: its BAD_DELIMITERS (\r, \n, ", BOM) and the delimiter. */
const NEEDS_QUOTES = /[\r\n"\ufeff,]/;

/**
 * One field as papaparse's `unparse` writes it with `quotes: false` (checked against it in
 * test/export/csv-text.test.ts): quotes doubled, the field quoted when it holds a delimiter, a quote,
 * a line break or a BOM, or starts or ends with a space. Written here because papaparse's generic
 * per-cell serializer was a third of the export time at 10^6 rows; numbers never need quotes.
 */
export function csvField(text: string): string {
  const escaped = text.includes('"') ? text.replace(/"/g, '""') : text;
  const quote = NEEDS_QUOTES.test(escaped) || escaped.charCodeAt(0) === 32 || escaped.charCodeAt(escaped.length - 1) === 32;
  return quote ? `"${escaped}"` : escaped;
}

/** Text of one cell in a CSV line. */
function cellText(v: ExportCell): string {
  return typeof v === "string" ? csvField(v) : formatCell(v);
}

/** Throws `invalid columns of <table>` when a column name repeats. */
function checkColumns(table: AnyTable): void {
  if (new Set(table.columns).size !== table.columns.length) throw new Error(`invalid columns of ${table.name}: a column name repeats`);
}

/** Bytes per chunk of {@link csvByteChunks}. */
const CHUNK_BYTES = 1 << 22;

/**
 * The CSV bytes (UTF-8) of a table in chunks of about 4 MB (header first); joined they are
 * {@link csvText}. Each line is written straight into the chunk's buffer, so no chunk-sized string is
 * built and copied again (17% of the export's time at 2x10^5 updates). Throws naming the table and
 * row when a row's length differs from the header.
 */
export function* csvByteChunks(table: AnyTable): Generator<Uint8Array> {
  checkColumns(table);
  const t = streamed(table);
  const width = t.columns.length;
  let buf = Buffer.allocUnsafe(CHUNK_BYTES);
  let off = 0;
  const put = function* (line: string): Generator<Uint8Array> {
    // A UTF-16 unit is at most 3 UTF-8 bytes: flush first when the line might not fit.
    if (off + line.length * 3 > buf.length) {
      if (off > 0) yield buf.subarray(0, off);
      buf = Buffer.allocUnsafe(Math.max(CHUNK_BYTES, line.length * 3));
      off = 0;
    }
    off += buf.write(line, off);
  };
  yield* put(`${t.columns.map(csvField).join(",")}\n`);
  for (let i = 0; i < t.rowCount; i++) {
    const row = t.row(i);
    if (row.length !== width) throw new Error(`invalid rows of ${t.name}: data row ${i + 1} has ${row.length} cells, the header ${width}`);
    let line = cellText(row[0]);
    for (let j = 1; j < width; j++) line += `,${cellText(row[j])}`;
    yield* put(`${line}\n`);
  }
  if (off > 0) yield buf.subarray(0, off);
}

/**
 * CSV text of a table. Throws naming the table and row when a row's length differs from the header.
 * @example csvText({ name: "t.csv", columns: ["a", "b"], rows: [[1, NaN]] }) // "a,b\n1,NaN\n"
 */
export function csvText(table: AnyTable): string {
  return Buffer.concat([...csvByteChunks(table)]).toString("utf8");
}
