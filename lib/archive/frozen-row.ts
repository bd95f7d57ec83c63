/**
 * The frozen history line format: one JSON object per line, keys sorted (UTF-16 code unit order,
 * as Array#sort), numbers as JSON.stringify prints them, NaN/Infinity/-Infinity as the strings
 * "NaN"/"Infinity"/"-Infinity" so that any JSON tool reads the file. A key not logged is absent.
 */
import type { HistoryRow } from "../types";
import type { ValuesBuilder } from "../values/values-builder";

/** JSON text of one value in a frozen row. */
export function frozenValue(v: number): string {
  if (Number.isFinite(v)) return JSON.stringify(v);
  if (Number.isNaN(v)) return '"NaN"';
  return v > 0 ? '"Infinity"' : '"-Infinity"';
}

/** One frozen line (without the newline) for a numeric row. */
export function serializeFrozenRow(row: HistoryRow): string {
  const keys = Object.keys(row).sort();
  let out = "{";
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i];
    if (i > 0) out += ",";
    out += JSON.stringify(k) + ":" + frozenValue(row[k]);
  }
  return out + "}";
}

/**
 * A serializer for many rows (the freeze of a whole run): same bytes as serializeFrozenRow, about 2x
 * faster, because slime rows repeat a handful of key sets: each key set is sorted once, with the text
 * before each value (`{"key":` or `,"key":`) made once. Number formatting (String(v), what
 * JSON.stringify does too) is what is left: about half of the time. The cache is per serializer and
 * bounded.
 */
export function frozenRowSerializer(maxCached = 10_000): (row: HistoryRow) => string {
  const bySignature = new Map<string, { keys: string[]; prefixes: string[] }>();
  return (row) => {
    const raw = Object.keys(row);
    if (raw.length === 0) return "{}";
    const signature = raw.join("\u0000");
    let entry = bySignature.get(signature);
    if (entry === undefined) {
      const keys = raw.slice().sort();
      entry = { keys, prefixes: keys.map((k, i) => (i === 0 ? "{" : ",") + JSON.stringify(k) + ":") };
      if (bySignature.size >= maxCached) bySignature.clear();
      bySignature.set(signature, entry);
    }
    const { keys, prefixes } = entry;
    let out = "";
    for (let i = 0; i < keys.length; i++) {
      const v = row[keys[i]];
      // String(v) prints finite numbers exactly as JSON.stringify does (shortest round trip, -0 as 0).
      out += prefixes[i] + (Number.isFinite(v) ? String(v) : frozenValue(v));
    }
    return out + "}";
  };
}

/** Why a frozen line was refused (the loader adds file and line). */
export class FrozenRowError extends Error {
  /** Offending key, or null when the whole line is bad. */
  readonly key: string | null;
  constructor(message: string, key: string | null) {
    super(message);
    this.name = "FrozenRowError";
    this.key = key;
  }
}

/** The parsed JSON object of a frozen line; throws `FrozenRowError` when it is not one. */
function parseObject(line: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch (e) {
    throw new FrozenRowError(`not valid JSON (${(e as Error).message})`, null);
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) throw new FrozenRowError("not a JSON object", null);
  return parsed as Record<string, unknown>;
}

/** The number of a frozen value ("NaN" etc. become NaN/±Infinity); throws `FrozenRowError` naming the key. */
function numberOf(key: string, v: unknown): number {
  if (typeof v === "number") return v;
  if (v === "NaN") return NaN;
  if (v === "Infinity") return Infinity;
  if (v === "-Infinity") return -Infinity;
  throw new FrozenRowError(`key ${JSON.stringify(key)} is not numeric: ${JSON.stringify(v)}`, key);
}

/** Parses one frozen line back into a numeric row ("NaN" etc. become NaN/±Infinity); throws `FrozenRowError`. */
export function parseFrozenRow(line: string): HistoryRow {
  const row = parseObject(line);
  for (const key in row) {
    const v = row[key];
    if (typeof v !== "number") row[key] = numberOf(key, v);
  }
  return row as HistoryRow;
}

/**
 * parseFrozenRow into a {@link ValuesBuilder} (a compact view when the builder is compact): same
 * values, same key order, same errors.
 */
export function parseFrozenRowWith(line: string, vb: ValuesBuilder): HistoryRow {
  const row = parseObject(line);
  vb.reset();
  for (const key in row) vb.push(key, numberOf(key, row[key]));
  return vb.build();
}
