/**
 * Source notebooks are committed clean, as nbdev keeps them: no outputs, no execution counts, and
 * only the metadata that says which kernel runs them. What is kept is declared here, once; the rest
 * (run times, widget state, editor or viewer state, kernel versions) changes on every run and would
 * make every commit of a notebook noisy.
 */
import type { Notebook, NotebookCell } from "../display/notebook-static-images";

/** Notebook-level metadata kept, field by field: the kernel and the language name. */
export const KEPT_NOTEBOOK_METADATA: Readonly<Record<string, readonly string[]>> = {
  kernelspec: ["display_name", "language", "name"],
  language_info: ["name"],
};

/** Cell metadata kept: tags are set on purpose (nbconvert and papermill read them); nothing else is. */
export const KEPT_CELL_METADATA: readonly string[] = ["tags"];

function pick(from: unknown, keys: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (from === null || typeof from !== "object") return out;
  for (const k of keys) if (k in from) out[k] = (from as Record<string, unknown>)[k];
  return out;
}

/** A cell without outputs, execution count or unlisted metadata (other fields as they were). */
export function cleanCell(cell: NotebookCell): NotebookCell {
  const out: NotebookCell = { ...cell, metadata: pick(cell.metadata, KEPT_CELL_METADATA) };
  if (cell.cell_type === "code") {
    out.outputs = [];
    out.execution_count = null;
  }
  return out;
}

/** The clean form of a notebook: every cell cleaned, notebook metadata reduced to the kept fields. */
export function cleanNotebook(nb: Notebook): Notebook {
  const metadata: Record<string, unknown> = {};
  for (const [key, fields] of Object.entries(KEPT_NOTEBOOK_METADATA)) {
    if (nb.metadata && key in nb.metadata) metadata[key] = pick(nb.metadata[key], fields);
  }
  return { ...nb, metadata, cells: nb.cells.map(cleanCell) };
}
