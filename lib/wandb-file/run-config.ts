/**
 * A run's config as its `.wandb` log records it (the run record's config, then config records), held
 * in memory only: the archive freezes nothing of it but the declared semantic flags
 * (lib/registry/semantic-flags.ts), read from it by the freezer.
 */
import type { DecodedSummary } from "./record-messages";

/** Applies one config record's updates (nested keys create objects) and removals to `into`. */
export function applyConfig(into: Record<string, unknown>, config: DecodedSummary): void {
  for (const item of config.update) setPath(into, item.path, parsed(item.json));
  for (const path of config.remove) deletePath(into, path);
}

/** A value's JSON as a value; text that is not JSON (a token the SDK wrote, e.g. NaN) stays text. */
function parsed(json: string): unknown {
  try {
    return JSON.parse(json);
  } catch {
    return json;
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

function setPath(into: Record<string, unknown>, path: readonly string[], value: unknown): void {
  let at = into;
  for (let i = 0; i < path.length - 1; i++) {
    const next = at[path[i]];
    if (!isObject(next)) at[path[i]] = {};
    at = at[path[i]] as Record<string, unknown>;
  }
  // defineProperty: a key named __proto__ is data, never the prototype.
  Object.defineProperty(at, path[path.length - 1], { value, enumerable: true, writable: true, configurable: true });
}

function deletePath(into: Record<string, unknown>, path: readonly string[]): void {
  let at: unknown = into;
  for (let i = 0; i < path.length - 1; i++) at = isObject(at) ? at[path[i]] : undefined;
  if (isObject(at)) delete at[path[path.length - 1]];
}
