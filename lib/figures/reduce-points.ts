/**
 * Fewer points drawn, nothing computed from fewer: above REDUCE_ABOVE points a trace keeps, per
 * pixel-column bucket of its x range, the first and last point, the lowest and highest finite value
 * and the first gap, so a single zero or spike and every gap stay visible (what W&B's full-fidelity
 * charts keep). Only the drawn arrays shrink; counts, tables and summaries are computed before this.
 */
import type { FigureAnnotation, FigureLayout } from "./figure";

/** A trace with at most this many points is drawn as is (byte for byte). */
export const REDUCE_ABOVE = 2000;

/** Buckets over the x range a reduced trace is cut into (about one per pixel column). */
export const REDUCE_BUCKETS = 1000;

/** How many points a figure's traces held and how many are drawn (`layout.meta.reduced`). */
export interface Reduction {
  from: number;
  to: number;
}

/** Options of {@link reducedIndices}. */
export interface ReduceOptions {
  /** Reduce only above this many points. Default REDUCE_ABOVE. */
  above?: number;
  /** Buckets over the x range. Default REDUCE_BUCKETS. */
  buckets?: number;
}

/** Per bucket and y array: index of the lowest and highest finite value, and of the first gap (-1: none). */
function markExtremes(x: ArrayLike<number>, y: ArrayLike<number | null>, bucketOf: (x: number) => number, keep: Uint8Array, buckets: number): void {
  const minAt = new Int32Array(buckets).fill(-1);
  const maxAt = new Int32Array(buckets).fill(-1);
  const gapAt = new Int32Array(buckets).fill(-1);
  for (let i = 0; i < x.length; i++) {
    const b = bucketOf(x[i]);
    const v = y[i];
    if (v === null || v === undefined || !Number.isFinite(v)) {
      if (gapAt[b] < 0) gapAt[b] = i;
      continue;
    }
    // Strict comparisons: the first of equal extremes is kept.
    if (minAt[b] < 0 || v < (y[minAt[b]] as number)) minAt[b] = i;
    if (maxAt[b] < 0 || v > (y[maxAt[b]] as number)) maxAt[b] = i;
  }
  for (let b = 0; b < buckets; b++) {
    if (minAt[b] >= 0) keep[minAt[b]] = 1;
    if (maxAt[b] >= 0) keep[maxAt[b]] = 1;
    if (gapAt[b] >= 0) keep[gapAt[b]] = 1;
  }
}

/**
 * Indices (ascending) of the points to draw of traces sharing `x`: the union over `ys` of each
 * bucket's first, last, min, max and first gap; null when there are at most `above` points (draw all).
 * @example reducedIndices(xs, [ys], { above: 2000, buckets: 1000 }) // null for 2000 points
 */
export function reducedIndices(x: ArrayLike<number>, ys: readonly ArrayLike<number | null>[], opts: ReduceOptions = {}): number[] | null {
  const above = opts.above ?? REDUCE_ABOVE;
  const buckets = opts.buckets ?? REDUCE_BUCKETS;
  if (x.length <= above) return null;
  let lo = Infinity;
  let hi = -Infinity;
  for (let i = 0; i < x.length; i++) {
    if (x[i] < lo) lo = x[i];
    if (x[i] > hi) hi = x[i];
  }
  const width = hi - lo;
  const bucketOf = (v: number): number => (width > 0 ? Math.min(buckets - 1, Math.floor(((v - lo) / width) * buckets)) : 0);
  const keep = new Uint8Array(x.length);
  const firstAt = new Int32Array(buckets).fill(-1);
  const lastAt = new Int32Array(buckets).fill(-1);
  for (let i = 0; i < x.length; i++) {
    const b = bucketOf(x[i]);
    if (firstAt[b] < 0) firstAt[b] = i;
    lastAt[b] = i;
  }
  for (let b = 0; b < buckets; b++) {
    if (firstAt[b] >= 0) keep[firstAt[b]] = 1;
    if (lastAt[b] >= 0) keep[lastAt[b]] = 1;
  }
  for (const y of ys) markExtremes(x, y, bucketOf, keep, buckets);
  const out: number[] = [];
  for (let i = 0; i < keep.length; i++) if (keep[i] === 1) out.push(i);
  return out;
}

/** The items at `indices`, in that order; all of them (a copy) when `indices` is null. */
export function pickAt<T>(items: readonly T[], indices: readonly number[] | null): T[] {
  return indices === null ? items.slice() : indices.map((i) => items[i]);
}

/** Adds two reductions (the points of several traces of one figure). */
export function addReduction(a: Reduction | undefined, from: number, to: number): Reduction {
  return { from: (a ? a.from : 0) + from, to: (a ? a.to : 0) + to };
}

/** The caption line of a reduced figure (the hover text says how points were chosen and that numbers use all). */
export function reductionText(r: Reduction): string {
  const f = (n: number): string => n.toLocaleString("en-US");
  return `drawn: ${f(r.to)} of ${f(r.from)} points (min, max, first, last per x bucket)`;
}

/** What a reduction keeps and what it never changes, for the caption's hover text. */
export const REDUCTION_HOVER = `Above ${REDUCE_ABOVE.toLocaleString("en-US")} points a trace keeps, in each of ${REDUCE_BUCKETS.toLocaleString("en-US")} buckets of its x range, the first, last, lowest and highest point and the first gap; every number in tables, notes and the meta is computed from all points.`;

/** Records a reduction in a layout: `meta.reduced` and a caption line under the plot, right, level with the x axis title. */
export function noteReduction(layout: FigureLayout, r: Reduction | undefined): void {
  if (r === undefined || r.to === r.from) return;
  const note: FigureAnnotation = {
    text: reductionText(r),
    xref: "paper",
    yref: "paper",
    x: 1,
    y: 0,
    xanchor: "right",
    yanchor: "top",
    yshift: -36,
    showarrow: false,
    hovertext: REDUCTION_HOVER,
    font: { size: 10, color: "#7f7f7f" },
  };
  layout.annotations = [...(layout.annotations ?? []), note];
  layout.meta = { figure: layout.meta?.figure ?? "custom", ...(layout.meta ?? {}), reduced: { from: r.from, to: r.to } };
}
