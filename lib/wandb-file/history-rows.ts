/**
 * History rows and summary values rebuilt from decoded `.wandb` items, exactly as the server path
 * returns them (lib/wandb/parse-history-row.ts): an item's `value_json` is extended JSON (bare NaN,
 * Infinity tokens), numbers are kept, everything else is dropped and counted per key. An item with a
 * `nested_key` path longer than one (wandb-core writes histograms, media and dicts that way) is part
 * of a nested object under its first key, which the server path drops as a whole: dropped once per
 * row under that first key. Old Python writers put the whole dict into one `key` item's JSON: the
 * same outcome.
 */
import type { HistoryRow } from "../types";
import { parseExtendedJson, toNumericRow, type DroppedKeyCounts } from "../wandb/parse-history-row";
import type { DecodedHistory, DecodedItem, DecodedSummary } from "./record-messages";

/** An item whose JSON value does not parse; the reader adds file and byte offset. */
export class ItemValueError extends SyntaxError {
  readonly key: string;
  constructor(key: string, json: string, cause: unknown) {
    super(`key ${JSON.stringify(key)}: value_json is not JSON (${(cause as Error).message}): ${json.length > 80 ? json.slice(0, 80) + "..." : json}`);
    this.name = "ItemValueError";
    this.key = key;
  }
}

/** Sets a key on a plain object (`__proto__` as an own key, as JSON.parse does). */
function setKey(obj: Record<string, unknown>, key: string, value: unknown): void {
  if (key === "__proto__") Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
  else obj[key] = value;
}

/** Top-level values of items: leaf items parsed, nested paths collapsed to `{}` under their first key. */
function topLevelValues(items: readonly DecodedItem[]): Record<string, unknown> {
  const raw: Record<string, unknown> = {};
  const nested: string[] = [];
  for (const item of items) {
    const top = item.path[0];
    if (top === undefined || top === "") continue;
    if (item.path.length > 1) {
      nested.push(top);
      continue;
    }
    let value: unknown;
    try {
      value = parseExtendedJson(item.json);
    } catch (e) {
      throw new ItemValueError(top, item.json, e);
    }
    setKey(raw, top, value);
  }
  for (const top of nested) setKey(raw, top, {}); // a nested object: not numeric history
  return raw;
}

/**
 * The numeric row of one history record. `_step` comes from the `_step` item (SDK 0.15 leaves
 * `step.num` at 0 and keeps the step only there), else from `step.num`.
 */
export function historyRow(history: DecodedHistory, dropped?: DroppedKeyCounts): HistoryRow {
  const raw = topLevelValues(history.items);
  if (raw._step === undefined && history.stepNum !== null) raw._step = history.stepNum;
  return toNumericRow(raw, dropped);
}

/** Applies one summary record to `into` (numeric top-level values only; removed keys deleted). */
export function applySummary(into: Map<string, number>, summary: DecodedSummary): void {
  const row = toNumericRow(topLevelValues(summary.update));
  const tops = new Set(summary.update.map((item) => item.path[0]));
  for (const top of tops) {
    if (top in row) into.set(top, row[top]);
    else into.delete(top);
  }
  for (const path of summary.remove) if (path.length === 1) into.delete(path[0]);
}
