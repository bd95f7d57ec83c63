/**
 * `_step` against the declared step keys, per run: shows that `_step` counts logging calls (it
 * restarts in every run and advances on every row), while the framework's step keys (slime's
 * `rollout/step` and `train/step`) continue across rounds. For the alignment notebook; reads raw history, before alignment.
 */
import { detectProfile } from "../registry/detect-profile";
import { declaredStepKeys } from "../registry/profile-axis";
import type { RunHistory } from "../types";
import { baseLayout, type Figure, type Trace } from "./figure";
import { categoryColor } from "./palette";
import { addReduction, noteReduction, reducedIndices, type Reduction } from "./reduce-points";
import { drawnValues } from "./series-columns";

/** Options of stepAxesFigure. */
export interface StepAxesOptions {
  /** Step keys to plot, each with its own marker symbol. Default: the runs' profile's (slime: rollout/step and train/step). */
  stepKeys?: readonly string[];
  /** Figure title. */
  title?: string;
}

const SYMBOLS = ["circle", "diamond-open", "square-open", "triangle-up-open"] as const;

/**
 * Scatter per run and step key: x = `_step`, y = the step key's value, colour = run (in input
 * order), symbol = step key. Rows without the key are not drawn.
 * @example stepAxesFigure(archive.runs)
 */
export function stepAxesFigure(runs: readonly RunHistory[], options: StepAxesOptions = {}): Figure {
  const stepKeys = options.stepKeys ?? declaredStepKeys(detectProfile(runs).profile);
  const data: Trace[] = [];
  // Each trace drawn in full up to REDUCE_ABOVE points, else reduced per bucket of _step.
  let reduced: Reduction | undefined;
  runs.forEach((run, i) => {
    stepKeys.forEach((key, k) => {
      const { xs, ys } = stepPoints(run, key);
      const drawn = reducedIndices(xs, [ys]);
      reduced = addReduction(reduced, xs.length, drawn === null ? xs.length : drawn.length);
      data.push({
        type: "scatter",
        mode: "markers",
        name: `${run.round} (${run.runId}): ${key}`,
        legendgroup: run.runId,
        x: drawnValues(xs, drawn),
        y: drawnValues(ys, drawn),
        marker: { color: categoryColor(i), symbol: SYMBOLS[k % SYMBOLS.length], size: 5 },
        hovertemplate: `${run.round} (${run.runId})<br>_step %{x}<br>${key} %{y}<extra></extra>`,
      });
    });
  });
  const layout = baseLayout(
    options.title ?? `_step counts logging calls per run; ${stepKeys.join(" and ")} continue across rounds`,
    "_step (W&B logging counter of the run)",
    "step key value",
  );
  layout.meta = { figure: "step-axes", stepKeys: stepKeys.slice(), runs: runs.map((r) => r.runId) };
  noteReduction(layout, reduced);
  return { data, layout };
}

/** `_step` and the key's value of the run's rows where both are finite, as columns (no row array is copied). */
function stepPoints(run: RunHistory, key: string): { xs: Float64Array; ys: Float64Array } {
  const has = (row: RunHistory["rows"][number]): boolean => key in row && Number.isFinite(row[key]) && Number.isFinite(row._step);
  let count = 0;
  for (const row of run.rows) if (has(row)) count++;
  const xs = new Float64Array(count);
  const ys = new Float64Array(count);
  let i = 0;
  for (const row of run.rows) {
    if (!has(row)) continue;
    xs[i] = row._step;
    ys[i++] = row[key];
  }
  return { xs, ys };
}
