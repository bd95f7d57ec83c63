/**
 * The per-round time breakdown as rows for display and for the stacked figure: one row per round and
 * timing key with the mean seconds per rollout batch, its share and how many batches logged it.
 */
import type { TimeBreakdown } from "../diagnostics/time-breakdown";
import type { FrameworkProfile } from "../registry/framework-profile";

/** Key of the stacked remainder: the part of a container (slime: perf/train_time) none of its timers covers. */
export function untimedRestKey(container: string): string {
  return `${container} (untimed rest)`;
}

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
 * The cells stacked into one bar per round without double counting (the profile's `stackable`
 * timers); with a `remainderOf` container (slime: train), also the rest of it none of its parts
 * covers (advantages, logging), so that a bar adds up to the round's mean step time. The rest is left
 * out of a round where the container or a part lacks a mean, or where the parts exceed the container
 * (means over different batches). Without one, the parts are stacked as logged.
 */
export function stackableTimeCells(tb: TimeBreakdown, profile: FrameworkProfile): TimeBreakdownCell[] {
  const cells = timeBreakdownCells(tb);
  const isStackableTimer = profile.timers.stackable;
  const container = profile.timers.remainderOf;
  if (container === null) return cells.filter((c) => isStackableTimer(c.key));
  const out: TimeBreakdownCell[] = [];
  const parts = profile.timers.containers[container] ?? [];
  for (const row of tb.rows) {
    const mine = cells.filter((c) => c.round === row.round);
    for (const c of mine) if (isStackableTimer(c.key)) out.push(c);
    const whole = mine.find((c) => c.key === container);
    const inside = mine.filter((c) => parts.includes(c.key));
    if (whole === undefined || whole.mean === null || inside.some((c) => c.mean === null)) continue;
    const rest = whole.mean - inside.reduce((a, c) => a + (c.mean as number), 0);
    if (rest >= 0) out.push({ round: row.round, key: untimedRestKey(container), mean: rest, share: null, n: whole.n });
  }
  return out;
}
