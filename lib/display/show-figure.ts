/**
 * Showing a figure in a notebook. tslab sends one MIME type per output, so the figure goes out as
 * plotly JSON alone, with its title inside (`layout.title.text` and `layout.meta.title`);
 * scripts/add-static-figures.ts later adds `image/png` and `text/plain` (the title) to that same
 * output, which makes the figure visible in nbconvert HTML, nbviewer and GitHub too.
 */
import { constantSeriesRange, type Figure } from "../figures/figure";
import { PLOTLY_MIME, resolveDisplay, type ShowOptions } from "./display-target";

/**
 * The figure exactly as it is displayed: a JSON deep copy (NaN/Infinity become null, undefined
 * fields vanish, so the notebook file holds what plotly draws) with the title set, and a constant
 * series on a range that keeps zero in view (constantSeriesRange).
 */
export function figureForDisplay(fig: Figure, title: string): Figure {
  if (typeof title !== "string" || title.trim() === "") throw new Error(`invalid title: ${JSON.stringify(title)}`);
  if (!fig || !Array.isArray(fig.data) || typeof fig.layout !== "object" || fig.layout === null) {
    throw new Error("invalid figure: expected { data: [...], layout: {...} }");
  }
  const copy = JSON.parse(JSON.stringify(fig)) as Figure;
  const oldTitle = typeof copy.layout.title === "object" && copy.layout.title !== null ? copy.layout.title : {};
  copy.layout.title = { ...oldTitle, text: title };
  copy.layout.meta = { figure: "custom", ...(copy.layout.meta ?? {}), title };
  const range = constantSeriesRange(copy);
  if (range !== null) copy.layout.yaxis = { ...copy.layout.yaxis, range };
  return copy;
}

/**
 * Display a figure spec under a title as `application/vnd.plotly.v1+json`.
 * @example showFigure(updateSeriesFigure(aligned, METRICS.entropy.key), "Entropy per update")
 */
export function showFigure(fig: Figure, title: string, options?: ShowOptions): void {
  const shown = figureForDisplay(fig, title);
  resolveDisplay(options).raw(PLOTLY_MIME, shown);
}
