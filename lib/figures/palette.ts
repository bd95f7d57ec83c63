/**
 * Fixed colours, so the same series has the same colour in every figure and in every run of the
 * notebooks (plotly's default category-10 colorway, written out).
 */

/** Category colours, indexed by series position (round, run, or update position in its batch). */
export const CATEGORY_COLORS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"] as const;

/** Colour of the main line of a single-series figure. */
export const SERIES_COLOR = "#1f77b4";

/** Colour of round boundaries and round labels. */
export const BOUNDARY_COLOR = "#888888";

/** Colour of highlighted exceptional points (e.g. an exact-zero gradient norm). */
export const HIGHLIGHT_COLOR = "#d62728";

/** Fill of a min..max band around a series (the series colour, mostly transparent). */
export const BAND_FILL = "rgba(31, 119, 180, 0.15)";

/** Category colour for index i (wraps around after ten). */
export function categoryColor(i: number): string {
  return CATEGORY_COLORS[((i % CATEGORY_COLORS.length) + CATEGORY_COLORS.length) % CATEGORY_COLORS.length];
}

/** A category colour with alpha (an arm's band, its experiments' markers). */
export function withAlpha(hex: string, alpha: number): string {
  const n = Number.parseInt(hex.slice(1), 16);
  return `rgba(${(n >> 16) & 255}, ${(n >> 8) & 255}, ${n & 255}, ${alpha})`;
}
