/**
 * A plain HTML table for notebook output: danfojs has no HTML output in Node, and tslab shows only
 * what we hand it. Cells are escaped; numbers are formatted with a stated precision; a missing value
 * shows as a dash, never as 0.
 */

/** A cell value as it may come from summaries or a DataFrame. */
export type TableCell = string | number | boolean | null | undefined;

/** One table row: column name -> value. */
export type TableRow = Record<string, TableCell>;

/** What the table reads from a danfojs DataFrame (duck-typed so danfojs is not loaded here). */
export interface DataFrameLike {
  columns: string[];
  values: unknown[] | unknown[][];
}

/** Options of tableHtml / showTable. */
export interface TableOptions {
  /** Columns to show, in order. Default: the DataFrame's columns, or keys of the rows in first-seen order. */
  columns?: string[];
  /** Decimals for numbers: one for all columns, or per column. Columns without one use `defaultSignificant`. */
  precision?: number | Record<string, number>;
  /** Significant digits for numbers of columns with no stated precision (integers print whole). Default 6. */
  defaultSignificant?: number;
}

/** Text shown for a missing (absent, null, undefined) value. */
export const MISSING_CELL = "\u2014";

/** Escape text for HTML element content and attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#39;");
}

/** True for a danfojs DataFrame (or anything with `columns` and `values` arrays). */
export function isDataFrameLike(table: unknown): table is DataFrameLike {
  return (
    typeof table === "object" &&
    table !== null &&
    !Array.isArray(table) &&
    Array.isArray((table as DataFrameLike).columns) &&
    Array.isArray((table as DataFrameLike).values)
  );
}

/** Rows and columns of a table given as rows or as a DataFrame. */
export function tableRows(table: readonly object[] | DataFrameLike, columns?: string[]): { columns: string[]; rows: TableRow[] } {
  if (isDataFrameLike(table)) {
    const cols = table.columns.slice();
    // A one-column frame may give a flat array of values.
    const values = table.values.map((v) => (Array.isArray(v) ? v : [v]));
    const rows = values.map((vals) => {
      const row: TableRow = {};
      cols.forEach((c, i) => (row[c] = vals[i] as TableCell));
      return row;
    });
    return { columns: columns ?? cols, rows };
  }
  if (!Array.isArray(table)) throw new Error("invalid table: expected an array of rows or a danfojs DataFrame");
  const seen: string[] = [];
  for (const row of table) for (const c of Object.keys(row)) if (!seen.includes(c)) seen.push(c);
  // Rows may be typed interfaces (no index signature); their cells are read by column name.
  return { columns: columns ?? seen, rows: table.slice() as TableRow[] };
}

/** Decimals stated for a column, or undefined. */
function decimalsFor(column: string, precision: TableOptions["precision"]): number | undefined {
  if (typeof precision === "number") return precision;
  return precision?.[column];
}

/** Cell text: stated decimals, else integers whole and other numbers to `significant` digits. */
export function formatCell(value: TableCell, decimals?: number, significant = 6): string {
  if (value === null || value === undefined) return MISSING_CELL;
  if (typeof value === "number") {
    if (Number.isNaN(value)) return "NaN";
    if (!Number.isFinite(value)) return value > 0 ? "Infinity" : "-Infinity";
    if (decimals !== undefined) return value.toFixed(decimals);
    if (Number.isInteger(value)) return String(value);
    return String(Number(value.toPrecision(significant)));
  }
  return String(value);
}

/** One sentence stating how numbers are rounded, for the caption; "" when nothing was stated. */
export function precisionNote(columns: readonly string[], precision: TableOptions["precision"]): string {
  if (precision === undefined) return "";
  const plural = (d: number) => `${d} decimal${d === 1 ? "" : "s"}`;
  if (typeof precision === "number") return `Numbers are rounded to ${plural(precision)}.`;
  const parts = columns.filter((c) => precision[c] !== undefined).map((c) => `${c}: ${plural(precision[c])}`);
  return parts.length ? `Rounded to ${parts.join("; ")}.` : "";
}

/**
 * The table as HTML (`<table>` with a header row), every text escaped.
 * @example tableHtml([{ round: "R0", entropy: 0.180251 }], { precision: { entropy: 5 } })
 */
export function tableHtml(table: readonly object[] | DataFrameLike, options: TableOptions = {}): string {
  const { defaultSignificant = 6 } = options;
  if (!Number.isInteger(defaultSignificant) || defaultSignificant < 1 || defaultSignificant > 21) {
    throw new Error(`invalid defaultSignificant: ${defaultSignificant}`);
  }
  const decimalsList = typeof options.precision === "number" ? [options.precision] : Object.values(options.precision ?? {});
  for (const d of decimalsList) if (!Number.isInteger(d) || d < 0 || d > 100) throw new Error(`invalid precision: ${d}`);
  const { columns, rows } = tableRows(table, options.columns);
  const head = columns.map((c) => `<th>${escapeHtml(c)}</th>`).join("");
  const body = rows
    .map((row) => {
      const cells = columns.map((c) => {
        const v = row[c];
        const text = escapeHtml(formatCell(v, decimalsFor(c, options.precision), defaultSignificant));
        if (v === null || v === undefined) return `<td title="missing">${text}</td>`;
        return typeof v === "number" ? `<td style="text-align: right">${text}</td>` : `<td style="text-align: left">${text}</td>`;
      });
      return `<tr>${cells.join("")}</tr>`;
    })
    .join("\n");
  return `<table>\n<thead><tr>${head}</tr></thead>\n<tbody>\n${body}\n</tbody>\n</table>`;
}
