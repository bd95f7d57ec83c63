/**
 * A `train/*` key per update, coloured by the update's position inside its rollout batch. `ppo_kl`
 * is ~0 on the first update after a rollout and non-zero on later ones; one colour per position
 * makes that structure visible instead of reading as noise.
 */
import { metricOfAligned } from "../registry/profiles";
import type { AlignedRuns, UpdateRecord } from "../types";
import { baseLayout, describeKey, integerAxisTicks, keyAxisTitle, type Figure, type Trace } from "./figure";
import { BOUNDARY_COLOR, categoryColor } from "./palette";
import { addReduction, noteReduction, pickAt, reducedIndices, type Reduction } from "./reduce-points";
import { roundMarks, roundSpansOf } from "./round-marks";
import { drawnValues, numberColumn, valueColumn } from "./series-columns";
import { requireKey, requirePerUpdateKey, updateCustomData, updateHoverTemplate, updatesInOrder } from "./update-series";

/** Options of updatesByPositionFigure. */
export interface UpdatesByPositionOptions {
  /** Figure title. Default: "<label> per optimizer update, by position in its rollout batch". */
  title?: string;
}

/**
 * One marker trace per position in the batch (position p has colour `categoryColor(p)`), over a
 * thin grey line through all updates in order.
 * @example updatesByPositionFigure(aligned) // train/ppo_kl
 */
export function updatesByPositionFigure(
  aligned: AlignedRuns,
  key: string = metricOfAligned(aligned, "ppoKl").key,
  options: UpdatesByPositionOptions = {},
): Figure {
  requirePerUpdateKey(aligned, key, "updatesByPositionFigure");
  requireKey(aligned.updates, key, "optimizer update");
  const updates = updatesInOrder(aligned.updates);
  const { label } = describeKey(key);
  const n = aligned.mapping.n;

  // Each trace drawn in full up to REDUCE_ABOVE points, else reduced per bucket on its own; the
  // figure's note counts the points of all traces.
  let reduced: Reduction | undefined;
  const reduce = (xs: Float64Array, ys: Float64Array): number[] | null => {
    const idx = reducedIndices(xs, [ys]);
    reduced = addReduction(reduced, xs.length, idx === null ? xs.length : idx.length);
    return idx;
  };
  const xAll = numberColumn(updates, (u) => u.update);
  const { y: yAll, missing, nonFinite } = valueColumn(updates, key);
  const drawnAll = reduce(xAll, yAll);
  const data: Trace[] = [allUpdatesTrace(drawnValues(xAll, drawnAll), drawnValues(yAll, drawnAll))];
  // Every position 0..N-1 gets a legend entry even if empty, plus any out-of-range one found in data.
  const byPosition = indicesByPosition(updates, n);
  for (const p of Array.from(byPosition.keys()).sort((a, b) => a - b)) {
    const at = byPosition.get(p)!;
    const xs = Float64Array.from(at, (i) => xAll[i]);
    const ys = Float64Array.from(at, (i) => yAll[i]);
    const drawn = reduce(xs, ys);
    data.push(
      positionTrace(
        p,
        n,
        label,
        drawnValues(xs, drawn),
        drawnValues(ys, drawn),
        pickAt(at, drawn).map((i) => updateCustomData(updates[i])),
      ),
    );
  }

  const { shapes, annotations } = roundMarks(roundSpansOf(aligned.rounds, updates, xAll));
  const layout = baseLayout(options.title ?? `${label} per optimizer update, by position in its rollout batch`, "optimizer update", keyAxisTitle(key));
  layout.xaxis = { ...layout.xaxis, ...integerAxisTicks(xAll) };
  layout.shapes = shapes;
  layout.annotations = annotations;
  layout.meta = { figure: "updates-by-position", key, missing, nonFinite, updatesPerRollout: n };
  noteReduction(layout, reduced);
  return { data, layout };
}

/** The thin grey line through every update in order, under the position markers. */
function allUpdatesTrace(x: Trace["x"], y: Trace["y"]): Trace {
  return {
    type: "scatter",
    mode: "lines",
    name: "all updates in order",
    x,
    y,
    hoverinfo: "skip",
    line: { color: BOUNDARY_COLOR, width: 0.75 },
    connectgaps: false,
  };
}

/** The markers of the updates at position p of their batch. */
function positionTrace(p: number, n: number, label: string, x: Trace["x"], y: Trace["y"], customdata: Trace["customdata"]): Trace {
  return {
    type: "scatter",
    mode: "markers",
    name: `update ${p + 1} of ${n} in its batch`,
    x,
    y,
    customdata,
    hovertemplate: updateHoverTemplate(label),
    marker: { color: categoryColor(p), size: 6 },
  };
}

/** Indices of the updates at each position of their batch: every position 0..n-1 (maybe empty), then any other found. */
function indicesByPosition(updates: readonly UpdateRecord[], n: number): Map<number, number[]> {
  const byPosition = new Map<number, number[]>();
  for (let p = 0; p < n; p++) byPosition.set(p, []);
  for (let i = 0; i < updates.length; i++) {
    const p = updates[i].updateInRollout;
    const at = byPosition.get(p);
    if (at) at.push(i);
    else byPosition.set(p, [i]);
  }
  return byPosition;
}
