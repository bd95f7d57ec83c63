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
  const f = (n: number): string => n.toLocaleString("en-US");
  return `First ${f(shown)} of ${f(total)} rows shown.`;
}
