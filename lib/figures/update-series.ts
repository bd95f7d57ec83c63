/**
 * A `train/*` key per optimizer update: x is the display update number (1 = first update of the
 * first round; never `_step`), round boundaries marked, optional markers on exact zeros (used for the
 * gradient norm). Used for entropy, clip fraction, gradient norm and the log-prob gap.
 */
import type { AlignedRuns, UpdateRecord } from "../types";
import { profileOfAligned } from "../registry/profiles";
import { baseLayout, describeKey, integerAxisTicks, keyAxisTitle, type Figure, type Trace } from "./figure";
import { HIGHLIGHT_COLOR, SERIES_COLOR } from "./palette";
import { noteReduction, pickAt, reducedIndices } from "./reduce-points";
import { roundMarks, roundSpansOf } from "./round-marks";
import { drawnValues, inOrder, numberColumn, valueColumn } from "./series-columns";

/** Options of updateSeriesFigure. */
export interface UpdateSeriesOptions {
  /** Mark updates whose value is exactly 0 with red crosses and list them in `meta.zeroAt`. Default false. */
  markZero?: boolean;
  /** Figure title. Default: "<label> per optimizer update". */
  title?: string;
}

/** Above this many points the line is drawn without markers (markers would hide it). */
export const MARKER_LIMIT = 400;

/** Updates in display order (update number, then run id): the input itself when already in order, else a sorted copy. */
export function updatesInOrder(updates: readonly UpdateRecord[]): readonly UpdateRecord[] {
  return inOrder(updates, (a, b) => a.update - b.update || (a.runId < b.runId ? -1 : a.runId > b.runId ? 1 : 0));
}

/** Throws unless at least one record carries `key`; names the key and the runs searched. */
export function requireKey(records: readonly { runId: string; values: Record<string, number> }[], key: string, what: string): void {
  if (records.some((r) => key in r.values)) return;
  const runs = Array.from(new Set(records.map((r) => r.runId)));
  throw new Error(`no ${what} has key ${key} (runs: ${runs.join(", ") || "none"})`);
}

/** Hover text columns shared by the update figures: round, train/step, rollout, position (1-based). */
export function updateCustomData(u: UpdateRecord): (string | number)[] {
  return [u.round, u.trainStep, u.rollout, u.updateInRollout + 1];
}

/** Hover template of update figures for a metric label. */
export function updateHoverTemplate(label: string): string {
  return `update %{x}<br>${label}: %{y}<br>round %{customdata[0]}, train/step %{customdata[1]}, rollout %{customdata[2]}, update %{customdata[3]} of its batch<extra></extra>`;
}

/** Refuses a key that is not logged once per optimizer update (the profile's update key family), naming the figure. */
export function requirePerUpdateKey(aligned: AlignedRuns, key: string, figure: string): void {
  const profile = profileOfAligned(aligned);
  const prefix = profile.updates.keyPrefix;
  if (prefix === null) throw new Error(`invalid key: ${key} (${figure} plots per-update keys; ${profile.label}: ${profile.updates.note})`);
  if (!key.startsWith(prefix)) throw new Error(`invalid key: ${key} (${figure} plots ${prefix}* keys)`);
}

/**
 * Line of one per-update key (slime: `train/*`) over display update numbers with round boundaries.
 * @example updateSeriesFigure(aligned, "train/grad_norm", { markZero: true })
 */
export function updateSeriesFigure(aligned: AlignedRuns, key: string, options: UpdateSeriesOptions = {}): Figure {
  requirePerUpdateKey(aligned, key, "updateSeriesFigure");
  const { markZero = false } = options;
  requireKey(aligned.updates, key, "optimizer update");
  const updates = updatesInOrder(aligned.updates);
  const { label } = describeKey(key);

  const { y, missing, nonFinite } = valueColumn(updates, key);
  // Drawn: every update up to REDUCE_ABOVE, else each bucket's first, last, min, max and first gap.
  const xs = numberColumn(updates, (u) => u.update);
  const drawn = reducedIndices(xs, [y]);
  const line: Trace = {
    type: "scatter",
    mode: updates.length > MARKER_LIMIT ? "lines" : "lines+markers",
    name: label,
    x: drawnValues(xs, drawn),
    y: drawnValues(y, drawn),
    customdata: pickAt(updates, drawn).map(updateCustomData),
    hovertemplate: updateHoverTemplate(label),
    line: { color: SERIES_COLOR, width: 1.5 },
    marker: { color: SERIES_COLOR, size: 4 },
    connectgaps: false,
  };
  const data: Trace[] = [line];

  const zeroAt: number[] = [];
  if (markZero) {
    const zeros = updates.filter((u) => u.values[key] === 0);
    for (const u of zeros) zeroAt.push(u.update);
    data.push({
      type: "scatter",
      mode: "markers",
      name: `exactly 0 (${zeros.length} update${zeros.length === 1 ? "" : "s"})`,
      x: zeroAt.slice(),
      y: zeros.map(() => 0),
      customdata: zeros.map(updateCustomData),
      hovertemplate: updateHoverTemplate(`${label} exactly 0`),
      marker: { color: HIGHLIGHT_COLOR, size: 9, symbol: "x" },
    });
  }

  const { shapes, annotations } = roundMarks(roundSpansOf(aligned.rounds, updates, xs));
  const layout = baseLayout(options.title ?? `${label} per optimizer update`, "optimizer update", keyAxisTitle(key));
  layout.xaxis = { ...layout.xaxis, ...integerAxisTicks(xs) };
  layout.shapes = shapes;
  layout.annotations = annotations;
  layout.meta = { figure: "update-series", key, missing, nonFinite, ...(markZero ? { zeroAt } : {}) };
  // The zero markers are never reduced: every exact zero stays drawn.
  noteReduction(layout, drawn === null ? undefined : { from: xs.length, to: drawn.length });
  return { data, layout };
}
