/**
 * Where a record's time goes (a rollout batch, a training step: the profile's record), per round: one stacked bar per round, one segment per timing
 * key (`perf/*_time`), from per-round means computed by the summaries.
 */
import { describeKey } from "../registry/metric-lookup";
import { singular } from "../registry/framework-profile";
import { PROFILES } from "../registry/profiles";
import { baseLayout, type Figure, type Trace } from "./figure";
import { categoryColor } from "./palette";

/** One per-round mean of one timing key, as the summaries give it. */
export interface TimeBreakdownRow {
  round: string;
  key: string;
  /** Mean seconds per record; null (or non-finite) = no value, drawn as no segment. */
  mean: number | null;
}

/** Options of timeBreakdownFigure. */
export interface TimeBreakdownOptions {
  /** Round order on the x axis. Default: order of first appearance in the rows. */
  rounds?: readonly string[];
  /** Figure title. Default: "Mean time per <record>, by phase". */
  title?: string;
  /** What one bar's means are over, plural, as the profile's `recordNoun` says. Default "rollout batches". */
  recordNoun?: string;
}

/** Legend name of a timing key: a described metric's label, else the short name of the first profile that times it, else the key. */
export function timeKeyLabel(key: string): string {
  const described = describeKey(key);
  if (described.label !== key) return described.label;
  const timing = PROFILES.find((p) => p.timers.isTimer(key));
  return timing === undefined ? key : timing.timers.shortName(key);
}

/**
 * Stacked bars: x = rounds, one trace per key in order of first appearance, y = mean seconds.
 * @example timeBreakdownFigure([{ round: "R0", key: "perf/rollout_time", mean: 234 }, ...])
 */
export function timeBreakdownFigure(rows: readonly TimeBreakdownRow[], options: TimeBreakdownOptions = {}): Figure {
  const seen = new Set<string>();
  const keys: string[] = [];
  const foundRounds: string[] = [];
  for (const row of rows) {
    const id = `${row.round}\u0000${row.key}`;
    if (seen.has(id)) throw new Error(`duplicate time-breakdown row: round ${row.round}, key ${row.key}`);
    seen.add(id);
    if (!keys.includes(row.key)) keys.push(row.key);
    if (!foundRounds.includes(row.round)) foundRounds.push(row.round);
  }
  const rounds = options.rounds ? options.rounds.slice() : foundRounds;
  for (const r of foundRounds) if (!rounds.includes(r)) throw new Error(`invalid rounds: ${rounds.join(", ")} (rows have round ${r})`);

  const mean = new Map<string, number | null>();
  for (const row of rows) mean.set(`${row.round}\u0000${row.key}`, row.mean !== null && Number.isFinite(row.mean) ? row.mean : null);

  const data: Trace[] = keys.map((key, i) => ({
    type: "bar",
    name: timeKeyLabel(key),
    x: rounds.slice(),
    y: rounds.map((round) => mean.get(`${round}\u0000${key}`) ?? null),
    marker: { color: categoryColor(i) },
    hovertemplate: `%{x}<br>${key}: %{y:.1f} s<extra></extra>`,
  }));
  const record = singular(options.recordNoun ?? "rollout batches");
  const layout = baseLayout(options.title ?? `Mean time per ${record}, by phase`, "round", `seconds per ${record} (mean)`);
  layout.barmode = "stack";
  layout.xaxis = { ...layout.xaxis, type: "category" };
  layout.meta = { figure: "time-breakdown", keys: keys.slice() };
  return { data, layout };
}
