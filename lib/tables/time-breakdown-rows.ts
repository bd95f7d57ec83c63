/**
 * The per-round time breakdown as rows for display and for the stacked figure: one row per round and
 * timing key with the mean seconds per rollout batch, its share and how many batches logged it.
 */
import type { TimeBreakdown } from "../diagnostics/time-breakdown";
import { isStackableTimer } from "../schema/slime-metrics";

/** One round x timing key of the breakdown. */
export interface TimeBreakdownCell {
  round: string;
  key: string;
  /** Mean seconds per rollout batch that logged the key; null when no batch of the round did. */
  mean: number | null;
  /** Share of the round's total (see the breakdown's basis); null without a total. */
  share: number | null;
  /** Batches that logged the key. */
  n: number;
}

/** Flatten a time breakdown into round x key rows, rounds in order, keys in the breakdown's order. */
export function timeBreakdownCells(tb: TimeBreakdown): TimeBreakdownCell[] {
  const out: TimeBreakdownCell[] = [];
  for (const row of tb.rows) {
    for (const e of row.entries) out.push({ round: row.round, key: e.key, mean: e.time.mean, share: e.share, n: e.time.n });
  }
  return out;
}

/**
 * A wide table: one row per round (then `all`), one column per timing key (mean seconds per batch
 * that logged it). No total column: the timers nest, so a sum would count time twice.
 */
export function timeBreakdownWide(tb: TimeBreakdown): Record<string, string | number | null>[] {
  return tb.rows.concat([tb.all]).map((row) => {
    const r: Record<string, string | number | null> = { round: row.round };
    for (const e of row.entries) r[e.key] = e.time.mean;
    return r;
  });
}

/** The cells of timers that can be stacked without double counting (schema: isStackableTimer). */
export function stackableTimeCells(tb: TimeBreakdown): TimeBreakdownCell[] {
  return timeBreakdownCells(tb).filter((c) => isStackableTimer(c.key));
}
