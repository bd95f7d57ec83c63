/** Showing a table in a notebook: the HTML table, then its caption / reading note as markdown below. */
import { resolveDisplay, type ShowOptions } from "./display-target";
import { precisionNote, tableHtml, tableRows, type DataFrameLike, type TableOptions } from "./table-html";

/** Options of showTable. */
export interface ShowTableOptions extends TableOptions, ShowOptions {}

/** The caption markdown shown below a table: the caption, then the precision sentence (if any). */
export function tableCaptionMarkdown(caption: string, columns: readonly string[], precision: TableOptions["precision"]): string {
  const note = precisionNote(columns, precision);
  return note ? `${caption.trim()}\n\n*${note}*` : caption.trim();
}

/**
 * Display rows or a danfojs DataFrame as an HTML table, and `caption` (markdown) below it.
 * @example showTable(roundMeans, "Round means over optimizer updates.", { precision: { entropy: 5 } })
 */
export function showTable(table: readonly object[] | DataFrameLike, caption: string, options: ShowTableOptions = {}): void {
  if (typeof caption !== "string") throw new Error(`invalid caption: ${String(caption)}`);
  const display = resolveDisplay(options);
  const html = tableHtml(table, options);
  const { columns } = tableRows(table, options.columns);
  display.html(html);
  const md = tableCaptionMarkdown(caption, columns, options.precision);
  if (md) display.markdown(md);
}
