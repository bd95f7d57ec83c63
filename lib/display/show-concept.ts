/**
 * Shows a registry concept in a notebook: its figure and "what it is / is not" note for the runs'
 * framework, or one line saying why the framework has no such series (never a failing cell).
 */
import type { AlignedRuns } from "../types";
import type { ConceptId } from "../registry/concepts";
import { conceptSeriesFigure, type ConceptSeriesOptions } from "../figures/concept-series";
import { resolveDisplay, type ShowOptions } from "./display-target";
import { escapeMarkdown, metricNoteMarkdown } from "./metric-note";
import { showFigure } from "./show-figure";
import { singular } from "../registry/framework-profile";

/**
 * Figure and note of a concept, or the reason it is not shown.
 * @example showConcept(aligned, "entropy", "Entropy")
 */
export function showConcept(aligned: AlignedRuns, concept: ConceptId, caption: string, options: ConceptSeriesOptions & ShowOptions = {}): void {
  const series = conceptSeriesFigure(aligned, concept, options);
  if ("absent" in series) {
    resolveDisplay(options).markdown(`*${escapeMarkdown(caption)}: not shown.* ${escapeMarkdown(series.absent)}`);
    return;
  }
  showFigure(series.figure, `${caption} per ${singular(series.over)}`, options);
  resolveDisplay(options).markdown(metricNoteMarkdown(series.metric, series.over));
}
