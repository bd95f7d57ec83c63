/** The "what it is / what it is not" note of a metric, written from the metric schema only. */
import { metricByKey } from "../schema/slime-metrics";
import type { MetricSpec } from "../registry/metric-spec";
import { resolveDisplay, type ShowOptions } from "./display-target";

/**
 * Escape text for markdown: characters that would start emphasis, code, links, HTML, tables or math
 * (`$` starts TeX in JupyterLab). Keys go in code spans and need none.
 */
export function escapeMarkdown(text: string): string {
  return text.replace(/[\\`*_[\]<>|$#]/g, (c) => `\\${c}`);
}

/** What a per-round mean of a metric of this grain is taken over. */
export function grainText(grain: MetricSpec["grain"]): string {
  switch (grain) {
    case "update":
      return "per-round means are taken over optimizer updates";
    case "rollout":
      return "per-round means are taken over rollout batches";
    default:
      throw new Error(`invalid grain: ${String(grain)}`);
  }
}

/** Text ending in a full stop (added unless it already ends in . ! or ?). */
function sentence(text: string): string {
  return /[.!?]$/.test(text) ? text : `${text}.`;
}

/**
 * Markdown note of a metric.
 * @example metricNoteMarkdown(METRICS.entropy)
 *   // "**entropy** (`train/entropy_loss`, nats/token; per-round means are taken over optimizer updates)\n\n- **What it is:** ..."
 */
export function metricNoteMarkdown(spec: MetricSpec, over?: string): string {
  const unit = spec.unit ? `, ${escapeMarkdown(spec.unit)}` : "";
  return [
    `**${escapeMarkdown(spec.label)}** (\`${spec.key}\`${unit}; ${over === undefined ? grainText(spec.grain) : `per-round means are taken over ${escapeMarkdown(over)}`})`,
    "",
    `- **What it is:** ${sentence(escapeMarkdown(spec.is))}`,
    `- **What it is not:** ${sentence(escapeMarkdown(spec.isNot))}`,
  ].join("\n");
}

/** Resolve a metric given as a schema entry or as its W&B key. */
export function resolveMetric(metric: MetricSpec | string): MetricSpec {
  if (typeof metric !== "string") return metric;
  const spec = metricByKey(metric);
  if (!spec) throw new Error(`unknown metric key: ${metric} (not in lib/schema/slime-metrics.ts)`);
  return spec;
}

/**
 * Display the note of a metric (schema entry or W&B key) as markdown.
 * @example showNote(METRICS.gradNorm)
 */
export function showNote(metric: MetricSpec | string, options?: ShowOptions): void {
  resolveDisplay(options).markdown(metricNoteMarkdown(resolveMetric(metric)));
}
