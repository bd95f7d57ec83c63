/** Showing a table in a notebook: the HTML table, then its caption / reading note as markdown below. */
import { resolveDisplay, type ShowOptions } from "./display-target";
import { precisionNote, tableHtml, tableRows, type DataFrameLike, type TableOptions } from "./table-html";
import { capRows, MAX_TABLE_ROWS, rowCapNote } from "./table-row-cap";

/** Options of showTable. */
export interface ShowTableOptions extends TableOptions, ShowOptions {
  /** Rows printed at most, the first ones; the caption says how many of how many. Default MAX_TABLE_ROWS; Infinity: all. */
  maxRows?: number;
}

/** The caption markdown shown below a table: the caption, then the row-cap and precision sentences (if any). */
export function tableCaptionMarkdown(caption: string, columns: readonly string[], precision: TableOptions["precision"], capNote = ""): string {
  const note = [capNote, precisionNote(columns, precision)].filter((x) => x !== "").join(" ");
  return note ? `${caption.trim()}\n\n*${note}*` : caption.trim();
}

/**
 * Display rows or a danfojs DataFrame as an HTML table, and `caption` (markdown) below it.
 * @example showTable(roundMeans, "Round means over optimizer updates.", { precision: { entropy: 5 } })
 */
export function showTable(table: readonly object[] | DataFrameLike, caption: string, options: ShowTableOptions = {}): void {
  if (typeof caption !== "string") throw new Error(`invalid caption: ${String(caption)}`);
  const display = resolveDisplay(options);
  const { columns, rows } = tableRows(table, options.columns);
  const { shown, total } = capRows(rows, options.maxRows ?? MAX_TABLE_ROWS);
  // Columns come from every row, so a column only later rows have still gets its header.
  display.html(tableHtml(shown, { ...options, columns }));
  const md = tableCaptionMarkdown(caption, columns, options.precision, rowCapNote(shown.length, total));
  if (md) display.markdown(md);
}
