/**
 * One small figure per flagged health check: the series of the key the check flagged (over display
 * update numbers or rollout ids, round boundaries marked), each flagged range shaded, the records
 * that fired marked in red; values that cannot be drawn (NaN, ±Infinity, absent) are labelled at the
 * bottom of the plot instead.
 */
import type { HealthCheckResult } from "../health/run-health-checks";
import type { HealthFlag } from "../health/health-check";
import { fmt } from "../health/concept-trace";
import { singular } from "../registry/framework-profile";
import { profileOfAligned } from "../registry/profiles";
import type { AlignedRuns } from "../types";
import { baseLayout, describeKey, integerAxisTicks, keyAxisTitle, plotValue, type Figure, type FigureAnnotation, type FigureShape, type Trace } from "./figure";
import { HIGHLIGHT_COLOR, SERIES_COLOR } from "./palette";
import { noteReduction, pickAt, reducedIndices } from "./reduce-points";
import { roundMarks, roundSpans } from "./round-marks";
import { rolloutsInOrder } from "./rollout-series";
import { MARKER_LIMIT, updatesInOrder } from "./update-series";

/** Fill of a flagged range (the highlight colour, mostly transparent). */
export const FLAG_FILL = "rgba(214, 39, 40, 0.15)";

/** Plot height of the health figures: smaller than the diagnostics figures, one per flagged check. */
export const HEALTH_FIGURE_HEIGHT = 320;

/** Text of a value that cannot be drawn. */
function undrawable(v: number | undefined): string {
  if (v === undefined) return "absent";
  return Number.isNaN(v) ? "NaN" : v > 0 ? "Inf" : "-Inf";
}

/** One record's point of the flagged key: x (update or rollout id), its round and value. */
interface FlagPoint {
  x: number;
  round: string;
  v: number | undefined;
}

/**
 * Figure of a flagged check: the key of its first flag, every flag on that key and unit marked.
 * Throws `invalid result: <check> has no flags` for a check without flags.
 * @example healthFlagFigure(aligned, report.results.find((r) => r.check === "non_finite")!)
 */
export function healthFlagFigure(aligned: AlignedRuns, result: HealthCheckResult): Figure {
  if (result.flags.length === 0) throw new Error(`invalid result: ${result.check} has no flags`);
  const { key, unit } = result.flags[0];
  const flags = result.flags.filter((f) => f.key === key && f.unit === unit);
  const records = flagPoints(aligned, key, unit);
  const byX = new Map(records.map((r) => [r.x, r.v]));
  const { label } = describeKey(key);
  const recordNoun = profileOfAligned(aligned).recordNoun;
  const xTitle = unit === "update" ? "optimizer update" : singular(recordNoun);
  // The line is reduced above REDUCE_ABOVE points; the fired records are all marked.
  const xs = records.map((r) => r.x);
  const ys = records.map((r) => plotValue(r.v));
  const drawn = reducedIndices(xs, [ys]);
  const fired = ([] as number[]).concat(...flags.map((f) => f.at));
  const rounds = roundMarks(
    roundSpans(
      aligned.rounds,
      records.map((r) => ({ round: r.round, x: r.x })),
    ),
  );
  const layout = baseLayout(`${result.check}: ${label}`, xTitle, keyAxisTitle(key));
  layout.height = HEALTH_FIGURE_HEIGHT;
  layout.xaxis = { ...layout.xaxis, ...integerAxisTicks(xs) };
  const window = windowMarks(flags);
  layout.shapes = [...flags.map(flagRange), ...window.shapes, ...rounds.shapes];
  layout.annotations = [...rounds.annotations, ...window.annotations, ...undrawableLabels(fired, byX)];
  layout.meta = { figure: "health-flags", check: result.check, key, unit, flags: flags.length, otherFlags: result.flags.length - flags.length };
  noteReduction(layout, drawn === null ? undefined : { from: xs.length, to: drawn.length });
  const line: Trace = {
    type: "scatter",
    mode: records.length > MARKER_LIMIT ? "lines" : "lines+markers",
    name: label,
    x: pickAt(xs, drawn),
    y: pickAt(ys, drawn),
    hovertemplate: `${xTitle} %{x}<br>${label}: %{y}<extra></extra>`,
    line: { color: SERIES_COLOR, width: 1.5 },
    marker: { color: SERIES_COLOR, size: 4 },
    connectgaps: false,
  };
  return { data: [line, firedTrace(result.check, unit === "update" ? ["update", "updates"] : [singular(recordNoun), recordNoun], label, fired, byX)], layout };
}

/** The key's value in every update or rollout record, in axis order. */
function flagPoints(aligned: AlignedRuns, key: string, unit: string): FlagPoint[] {
  return unit === "update"
    ? updatesInOrder(aligned.updates).map((u) => ({ x: u.update, round: u.round, v: u.values[key] }))
    : rolloutsInOrder(aligned.rollouts).map((r) => ({ x: r.rollout, round: r.round, v: r.values[key] }));
}

/** Crosses on the fired records that have a drawable value. */
function firedTrace(check: string, [one, many]: [string, string], label: string, fired: number[], byX: Map<number, number | undefined>): Trace {
  const drawable = fired.filter((x) => plotValue(byX.get(x)) !== null);
  return {
    type: "scatter",
    mode: "markers",
    name: `fired ${check} (${fired.length} ${fired.length === 1 ? one : many})`,
    x: drawable,
    y: drawable.map((x) => plotValue(byX.get(x))),
    hovertemplate: `${one} %{x}<br>${label}: %{y}<extra>flagged</extra>`,
    marker: { color: HIGHLIGHT_COLOR, size: 9, symbol: "x" },
  };
}

/**
 * What the flag was judged against, so a reader can judge it: the threshold as a dashed line over the
 * flagged runs' x range, and the run's early window (shaded, with its median as a dotted line). One
 * mark per distinct window (flags of one run share theirs).
 */
function windowMarks(flags: readonly HealthFlag[]): { shapes: FigureShape[]; annotations: FigureAnnotation[] } {
  const shapes: FigureShape[] = [];
  const annotations: FigureAnnotation[] = [];
  const seen = new Set<string>();
  for (const f of flags) {
    const w = f.window;
    if (w === undefined || w.side === "equal") continue;
    const id = JSON.stringify([f.runId, w]);
    if (seen.has(id)) continue;
    seen.add(id);
    const from = w.baseline ? w.baseline.first - 0.5 : f.first - 0.5;
    const line = (y: number, dash: "dash" | "dot"): FigureShape => ({
      type: "line",
      xref: "x",
      yref: "y",
      x0: from,
      x1: f.last + 0.5,
      y0: y,
      y1: y,
      line: { color: HIGHLIGHT_COLOR, width: 1.5, dash },
    });
    shapes.push(line(w.threshold, "dash"));
    annotations.push(mark(f.last + 0.5, w.threshold, `threshold ${fmt(w.threshold)}`));
    if (w.baseline === undefined) continue;
    const b = w.baseline;
    shapes.push(xBand(b.first, b.last, EARLY_FILL));
    shapes.push({ ...line(b.value, "dot"), x1: b.last + 0.5, line: { color: SERIES_COLOR, width: 1.5, dash: "dot" } });
    annotations.push(mark(b.first - 0.5, b.value, `early median ${fmt(b.value)}`, "left"));
  }
  return { shapes, annotations };
}

/** Fill of a run's early window (the level the flag is judged against). */
export const EARLY_FILL = "rgba(31, 119, 180, 0.10)";

function mark(x: number, y: number, text: string, xanchor: "left" | "right" = "right"): FigureAnnotation {
  return { text, xref: "x", yref: "y", x, y, xanchor, yanchor: "bottom", showarrow: false, font: { color: HIGHLIGHT_COLOR, size: 11 } };
}

/** The shaded x range of one flag. */
function flagRange(f: { first: number; last: number }): FigureShape {
  return xBand(f.first, f.last, FLAG_FILL);
}

/** A band over positions first..last (half a step beyond each), the plot's full height, below the data. */
function xBand(first: number, last: number, fillcolor: string): FigureShape {
  return { type: "rect", xref: "x", yref: "paper", x0: first - 0.5, x1: last + 0.5, y0: 0, y1: 1, layer: "below", line: { width: 0 }, fillcolor };
}

/** "NaN" / "Inf" labels at the bottom of fired records whose value cannot be drawn. */
function undrawableLabels(fired: number[], byX: Map<number, number | undefined>): FigureAnnotation[] {
  return fired
    .filter((x) => plotValue(byX.get(x)) === null)
    .map((x) => ({
      text: undrawable(byX.get(x)),
      xref: "x",
      yref: "paper",
      x,
      y: 0,
      yanchor: "bottom",
      showarrow: false,
      font: { color: HIGHLIGHT_COLOR, size: 11 },
    }));
}
