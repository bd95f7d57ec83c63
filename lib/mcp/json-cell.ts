/**
 * Numbers as JSON carries them: NaN and ±Infinity have no JSON literal, so they travel as the
 * strings the frozen files use ("NaN", "Infinity", "-Infinity"), never as null (which means empty).
 */

/** A cell as JSON: a finite number, one of the three non-finite strings, a text, or null (empty). */
export type JsonCell = number | string | null;

/**
 * A value or cell as JSON.
 * @example jsonCell(Number.NaN) // "NaN"
 */
export function jsonCell(v: number | string | null | undefined): JsonCell {
  if (v === undefined || v === null) return null;
  if (typeof v === "string" || Number.isFinite(v)) return v;
  return Number.isNaN(v) ? "NaN" : v > 0 ? "Infinity" : "-Infinity";
}
