/**
 * A `train/*` key per update, coloured by the update's position inside its rollout batch. `ppo_kl`
 * is ~0 on the first update after a rollout and non-zero on later ones; one colour per position
 * makes that structure visible instead of reading as noise.
 */
import { METRICS } from "../schema/slime-metrics";
import type { AlignedRuns } from "../types";
import { baseLayout, describeKey, integerAxisTicks, keyAxisTitle, plotValue, type Figure, type Trace } from "./figure";
import { BOUNDARY_COLOR, categoryColor } from "./palette";
import { addReduction, noteReduction, pickAt, reducedIndices, type Reduction } from "./reduce-points";
import { roundMarks, roundSpans } from "./round-marks";
import { requireKey, updateCustomData, updateHoverTemplate, updatesInOrder } from "./update-series";

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
export function updatesByPositionFigure(aligned: AlignedRuns, key: string = METRICS.ppoKl.key, options: UpdatesByPositionOptions = {}): Figure {
  if (!key.startsWith("train/")) throw new Error(`invalid key: ${key} (updatesByPositionFigure plots train/* keys)`);
  requireKey(aligned.updates, key, "optimizer update");
  const updates = updatesInOrder(aligned.updates);
  const { label } = describeKey(key);
  const n = aligned.mapping.n;

  let missing = 0;
  let nonFinite = 0;
  for (const u of updates) {
    const v = u.values[key];
    if (v === undefined) missing++;
    else if (!Number.isFinite(v)) nonFinite++;
  }

  // Each trace drawn in full up to REDUCE_ABOVE points, else reduced per bucket on its own; the
  // figure's note counts the points of all traces.
  let reduced: Reduction | undefined;
  const reduce = (xs: number[], ys: (number | null)[]): number[] | null => {
    const idx = reducedIndices(xs, [ys]);
    reduced = addReduction(reduced, xs.length, idx === null ? xs.length : idx.length);
    return idx;
  };
  const xAll = updates.map((u) => u.update);
  const yAll = updates.map((u) => plotValue(u.values[key]));
  const drawnAll = reduce(xAll, yAll);
  const data: Trace[] = [
    {
      type: "scatter",
      mode: "lines",
      name: "all updates in order",
      x: pickAt(xAll, drawnAll),
      y: pickAt(yAll, drawnAll),
      hoverinfo: "skip",
      line: { color: BOUNDARY_COLOR, width: 0.75 },
      connectgaps: false,
    },
  ];
  // Every position 0..N-1 gets a legend entry even if empty, plus any out-of-range one found in data.
  const positions = new Set<number>();
  for (let p = 0; p < n; p++) positions.add(p);
  for (const u of updates) positions.add(u.updateInRollout);
  for (const p of Array.from(positions).sort((a, b) => a - b)) {
    const at = updates.filter((u) => u.updateInRollout === p);
    const xs = at.map((u) => u.update);
    const ys = at.map((u) => plotValue(u.values[key]));
    const drawn = reduce(xs, ys);
    data.push({
      type: "scatter",
      mode: "markers",
      name: `update ${p + 1} of ${n} in its batch`,
      x: pickAt(xs, drawn),
      y: pickAt(ys, drawn),
      customdata: pickAt(at, drawn).map(updateCustomData),
      hovertemplate: updateHoverTemplate(label),
      marker: { color: categoryColor(p), size: 6 },
    });
  }

  const { shapes, annotations } = roundMarks(
    roundSpans(
      aligned.rounds,
      updates.map((u) => ({ round: u.round, x: u.update })),
    ),
  );
  const layout = baseLayout(options.title ?? `${label} per optimizer update, by position in its rollout batch`, "optimizer update", keyAxisTitle(key));
  layout.xaxis = { ...layout.xaxis, ...integerAxisTicks(updates.map((u) => u.update)) };
  layout.shapes = shapes;
  layout.annotations = annotations;
  layout.meta = { figure: "updates-by-position", key, missing, nonFinite, updatesPerRollout: n };
  noteReduction(layout, reduced);
  return { data, layout };
}
