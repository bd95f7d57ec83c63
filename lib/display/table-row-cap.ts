/**
 * How many rows a notebook table prints. A table of issues, mismatches or records can grow with the
 * data (10^5 rows at 10^6 updates would be tens of MB of HTML in the executed notebook); past the cap
 * the first rows are shown and the caption says how many of how many.
 */

/** Rows showTable prints by default (the sample workspace's largest table has 17). */
export const MAX_TABLE_ROWS = 200;

/**
 * The first `maxRows` rows and how many there were; `maxRows` is a positive integer or Infinity (all).
 * @example capRows([1, 2, 3], 2) // { shown: [1, 2], total: 3 }
 */
export function capRows<T>(rows: readonly T[], maxRows: number): { shown: T[]; total: number } {
  if (!(maxRows === Infinity || (Number.isInteger(maxRows) && maxRows >= 1)))
    throw new Error(`invalid maxRows: ${maxRows} (a positive integer, or Infinity for all rows)`);
  return { shown: rows.length > maxRows ? rows.slice(0, maxRows) : rows.slice(), total: rows.length };
}

/** The caption sentence of a capped table ("First 200 of 12,345 rows shown."); "" when every row is shown. */
export function rowCapNote(shown: number, total: number): string {
  if (shown >= total) return "";
  return `First ${count(shown)} of ${count(total)} rows shown.`;
}

/** A count as printed in captions and notes: 12,345. */
const count = (n: number): string => n.toLocaleString("en-US");

/** Items a notebook list line prints by default (a zero-grad-norm list is 5,012 updates at 10^6). */
export const MAX_LIST_ITEMS = 100;

/**
 * A list for one printed line: items joined by ", ", "none" when empty; past `maxItems` the first ones
 * and how many of how many.
 * @example listText([1, 2, 3], 2) // "1, 2, ... (first 2 of 3)"
 */
export function listText(items: readonly (string | number)[], maxItems = MAX_LIST_ITEMS): string {
  if (!(maxItems === Infinity || (Number.isInteger(maxItems) && maxItems >= 1)))
    throw new Error(`invalid maxItems: ${maxItems} (a positive integer, or Infinity for all items)`);
  const { shown, total } = capRows(items, maxItems);
  if (total === 0) return "none";
  return shown.join(", ") + (shown.length < total ? `, ... (first ${count(shown.length)} of ${count(total)})` : "");
}
