/** The "what it is / what it is not" note of a metric, written from the metric schema only. */
import { metricByKey } from "../registry/metric-lookup";
import { PROFILES } from "../registry/profiles";
import type { FrameworkProfile } from "../registry/framework-profile";
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
 * @example metricNoteMarkdown(metricOf(SLIME_PROFILE, "entropy")!)
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

/**
 * Resolve a metric given as a spec or as its W&B key: the key under `profile`, or under the one
 * profile that describes it; a key two profiles describe differently needs the profile.
 */
export function resolveMetric(metric: MetricSpec | string, profile?: FrameworkProfile): MetricSpec {
  if (typeof metric !== "string") return metric;
  const found = (profile === undefined ? PROFILES : [profile]).flatMap((p) => {
    const spec = metricByKey(p, metric);
    return spec === undefined ? [] : [{ p, spec }];
  });
  const where = profile === undefined ? "no framework profile describes it" : `the ${profile.label} profile does not describe it`;
  if (found.length === 0) throw new Error(`unknown metric key: ${metric} (${where}; lib/registry/profile-*.ts)`);
  if (new Set(found.map((f) => f.spec)).size > 1)
    throw new Error(`ambiguous metric key: ${metric} means different things in ${found.map((f) => f.p.label).join(" and ")}; pass the profile`);
  return found[0].spec;
}

/** Options of {@link showNote}. */
export interface ShowNoteOptions extends ShowOptions {
  /** The profile a key is looked up under. Default: the one profile that describes the key. */
  profile?: FrameworkProfile;
}

/**
 * Display the note of a metric (spec or W&B key) as markdown.
 * @example showNote(metricOfAligned(aligned, "gradNorm"))
 */
export function showNote(metric: MetricSpec | string, options?: ShowNoteOptions): void {
  resolveDisplay(options).markdown(metricNoteMarkdown(resolveMetric(metric, options?.profile)));
}
