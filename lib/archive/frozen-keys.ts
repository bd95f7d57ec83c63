/**
 * The distinct keys of the rows a run freezes: what a fetch decides the run's framework from
 * (lib/registry/detect-profile.ts decideRunProfiles), collected while the rows pass, not read back.
 */
import type { HistoryRow } from "../types";
import { isView, keysOf } from "../values/compact-values";

/** Collects the keys of rows as they are frozen; compact rows share key lists, each read once. */
export class FrozenKeys {
  private readonly keys = new Set<string>();
  private readonly lists = new Set<readonly string[]>();

  /** Adds every key of the rows. */
  add(rows: readonly HistoryRow[]): void {
    for (const row of rows) {
      const list = keysOf(row);
      if (isView(row)) {
        if (this.lists.has(list)) continue;
        this.lists.add(list);
      }
      for (const k of list) this.keys.add(k);
    }
  }

  /** The keys seen, sorted. */
  sorted(): string[] {
    return [...this.keys].sort();
  }
}
