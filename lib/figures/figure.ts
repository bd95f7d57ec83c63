/**
 * The figure spec shared by every builder: plain plotly JSON (`{ data, layout }`), so a spec can be
 * displayed (lib/display), drawn to a static image in a browser, and snapshot-tested as JSON.
 * plotly.js itself needs a DOM, so only its types are imported here.
 */
import type { Annotations, Data, Layout, PlotData, Shape } from "plotly.js";
import { describeKey } from "../registry/metric-lookup";

/** Facts about a figure kept in `layout.meta` (plotly keeps `meta` and ignores it when drawing). */
export interface FigureMeta {
  /** Which builder made the figure, e.g. "update-series". */
  figure: string;
  /** Title as shown; set by showFigure, read by the static-image pass for `text/plain`. */
  title?: string;
  /** The W&B key plotted, when the figure plots one key. */
  key?: string;
  /** Records with no value for the key (left as gaps, never filled). */
  missing?: number;
  /** Records whose value is NaN or ±Infinity (drawn as gaps; JSON has no such numbers). */
  nonFinite?: number;
  [extra: string]: unknown;
}

/** Plotly layout plus typed `meta`. */
export type FigureLayout = Partial<Layout> & { meta?: FigureMeta };

/** A plotly figure spec: data (traces) and layout, JSON-serialisable, no functions, no random ids. */
export interface Figure {
  data: Data[];
  layout: FigureLayout;
}

/** One trace as the builders write it. */
export type Trace = Partial<PlotData>;

/** A layout shape (round boundary lines). */
export type FigureShape = Partial<Shape>;

/** A layout annotation (round labels). */
export type FigureAnnotation = Partial<Annotations>;

export { describeKey };

/** Axis title of a key: "label (unit)", or the label alone when the unit is empty. */
export function keyAxisTitle(key: string): string {
  const { label, unit } = describeKey(key);
  return unit ? `${label} (${unit})` : label;
}

/** A value as plotly JSON can carry it: finite numbers stay, absent and non-finite become null (a gap). */
export function plotValue(value: number | undefined): number | null {
  return value !== undefined && Number.isFinite(value) ? value : null;
}

/** Plot height shared by the builders; width is left to the frontend (autosize) or the image pass. */
export const FIGURE_HEIGHT = 420;

/**
 * x axis settings for integer ids (update numbers, rollout ids): one tick per id when few ids are
 * shown, so plotly draws no ticks at 1.5, 2.5 ...; many ids get plotly's own (integer) spacing.
 */
export function integerAxisTicks(xs: ArrayLike<number>): { tickformat: string; dtick?: number } {
  let min = Infinity;
  let max = -Infinity;
  for (let i = 0; i < xs.length; i++) {
    if (xs[i] < min) min = xs[i];
    if (xs[i] > max) max = xs[i];
  }
  return max - min <= 20 ? { tickformat: "d", dtick: 1 } : { tickformat: "d" };
}

/** Base layout every builder starts from (same margins and fonts, so figures line up in a report). */
export function baseLayout(title: string, xTitle: string, yTitle: string): FigureLayout {
  return {
    title: { text: title, x: 0.01, xanchor: "left" },
    height: FIGURE_HEIGHT,
    // The legend sits in the bottom margin in container coordinates, so it never covers the x title.
    margin: { l: 70, r: 20, t: 80, b: 100 },
    hovermode: "closest",
    showlegend: true,
    legend: { orientation: "h", xref: "container", x: 0.01, yref: "container", y: 0.01, yanchor: "bottom" },
    xaxis: { title: { text: xTitle }, zeroline: false },
    yaxis: { title: { text: yTitle }, zeroline: false },
  };
}

/**
 * The y range of a figure whose every plotted value on its main y axis is one number c, else null
 * (plotly's own autorange is kept). Plotly draws a constant series on c - 1..c + 1: an all-zero
 * gradient norm on -1..1, as if it could be negative. Here zero stays in view, on the side the value
 * is: [-0.05, 1] for 0, [0, 2c] above, [2c, 0] below.
 */
export function constantSeriesRange(fig: Figure): [number, number] | null {
  const yaxis = fig.layout.yaxis as { type?: string; range?: unknown } | undefined;
  if (yaxis?.range !== undefined || (yaxis?.type !== undefined && yaxis.type !== "linear" && yaxis.type !== "-")) return null;
  let c: number | null = null;
  for (const trace of fig.data as Trace[]) {
    if ((trace.yaxis ?? "y") !== "y" || !Array.isArray(trace.y)) continue;
    for (const v of trace.y as unknown[]) {
      if (typeof v !== "number" || !Number.isFinite(v)) continue;
      if (c === null) c = v;
      else if (v !== c) return null;
    }
  }
  if (c === null) return null;
  return c === 0 ? [-0.05, 1] : c > 0 ? [0, 2 * c] : [2 * c, 0];
}
