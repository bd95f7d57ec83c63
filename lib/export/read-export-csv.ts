/**
 * Reads an export CSV back into typed cells: the text columns (round, run id, state, zero-gradient
 * update list) as strings, every other column as numbers with `NaN`/`Inf`/`-Inf` restored and an
 * empty cell as null (missing).
 */
import { promises as fsp } from "node:fs";
// Namespace import: tslab compiles without esModuleInterop, and papaparse is a plain CommonJS object.
import * as Papa from "papaparse";

import { parseNumberCell, type ExportCell } from "./export-cell";

/** Columns of the exports that hold text, not numbers. */
export const EXPORT_TEXT_COLUMNS: readonly string[] = ["round", "run_id", "state", "zero_grad_norm_updates", "record", "by_round", "by_run_id"];

/** A parsed export CSV: its header and one record per data row (keyed by column name). */
export interface ExportCsv {
  columns: string[];
  rows: Record<string, ExportCell>[];
}

/** Options of {@link readExportCsv}. */
export interface ReadExportCsvOptions {
  /** Name used in error messages. Default "CSV". */
  file?: string;
  /** Columns read as text. Default {@link EXPORT_TEXT_COLUMNS}. */
  textColumns?: readonly string[];
}

/**
 * Parses export CSV text (with its trailing newline). Throws naming file, data row and column on a
 * malformed file or a cell that is not a number in a numeric column.
 * @example readExportCsv("round,x\nR0,NaN\n").rows[0].x // NaN
 */
export function readExportCsv(text: string, opts: ReadExportCsvOptions = {}): ExportCsv {
  const file = opts.file ?? "CSV";
  const textColumns = new Set(opts.textColumns ?? EXPORT_TEXT_COLUMNS);
  if (!text.endsWith("\n")) throw new Error(`${file}: truncated (does not end with a newline)`);
  const parsed = Papa.parse<string[]>(text.slice(0, -1), { delimiter: ",", newline: "\n", quoteChar: '"', header: false });
  if (parsed.errors.length > 0) {
    const e = parsed.errors[0];
    throw new Error(`${file}${e.row === undefined ? "" : ` data row ${e.row}`}: ${e.message}`);
  }
  const [columns, ...data] = parsed.data;
  if (columns === undefined || (columns.length === 1 && columns[0] === "")) throw new Error(`${file}: no header line`);
  if (new Set(columns).size !== columns.length) throw new Error(`${file}: a column name repeats in the header`);
  const rows = data.map((cells, i) => {
    if (cells.length !== columns.length) {
      throw new Error(`${file} data row ${i + 1}: ${cells.length} cells, the header has ${columns.length}`);
    }
    const rec: Record<string, ExportCell> = {};
    columns.forEach((col, c) => {
      const cell = cells[c];
      if (textColumns.has(col)) {
        rec[col] = cell === "" ? null : cell;
        return;
      }
      try {
        rec[col] = parseNumberCell(cell);
      } catch (e) {
        throw new Error(`${file} data row ${i + 1} column ${col}: ${(e as Error).message}`);
      }
    });
    return rec;
  });
  return { columns, rows };
}

/**
 * Reads and parses an export CSV file (see {@link readExportCsv}); errors name the file.
 * @example const { rows } = await readExportCsvFile("exports/summary.csv");
 */
export async function readExportCsvFile(file: string, opts: Omit<ReadExportCsvOptions, "file"> = {}): Promise<ExportCsv> {
  return readExportCsv(await fsp.readFile(file, "utf8"), { ...opts, file });
}
