/**
 * Tolerant parsing of one W&B history row. Rows are written as extended JSON: bare `NaN`,
 * `Infinity`, `-Infinity` tokens (Python SDK), the strings "NaN"/"Infinity"/"-Infinity", and
 * `null` (JS SDK, which writes NaN as null). Fast path: plain `JSON.parse` when the text holds no
 * "NaN"/"Infinity" at all; otherwise bare tokens in value position are quoted by one regex, and
 * only if that does not parse, by a string-aware rewrite. No exception on the common paths: a
 * thrown SyntaxError costs ~100 µs in V8 (it formats the source), which would dominate.
 */
import type { HistoryRow } from "../types";

// A JSON string literal (kept as is) or a bare non-finite token (quoted). Unrolled-loop string
// pattern: linear, no backtracking blow-up on long strings.
const STRING_OR_NON_FINITE = /"[^"\\]*(?:\\.[^"\\]*)*"|-?Infinity|NaN/g;

// Bare token in value position, as json.dumps writes it (`: NaN,`). It can also match inside a
// string, but then the quote it inserts ends that string early and leaves the token bare, which
// JSON.parse always rejects; the string-aware rewrite then takes over. So it never changes a
// string silently.
const VALUE_NON_FINITE = /([:[,]\s*)(-?Infinity|NaN)(?=\s*[,\]}])/g;

/** Quotes bare NaN / Infinity / -Infinity tokens outside JSON strings, so strict JSON.parse reads them. */
export function quoteNonFiniteTokens(text: string): string {
  return text.replace(STRING_OR_NON_FINITE, (m) => (m.charCodeAt(0) === 34 /* " */ ? m : `"${m}"`));
}

/** True when the text may hold a non-finite token (cheap pre-check: JSON.parse throwing is slow). */
function mayHoldNonFinite(text: string): boolean {
  return text.indexOf("NaN") >= 0 || text.indexOf("Infinity") >= 0;
}

/**
 * Parses extended JSON (bare NaN/±Infinity allowed outside strings); bare tokens come back as the
 * marker strings "NaN"/"Infinity"/"-Infinity" (see `nonFiniteValue`). Throws SyntaxError otherwise.
 */
export function parseExtendedJson(text: string): unknown {
  if (!mayHoldNonFinite(text)) return JSON.parse(text);
  try {
    return JSON.parse(text.replace(VALUE_NON_FINITE, '$1"$2"'));
  } catch {
    return JSON.parse(quoteNonFiniteTokens(text));
  }
}

/** Number for a non-finite marker (`null`, "NaN", "Infinity", "-Infinity"), else undefined. */
export function nonFiniteValue(v: unknown): number | undefined {
  if (v === null || v === "NaN") return NaN;
  if (v === "Infinity") return Infinity;
  if (v === "-Infinity") return -Infinity;
  return undefined;
}

/** Counts of dropped (non-numeric) keys: key -> rows in which it was dropped. */
export type DroppedKeyCounts = Map<string, number>;

/**
 * Numeric history row from a parsed row object: numbers kept, non-finite markers turned into
 * NaN/±Infinity, everything else (media objects with `_type`, strings, booleans, nested objects,
 * arrays) dropped and counted in `dropped`. Markers are replaced in place and the object is
 * returned as is unless a key must be dropped (then a copy without it is returned).
 */
export function toNumericRow(raw: Record<string, unknown>, dropped?: DroppedKeyCounts): HistoryRow {
  let dropCount = 0;
  for (const key in raw) {
    const v = raw[key];
    if (typeof v === "number") continue;
    const nf = nonFiniteValue(v);
    if (nf !== undefined) raw[key] = nf;
    else dropCount++;
  }
  if (dropCount === 0) return raw as HistoryRow;
  const out: HistoryRow = {};
  for (const key in raw) {
    const v = raw[key];
    if (typeof v === "number") out[key] = v;
    else if (dropped) dropped.set(key, (dropped.get(key) ?? 0) + 1);
  }
  return out;
}

/**
 * One history row (a JSON-encoded string as `HistoryPage` returns it, or an already parsed object,
 * which is converted in place) as a numeric row. Throws on text that is not a JSON object even
 * after the tolerant rewrite.
 */
export function parseHistoryRow(item: unknown, dropped?: DroppedKeyCounts): HistoryRow {
  const parsed = typeof item === "string" ? parseExtendedJson(item) : item;
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
    throw new SyntaxError(`history row is not a JSON object: ${preview(item)}`);
  }
  return toNumericRow(parsed as Record<string, unknown>, dropped);
}

/** Short preview of a bad value for error messages. */
export function preview(v: unknown, max = 120): string {
  const s = typeof v === "string" ? v : (JSON.stringify(v) ?? String(v));
  return s.length > max ? `${s.slice(0, max)}...` : s;
}

/** A row of a page that could not be parsed, with its index in the page. */
export class HistoryRowParseError extends SyntaxError {
  /** Index of the row in its page. */
  readonly index: number;
  constructor(index: number, item: unknown, cause: unknown) {
    super(`row ${index} is not a valid JSON object (${(cause as Error).message}): ${preview(item)}`);
    this.name = "HistoryRowParseError";
    this.index = index;
  }
}

/**
 * Numeric rows of one `HistoryPage` answer, parsed row by row (measured: as fast as joining the
 * page into one JSON array, and an error names the bad row). Throws `HistoryRowParseError`.
 */
export function parseHistoryPage(items: readonly unknown[], dropped?: DroppedKeyCounts): HistoryRow[] {
  const rows: HistoryRow[] = new Array(items.length);
  for (let i = 0; i < items.length; i++) {
    try {
      rows[i] = parseHistoryRow(items[i], dropped);
    } catch (e) {
      throw new HistoryRowParseError(i, items[i], e);
    }
  }
  return rows;
}
