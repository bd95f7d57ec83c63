/**
 * CSV bytes of an export table: header line, one line per row, `\n` line endings and a trailing
 * newline; quoting (only where needed) is left to papaparse's `unparse`.
 */
// Namespace import: tslab compiles without esModuleInterop, and papaparse is a plain CommonJS object.
import * as Papa from "papaparse";

import { formatCell, type ExportCell } from "./export-cell";

const CHUNK_ROWS = 10_000;

/** A table to export: file name, header, rows of cells (each row as long as the header). */
export interface ExportTable {
  name: string;
  columns: string[];
  rows: ExportCell[][];
}

/**
 * CSV text of a table. Throws naming the table and row when a row's length differs from the header.
 * @example csvText({ name: "t.csv", columns: ["a", "b"], rows: [[1, NaN]] }) // "a,b\n1,NaN\n"
 */
export function csvText(table: ExportTable): string {
  const { name, columns, rows } = table;
  if (new Set(columns).size !== columns.length) throw new Error(`invalid columns of ${name}: a column name repeats`);
  // escapeFormulae stays off: it would rewrite cells such as "-Inf" and negative numbers.
  const opts = { newline: "\n", quotes: false, escapeFormulae: false };
  const header = Papa.unparse({ fields: columns, data: [] }, { ...opts, header: true });
  const parts: string[] = [header.endsWith("\n") ? header : header + "\n"];
  // Formatted in chunks: all cells of a 10^6-row table as strings at once would be gigabytes.
  for (let start = 0; start < rows.length; start += CHUNK_ROWS) {
    const data = rows.slice(start, start + CHUNK_ROWS).map((row, j) => {
      if (row.length !== columns.length) {
        throw new Error(`invalid rows of ${name}: data row ${start + j + 1} has ${row.length} cells, the header ${columns.length}`);
      }
      return row.map(formatCell);
    });
    parts.push(Papa.unparse(data, { ...opts, header: false }) + "\n");
  }
  return parts.join("");
}
