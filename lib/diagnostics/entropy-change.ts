/**
 * Relative change of the round-mean entropy from the first round to the last, in percent.
 */
import type { MetricSpec } from "../registry/metric-spec";
import type { PolicyRoundTable } from "./policy-round-table";

/** Entropy change between the first and last round of a policy table. */
export interface EntropyChange {
  metric: MetricSpec;
  /** 100 * (last - first) / first; negative = fall. Null when it cannot be computed (see `note`). */
  percent: number | null;
  from: { round: string; mean: number | null } | null;
  to: { round: string; mean: number | null } | null;
  note: string | null;
}

/**
 * Entropy change in percent from the first round to the last round of the table (negative = fall).
 * Strictly first and last: if either has no mean the change is null, never taken from other rounds.
 * @example entropyChangePercent(policyRoundTable(aligned)).percent // -26.45 for 0.18025 -> 0.13258
 */
export function entropyChangePercent(table: PolicyRoundTable): EntropyChange {
  // The entropy column as the runs' profile reads it (slime's train/entropy_loss, verl's actor/entropy, ...).
  const column = table.columns.find((c) => c.field === "entropy")!;
  if (column.metric === null) throw new Error(`invalid table: its entropy column has no metric (${column.absent})`);
  const metric = column.metric;
  const rows = table.rows;
  if (rows.length < 2) {
    const only = rows.length ? { round: rows[0].round, mean: rows[0].entropy.mean } : null;
    return { metric, percent: null, from: only, to: only, note: `needs at least two rounds, the table has ${rows.length}` };
  }
  const first = rows[0];
  const last = rows[rows.length - 1];
  const from = { round: first.round, mean: first.entropy.mean };
  const to = { round: last.round, mean: last.entropy.mean };
  let note: string | null = null;
  if (from.mean === null) note = `first round ${from.round} has no ${metric.key} mean`;
  else if (to.mean === null) note = `last round ${to.round} has no ${metric.key} mean`;
  else if (from.mean === 0) note = `first round ${from.round} has a ${metric.key} mean of 0; no relative change`;
  if (note !== null) return { metric, percent: null, from, to, note };
  const percent = (100 * ((to.mean as number) - (from.mean as number))) / (from.mean as number);
  return { metric, percent, from, to, note: null };
}
