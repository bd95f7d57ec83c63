/**
 * The post-pass over executed notebooks: every output carrying plotly JSON gets `image/png` (drawn
 * by a renderer, see plotly-renderer.ts) and `text/plain` (the figure title) in the SAME output, so
 * frontends without plotly (nbconvert HTML, nbviewer, GitHub) show the image, JupyterLab and VS Code
 * keep the interactive figure. Works on nbformat 4 JSON; knows nothing about browsers.
 */
import type { Figure } from "../figures/figure";
import { PLOTLY_MIME } from "./display-target";

/** An nbformat 4 output (only the fields this pass reads or writes are typed). */
export interface NotebookOutput {
  output_type: string;
  data?: Record<string, unknown>;
  metadata?: Record<string, unknown>;
  [field: string]: unknown;
}

/** An nbformat 4 cell. */
export interface NotebookCell {
  cell_type: string;
  source: string | string[];
  outputs?: NotebookOutput[];
  [field: string]: unknown;
}

/** An nbformat 4 notebook. */
export interface Notebook {
  cells: NotebookCell[];
  metadata: Record<string, unknown>;
  nbformat: number;
  nbformat_minor: number;
}

/** Where a plotly output sits and what it holds. */
export interface PlotlyOutputRef {
  /** 0-based cell index. */
  cell: number;
  /** 0-based output index inside the cell. */
  output: number;
  figure: Figure;
  title: string;
}

/** Title of a figure: `layout.title.text`, else `layout.meta.title`, else "plotly figure". */
export function figureTitle(fig: Figure): string {
  const t = fig.layout?.title as unknown;
  if (typeof t === "string" && t.trim()) return t;
  if (t && typeof t === "object" && typeof (t as { text?: unknown }).text === "string" && (t as { text: string }).text.trim()) {
    return (t as { text: string }).text;
  }
  const metaTitle = fig.layout?.meta?.title;
  return typeof metaTitle === "string" && metaTitle.trim() ? metaTitle : "plotly figure";
}

/** Every output with plotly JSON, in notebook order (JSON given as a string is parsed). */
export function plotlyOutputs(nb: Notebook, file = "notebook"): PlotlyOutputRef[] {
  const found: PlotlyOutputRef[] = [];
  nb.cells.forEach((cell, c) => {
    (cell.outputs ?? []).forEach((out, o) => {
      const raw = out.data?.[PLOTLY_MIME];
      if (raw === undefined) return;
      let figure: Figure;
      try {
        figure = (typeof raw === "string" ? JSON.parse(raw) : raw) as Figure;
      } catch (cause) {
        throw new Error(`${file}: cell ${c}, output ${o}: ${PLOTLY_MIME} is not valid JSON`, { cause });
      }
      if (!figure || !Array.isArray(figure.data)) throw new Error(`${file}: cell ${c}, output ${o}: ${PLOTLY_MIME} has no data array`);
      if (!figure.layout || typeof figure.layout !== "object") figure = { ...figure, layout: {} };
      found.push({ cell: c, output: o, figure, title: figureTitle(figure) });
    });
  });
  return found;
}

/** Text as nbformat stores multi-line strings: lines that keep their "\n" (so files match nbformat.write). */
export function splitLines(text: string): string[] {
  return text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
}

/** What the renderer must return for one figure. */
export interface StaticImage {
  /** PNG as base64 without the `data:` prefix. */
  base64: string;
  /** CSS size the figure was drawn at. */
  width: number;
  height: number;
  /** Pixel ratio of the PNG (PNG size = scale x CSS size). */
  scale: number;
}

/**
 * A copy of the notebook in which every plotly output also holds `image/png` and `text/plain`
 * (replacing earlier ones, so re-running the pass redraws changed figures). `image/png` metadata
 * gets the CSS size when the PNG is larger (scale > 1), so it displays at the figure's size.
 */
export async function withStaticImages(
  nb: Notebook,
  render: (fig: Figure, ref: PlotlyOutputRef) => Promise<StaticImage>,
  file = "notebook",
): Promise<{ notebook: Notebook; figures: PlotlyOutputRef[] }> {
  const copy = JSON.parse(JSON.stringify(nb)) as Notebook;
  const refs = plotlyOutputs(copy, file);
  for (const ref of refs) {
    let image: StaticImage;
    try {
      image = await render(ref.figure, ref);
    } catch (cause) {
      throw new Error(`${file}: cell ${ref.cell}, output ${ref.output} ("${ref.title}"): ${(cause as Error).message}`, { cause });
    }
    const out = copy.cells[ref.cell].outputs![ref.output];
    out.data = { ...out.data, "image/png": image.base64, "text/plain": splitLines(ref.title) };
    const metadata = { ...(out.metadata ?? {}) };
    delete metadata["image/png"];
    if (image.scale !== 1) {
      metadata["image/png"] = { width: image.width, height: image.height };
    }
    out.metadata = metadata;
  }
  return { notebook: copy, figures: refs };
}

/** JSON with object keys sorted at every level (key order as nbformat writes it). */
function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(value as object).sort()) out[k] = sortKeys((value as Record<string, unknown>)[k]);
    return out;
  }
  return value;
}

/** Notebook file text as nbformat writes it: sorted keys, one-space indent, trailing newline. */
export function serializeNotebook(nb: Notebook): string {
  return `${JSON.stringify(sortKeys(nb), null, 1)}\n`;
}

/** Parse notebook file text; names the file when it is not an nbformat 4 notebook. */
export function parseNotebook(text: string, file: string): Notebook {
  let nb: Notebook;
  try {
    nb = JSON.parse(text) as Notebook;
  } catch (cause) {
    throw new Error(`${file}: not JSON: ${(cause as Error).message}`, { cause });
  }
  if (!nb || !Array.isArray(nb.cells) || nb.nbformat !== 4) throw new Error(`${file}: not an nbformat 4 notebook`);
  return nb;
}
