/**
 * One train/inference mismatch metric of the panel (lib/diagnostics/mismatch-panel.ts): its value per
 * rollout batch (or training step), each round's mean as a flat dashed segment over the round, a
 * dashed red line at every restart with its jump, round boundaries, and the slope over round means
 * in the title.
 */
import type { MismatchPanelEntry } from "../diagnostics/mismatch-panel";
import { formatSlope } from "../diagnostics/mismatch-drift";
import { baseLayout, integerAxisTicks, type Figure, type FigureAnnotation, type FigureShape, type Trace } from "./figure";
import { HIGHLIGHT_COLOR, SERIES_COLOR, categoryColor } from "./palette";
import { noteReduction, pickAt, reducedIndices } from "./reduce-points";
import { roundMarks, roundSpans } from "./round-marks";
import { drawnValues } from "./series-columns";
import { MARKER_LIMIT } from "./update-series";

/**
 * The figure of one panel entry; `rounds` the run set's rounds in order, `xTitle` what x counts.
 * @example mismatchFigure(panel.entries[0], aligned.rounds, "rollout batch (rollout/step)")
 */
export function mismatchFigure(entry: MismatchPanelEntry, rounds: readonly string[], xTitle: string): Figure {
  const s = entry.series;
  const spans = roundSpans(rounds, s.points);
  // Above REDUCE_ABOVE batches, per pixel column the first, last, lowest and highest point are drawn.
  const xs = Float64Array.from(s.points, (p) => p.x);
  const ys = Float64Array.from(s.points, (p) => p.value);
  const drawn = reducedIndices(xs, [ys]);
  const data: Trace[] = [
    {
      type: "scatter",
      mode: s.points.length > MARKER_LIMIT ? "lines" : "lines+markers",
      name: s.name,
      x: drawnValues(xs, drawn),
      y: drawnValues(ys, drawn),
      customdata: pickAt(s.points, drawn).map((p) => [p.round, p.runId]),
      hovertemplate: `%{x}<br>${s.name}: %{y}<br>round %{customdata[0]}, run %{customdata[1]}<extra></extra>`,
      line: { color: SERIES_COLOR, width: 1.5 },
      marker: { color: SERIES_COLOR, size: 4 },
    },
    roundMeanTrace(entry, spans),
  ];
  const marks = roundMarks(spans);
  const restarts = restartMarks(entry);
  // The key is the legend's; the title states the slope over round means.
  const slope =
    entry.drift.slope === null ? "no slope over rounds (fewer than 2 round means)" : `slope ${formatSlope(entry.drift.slope)} ${entry.unit} per round`;
  const layout = baseLayout(`${entry.label}: ${slope}`, xTitle, `${entry.label} (${entry.unit})`);
  layout.xaxis = { ...layout.xaxis, ...integerAxisTicks(xs) };
  layout.shapes = marks.shapes.concat(restarts.shapes);
  layout.annotations = marks.annotations.concat(restarts.annotations);
  layout.meta = { figure: "mismatch", key: s.name, slope: entry.drift.slope, restarts: entry.jumps.length };
  noteReduction(layout, drawn === null ? undefined : { from: xs.length, to: drawn.length });
  return { data, layout };
}

/** Each round's mean as a flat segment over the round's span (a gap between rounds). */
function roundMeanTrace(entry: MismatchPanelEntry, spans: readonly { round: string; first: number; last: number }[]): Trace {
  const x: (number | null)[] = [];
  const y: (number | null)[] = [];
  for (const span of spans) {
    const mean = entry.series.rounds.find((r) => r.round === span.round)?.mean.mean ?? null;
    if (mean === null) continue;
    x.push(span.first, span.last, null);
    y.push(mean, mean, null);
  }
  return {
    type: "scatter",
    mode: "lines",
    name: "round mean",
    x,
    y,
    line: { color: categoryColor(1), width: 2, dash: "dash" },
    hoverinfo: "skip",
    connectgaps: false,
  };
}

/** A dashed red line at the first batch after each restart, labelled with the restart and its jump. */
function restartMarks(entry: MismatchPanelEntry): { shapes: FigureShape[]; annotations: FigureAnnotation[] } {
  const shapes: FigureShape[] = [];
  const annotations: FigureAnnotation[] = [];
  for (const j of entry.jumps) {
    if (j.after === null) continue;
    const x = j.after.x - 0.5;
    shapes.push({ type: "line", xref: "x", yref: "paper", x0: x, x1: x, y0: 0, y1: 1, line: { color: HIGHLIGHT_COLOR, width: 1, dash: "dash" } });
    const jump = j.jump === null ? "no level before" : `jump ${formatSlope(j.jump)}`;
    annotations.push({
      text: `${j.resume.kind === "new round" ? "restart" : "resumed in place"}: ${jump}`,
      xref: "x",
      yref: "paper",
      x,
      y: 0.02,
      xanchor: "left",
      yanchor: "bottom",
      showarrow: false,
      font: { color: HIGHLIGHT_COLOR, size: 11 },
    });
  }
  return { shapes, annotations };
}
