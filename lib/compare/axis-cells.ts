/**
 * An experiment's cells on a binned axis (compare-axis.ts): per compared column and bin, the mean of
 * the column's key over the experiment's records whose coordinate falls in the bin, by the summary's
 * mean rule (lib/diagnostics/round-mean.ts: records without the key and non-finite values left out).
 * A record without a coordinate is counted, never placed; a bin without a record has no cell.
 */
import { MeanAccumulator } from "../diagnostics/round-mean";
import { absentReason, metricOf, type FrameworkProfile } from "../registry/framework-profile";
import { keysFor } from "../registry/metric-lookup";
import type { AlignedRuns, AxisRecord, UpdateRecord } from "../types";
import { forEachBlock } from "../values/key-column";
import { binLabel, binOf, type CompareAxis } from "./compare-axis";
import type { ComparedColumn } from "./compared-columns";
import type { WallClock } from "./wall-clock";

/** One experiment's cells on a binned axis. */
export interface AxisCells {
  /** Labels of the bins holding at least one placed record, in axis order. */
  scopes: string[];
  /** cells[column][bin label]: the mean, null when the bin's records have no finite value of it. */
  cells: Record<string, Record<string, number | null>>;
  /** Columns this experiment has no coordinate for on the axis, and why (the refusal's side). */
  missing: Record<string, string>;
  /** Records that have no coordinate on the axis (left out, never placed). */
  unplaced: number;
}

/** Coordinates of the update and the rollout records (NaN: none), or why the experiment has none. */
type Coordinates = { updates: Float64Array; rollouts: Float64Array } | { none: string };

/** Rollout id -> the display number of its first update (keyed by run too: an id may repeat in a lineage's runs). */
function firstUpdates(updates: readonly UpdateRecord[]): Map<string, number> {
  const first = new Map<string, number>();
  for (const u of updates) {
    const key = `${u.runId}\u0000${u.rollout}`;
    const seen = first.get(key);
    if (seen === undefined || u.update < seen) first.set(key, u.update);
  }
  return first;
}

/** Each record's coordinate on the axis, or why this experiment has none. */
function coordinates(aligned: AlignedRuns, profile: FrameworkProfile, axis: CompareAxis, wall: WallClock | null): Coordinates {
  const { updates, rollouts } = aligned;
  const of = <R>(records: readonly R[], x: (r: R) => number) => Float64Array.from(records, x);
  switch (axis.name) {
    case "round":
      throw new Error("invalid axis: round labels are not binned (the summary's rows are the cells)");
    case "rollout":
      return { updates: of(updates, (u) => u.rollout), rollouts: of(rollouts, (r) => r.rollout) };
    case "update": {
      if (!profile.updates.observable) return { none: `${profile.label} logs no single optimizer updates (${profile.updates.note})` };
      const first = firstUpdates(updates);
      // 0-based (display number - 1), so that bin [0, W) holds the first W updates.
      return { updates: of(updates, (u) => u.update - 1), rollouts: of(rollouts, (r) => (first.get(`${r.runId}\u0000${r.rollout}`) ?? Number.NaN) - 1) };
    }
    case "tokens":
      return tokenCoordinates(aligned, profile);
    case "wall": {
      if (wall === null) return { none: "no wall clock read" };
      if ("none" in wall) return { none: wall.none };
      return { updates: of(updates, (u) => wall.at(u.runId, [u.historyStep])), rollouts: of(rollouts, (r) => wall.at(r.runId, r.historySteps)) };
    }
  }
}

/**
 * Tokens seen at each record: the profile's tokensSeen key as logged (finite values only; a record
 * without it has none), an update at its batch's value; or why the framework logs none. Never
 * estimated from response lengths.
 */
function tokenCoordinates(aligned: AlignedRuns, profile: FrameworkProfile): Coordinates {
  const metric = metricOf(profile, "tokensSeen");
  if (metric === null) return { none: `${absentReason(profile, "tokensSeen")}; tokens seen are never estimated (e.g. from response lengths)` };
  const rollouts = new Float64Array(aligned.rollouts.length).fill(Number.NaN);
  forEachBlock(aligned.rollouts, [keysFor(profile, metric.key)], (from, to, [block]) => {
    for (let j = from; j < to; j++) if (block.found[j - from] !== 0 && Number.isFinite(block.values[j - from])) rollouts[j] = block.values[j - from];
  });
  const atBatch = new Map<string, number>();
  aligned.rollouts.forEach((r, j) => {
    if (!Number.isNaN(rollouts[j])) atBatch.set(`${r.runId}\u0000${r.rollout}`, rollouts[j]);
  });
  const updates = Float64Array.from(aligned.updates, (u) => atBatch.get(`${u.runId}\u0000${u.rollout}`) ?? Number.NaN);
  return { updates, rollouts };
}

/** Accumulators of one column by bin. */
class BinMeans {
  readonly bins = new Map<number, MeanAccumulator>();
  add(k: number, found: number, v: number): void {
    let acc = this.bins.get(k);
    if (acc === undefined) {
      acc = new MeanAccumulator();
      this.bins.set(k, acc);
    }
    if (found === 0) acc.missing++;
    else acc.addNumber(v);
  }
}

/** Adds each record's value of each column to its bin (subset first/later by the update's position). */
function accumulate(
  records: readonly (UpdateRecord | AxisRecord)[],
  xs: Float64Array,
  cols: readonly { column: ComparedColumn; means: BinMeans }[],
  profile: FrameworkProfile,
  width: number,
  placed: Set<number>,
): number {
  if (cols.length === 0 || records.length === 0) return 0;
  let unplaced = 0;
  forEachBlock(
    records,
    cols.map((c) => keysFor(profile, c.column.metric!.key)),
    (from, to, blocks) => {
      for (let j = from; j < to; j++) {
        const k = binOf(xs[j], width);
        if (k === null) {
          unplaced++;
          continue;
        }
        placed.add(k);
        for (let c = 0; c < cols.length; c++) {
          const subset = cols[c].column.subset;
          if (subset !== "all" && (subset === "first") !== ((records[j] as UpdateRecord).updateInRollout === 0)) continue;
          cols[c].means.add(k, blocks[c].found[j - from], blocks[c].values[j - from]);
        }
      }
    },
  );
  return unplaced;
}

/**
 * The experiment's cells of `columns` on a binned axis; `wall` is read before alignment released the
 * rows (wall-clock.ts), needed on the wall axis only.
 * @example axisCells(aligned, profile, columns, { name: "rollout", width: 8 }, null).cells.reward_mean["0-8"]
 */
export function axisCells(
  aligned: AlignedRuns,
  profile: FrameworkProfile,
  columns: readonly ComparedColumn[],
  axis: CompareAxis,
  wall: WallClock | null,
): AxisCells {
  const width = axis.width!;
  const coords = coordinates(aligned, profile, axis, wall);
  const missing: Record<string, string> = {};
  const cells: AxisCells["cells"] = {};
  const live = columns.filter((c) => c.metric !== null);
  if ("none" in coords) {
    for (const c of live) missing[c.name] = coords.none;
    return { scopes: [], cells, missing, unplaced: 0 };
  }
  const read = live.map((column) => ({ column, means: new BinMeans() }));
  const placed = new Set<number>();
  const unplaced =
    accumulate(
      aligned.updates,
      coords.updates,
      read.filter((r) => r.column.metric!.grain === "update"),
      profile,
      width,
      placed,
    ) +
    accumulate(
      aligned.rollouts,
      coords.rollouts,
      read.filter((r) => r.column.metric!.grain === "rollout"),
      profile,
      width,
      placed,
    );
  const bins = [...placed].sort((a, b) => a - b);
  for (const { column, means } of read) {
    const byBin: Record<string, number | null> = {};
    for (const k of bins) {
      const acc = means.bins.get(k);
      if (acc !== undefined) byBin[binLabel(k, width)] = acc.result(null, "records", column.metric!.key).mean;
    }
    cells[column.name] = byBin;
  }
  return { scopes: bins.map((k) => binLabel(k, width)), cells, missing, unplaced };
}
