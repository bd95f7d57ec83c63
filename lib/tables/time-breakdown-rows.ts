/**
 * The per-round time breakdown as rows for display and for the stacked figure: one row per round and
 * timing key with the mean seconds per rollout batch, its share and how many batches logged it.
 */
import type { TimeBreakdown } from "../diagnostics/time-breakdown";
import { isStackableTimer, PERF_TIME_CONTAINERS } from "../schema/slime-metrics";

/** Key of the stacked remainder: the part of perf/train_time none of its timers covers. */
export const TRAIN_REST_KEY = "perf/train_time (untimed rest)";

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

/**
 * The cells stacked into one bar per round without double counting (schema: isStackableTimer):
 * train_wait, the timers inside train, and the rest of train none of them covers (advantages,
 * logging), so that a bar adds up to the round's mean step time. The rest is left out of a round
 * where train or a part lacks a mean, or where the parts exceed train (means over different batches).
 */
export function stackableTimeCells(tb: TimeBreakdown): TimeBreakdownCell[] {
  const cells = timeBreakdownCells(tb);
  const out: TimeBreakdownCell[] = [];
  const parts = PERF_TIME_CONTAINERS["perf/train_time"];
  for (const row of tb.rows) {
    const mine = cells.filter((c) => c.round === row.round);
    for (const c of mine) if (isStackableTimer(c.key)) out.push(c);
    const train = mine.find((c) => c.key === "perf/train_time");
    const inside = mine.filter((c) => parts.includes(c.key));
    if (train === undefined || train.mean === null || inside.some((c) => c.mean === null)) continue;
    const rest = train.mean - inside.reduce((a, c) => a + (c.mean as number), 0);
    if (rest >= 0) out.push({ round: row.round, key: TRAIN_REST_KEY, mean: rest, share: null, n: train.n });
  }
  return out;
}
