/**
 * The cell format of the CSV exports: empty = no record or key not logged (never 0); NaN, Infinity,
 * -Infinity as `NaN`, `Inf`, `-Inf`; finite numbers in JavaScript's shortest round-trip form
 * (`String(x)`, e.g. `1e-7`, no rounding); text as is (quoting is the CSV writer's job).
 */

/** One cell value: a number (NaN/±Infinity allowed), a text, or null for "missing". */
export type ExportCell = number | string | null;

/** Cell texts of the three non-finite numbers. */
export const NON_FINITE_CELLS = { nan: "NaN", posInf: "Inf", negInf: "-Inf" } as const;

/**
 * Text of one cell before CSV quoting; `undefined` and `null` are missing and give "".
 * @example formatCell(1e-7) // "1e-7"; formatCell(-Infinity) // "-Inf"; formatCell(undefined) // ""
 */
export function formatCell(v: ExportCell | undefined): string {
  if (v === null || v === undefined) return "";
  if (typeof v === "string") return v;
  if (v !== v) return NON_FINITE_CELLS.nan;
  if (v === Infinity) return NON_FINITE_CELLS.posInf;
  if (v === -Infinity) return NON_FINITE_CELLS.negInf;
  // String(x) is the shortest text that reads back to the same double (ECMAScript Number::toString).
  return String(v);
}

/** Decimal numbers as String(x) writes them (and plain decimals people may type); no hex, no spaces. */
const NUMBER_TEXT = /^-?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

/**
 * Number of a numeric cell text; "" gives null. Throws `invalid number cell: <text>` otherwise.
 * @example parseNumberCell("-Inf") // -Infinity; parseNumberCell("") // null
 */
export function parseNumberCell(text: string): number | null {
  if (text === "") return null;
  if (text === NON_FINITE_CELLS.nan) return NaN;
  if (text === NON_FINITE_CELLS.posInf) return Infinity;
  if (text === NON_FINITE_CELLS.negInf) return -Infinity;
  if (!NUMBER_TEXT.test(text)) throw new Error(`invalid number cell: ${JSON.stringify(text)}`);
  return Number(text);
}
