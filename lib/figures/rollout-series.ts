/**
 * A per-record key (x = the record's id: slime's `rollout/step`, a step framework's step key) with
 * round boundaries and an optional min..max band; axis title and hover name the profile's record, e.g. mean response length inside the batch's min and max. Used for
 * response length, truncated fraction, rollout wall time and actor tokens/s.
 */
import type { AlignedRuns, AxisRecord } from "../types";
import { singular } from "../registry/framework-profile";
import { profileOfAligned, recordAxisTitle } from "../registry/profiles";
import { baseLayout, describeKey, integerAxisTicks, keyAxisTitle, type Figure, type Trace } from "./figure";
import { BAND_FILL, HIGHLIGHT_COLOR, SERIES_COLOR } from "./palette";
import { noteReduction, pickAt, reducedIndices } from "./reduce-points";
import { roundMarks, roundSpansOf } from "./round-marks";
import { drawnValues, inOrder, numberColumn, valueColumn } from "./series-columns";
import { MARKER_LIMIT, requireKey } from "./update-series";

/** Options of rolloutSeriesFigure. */
export interface RolloutSeriesOptions {
  /** Keys of the band's lower and upper edge (e.g. `rollout/response_len/min` and `/max`). */
  band?: { min: string; max: string };
  /** Figure title. Default: "<label> per <record>", e.g. "... per rollout batch", "... per logged step". */
  title?: string;
  /** d3 tick format of the y axis, e.g. ".0%" for fractions. Default: plotly's. */
  yTickFormat?: string;
  /** Mark the records whose value is exactly 0 (a mean of exact zeros is exact zeros at any grain). */
  markZero?: boolean;
}

/** Rollout records in rollout-id order (then run id): the input itself when already in order, else a sorted copy. */
export function rolloutsInOrder(rollouts: readonly AxisRecord[]): readonly AxisRecord[] {
  return inOrder(rollouts, (a, b) => a.rollout - b.rollout || (a.runId < b.runId ? -1 : a.runId > b.runId ? 1 : 0));
}

function rolloutCustomData(r: AxisRecord): (string | number)[] {
  return [r.round, r.runId];
}

/**
 * Line of one rollout-grain key over rollout ids with round boundaries, and the band below it.
 * @example rolloutSeriesFigure(aligned, "rollout/response_len/mean",
 *   { band: { min: "rollout/response_len/min", max: "rollout/response_len/max" } })
 */
export function rolloutSeriesFigure(aligned: AlignedRuns, key: string, options: RolloutSeriesOptions = {}): Figure {
  const profile = profileOfAligned(aligned);
  // A framework that logs each optimizer update (slime) has a key family per update; others log it once per step.
  const perUpdate = profile.updates.keyPrefix;
  if (perUpdate !== null && key.startsWith(perUpdate))
    throw new Error(`invalid key: ${key} (a ${perUpdate}* key is per optimizer update: use updateSeriesFigure)`);
  const record = singular(profile.recordNoun);
  requireKey(aligned.rollouts, key, record);
  if (options.band) {
    requireKey(aligned.rollouts, options.band.min, record);
    requireKey(aligned.rollouts, options.band.max, record);
  }
  const rollouts = rolloutsInOrder(aligned.rollouts);
  const { label } = describeKey(key);
  const x = numberColumn(rollouts, (r) => r.rollout);
  const { y, missing, nonFinite } = valueColumn(rollouts, key);

  // Drawn: every batch up to REDUCE_ABOVE, else per bucket what any of the (up to) three lines needs.
  const yMin = options.band ? valueColumn(rollouts, options.band.min).y : null;
  const yMax = options.band ? valueColumn(rollouts, options.band.max).y : null;
  const drawn = reducedIndices(x, yMin && yMax ? [y, yMin, yMax] : [y]);
  const xDrawn = drawnValues(x, drawn);
  const data: Trace[] = options.band && yMin && yMax ? bandTraces(options.band, xDrawn, drawnValues(yMin, drawn), drawnValues(yMax, drawn)) : [];
  data.push({
    type: "scatter",
    mode: rollouts.length > MARKER_LIMIT ? "lines" : "lines+markers",
    name: label,
    x: xDrawn,
    y: drawnValues(y, drawn),
    customdata: pickAt(rollouts, drawn).map(rolloutCustomData),
    hovertemplate: `${record} %{x}<br>${label}: %{y}<br>round %{customdata[0]}, run %{customdata[1]}<extra></extra>`,
    line: { color: SERIES_COLOR, width: 1.5 },
    marker: { color: SERIES_COLOR, size: 4 },
    connectgaps: false,
  });

  const zeroAt = options.markZero ? zeroMarks(rollouts, key, `${record} %{x}<br>${label}`, data) : null;
  const { shapes, annotations } = roundMarks(roundSpansOf(aligned.rounds, rollouts, x));
  const layout = baseLayout(options.title ?? `${label} per ${record}`, recordAxisTitle(profile), keyAxisTitle(key));
  if (options.yTickFormat !== undefined) layout.yaxis = { ...layout.yaxis, tickformat: options.yTickFormat };
  layout.xaxis = { ...layout.xaxis, ...integerAxisTicks(x) };
  layout.shapes = shapes;
  layout.annotations = annotations;
  layout.meta = { figure: "rollout-series", key, missing, nonFinite, ...(options.band ? { band: { ...options.band } } : {}), ...(zeroAt ? { zeroAt } : {}) };
  noteReduction(layout, drawn === null ? undefined : { from: x.length, to: drawn.length });
  return { data, layout };
}

/** Crosses on the records whose value is exactly 0 (all of them: never reduced), pushed onto `data`; their x. `hover`: the record and label part of the hover text. */
function zeroMarks(rollouts: readonly AxisRecord[], key: string, hover: string, data: Trace[]): number[] {
  const zeros = rollouts.filter((r) => r.values[key] === 0);
  const zeroAt = zeros.map((r) => r.rollout);
  data.push({
    type: "scatter",
    mode: "markers",
    name: `exactly 0 (${zeros.length})`,
    x: zeroAt.slice(),
    y: zeros.map(() => 0),
    customdata: zeros.map(rolloutCustomData),
    hovertemplate: `${hover} exactly 0<br>round %{customdata[0]}, run %{customdata[1]}<extra></extra>`,
    marker: { color: HIGHLIGHT_COLOR, size: 9, symbol: "x" },
  });
  return zeroAt;
}

/** The band between two keys: the lower edge first (invisible), then the upper edge filled down to it ("tonexty"). */
function bandTraces(band: { min: string; max: string }, x: Trace["x"], yMin: Trace["y"], yMax: Trace["y"]): Trace[] {
  const { min, max } = band;
  return [
    {
      type: "scatter",
      mode: "lines",
      name: describeKey(min).label,
      x,
      y: yMin,
      line: { width: 0, color: SERIES_COLOR },
      hoverinfo: "skip",
      showlegend: false,
      connectgaps: false,
    },
    {
      type: "scatter",
      mode: "lines",
      name: `${describeKey(min).label} .. ${describeKey(max).label}`,
      x,
      y: yMax,
      fill: "tonexty",
      fillcolor: BAND_FILL,
      line: { width: 0, color: SERIES_COLOR },
      hoverinfo: "skip",
      connectgaps: false,
    },
  ];
}
