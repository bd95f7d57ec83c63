/**
 * The health report in a notebook: the flags table (what a reader sees first), the per-check table
 * with every rule beside its result, and the thresholds. The per-check table carries a machine-readable
 * summary in an HTML comment, which the HTML report's index reads back from the executed notebook.
 */
import { formatCell as exportCellText } from "../export/export-cell";
import type { HealthSettings } from "../health/health-params";
import { measuredText } from "../health/measured-scores";
import type { HealthCheckResult, HealthReport } from "../health/run-health-checks";
import { resolveDisplay, type ShowOptions } from "./display-target";
import { escapeMarkdown } from "./metric-note";
import type { Notebook } from "./notebook-static-images";
import { tableHtml, type TableRow } from "./table-html";
import type { FrameworkProfile } from "../registry/framework-profile";
import { recordStepKey } from "../registry/profile-axis";

/** Marker of the summary comment in the per-check table's HTML. */
export const HEALTH_SUMMARY_MARKER = "rl-diagnostics-health-summary";

/** What the HTML report's index shows per check. */
export interface HealthIndexEntry {
  check: string;
  status: "flagged" | "no flags" | "not applicable";
  flags: number;
}

/** Rows of the flags table: one per flag, values as health.csv writes them (NaN, Inf, empty); the unit in the framework's words. */
export function healthFlagRows(report: HealthReport): TableRow[] {
  return report.flags.map((f) => ({
    check: f.check,
    severity: f.severity,
    round: f.round,
    run: f.runId,
    unit: f.unit === "update" ? "optimizer update" : report.recordNoun,
    first: f.first,
    last: f.last,
    count: f.count,
    key: f.key,
    value: exportCellText(f.value),
    rule: f.rule,
  }));
}

/**
 * The caption of the flags table: what first/last count, in the framework's words (its record and the
 * key that numbers it; display update numbers only where single updates are rows of their own).
 */
export function healthFlagsCaption(report: HealthReport, profile: FrameworkProfile): string {
  if (report.flags.length === 0) return "No check raised a flag on these runs.";
  const updates = profile.updates.observable ? "display update numbers (unit optimizer update) or " : "";
  return `Flags: one row per flagged range (as in exports/health.csv). first/last are ${updates}${recordStepKey(profile)} values (unit ${report.recordNoun}); value is the most extreme value of the range.`;
}

/** Rows of the per-check table: status and flag count beside the rule, what it found on these runs. */
export function healthResultRows(report: HealthReport): TableRow[] {
  return report.results.map((r) => ({
    check: r.check,
    severity: r.severity,
    result: r.status === "not applicable" ? "not applicable" : `${r.flags.length} flag${r.flags.length === 1 ? "" : "s"}`,
    rule: r.rule,
    "on these runs": r.reason ?? r.evidence ?? "",
    "measured on real failures": measuredText(r.check) ?? NOT_MEASURED,
  }));
}

/** What a rule without measured scores says: no fault class of the corpus is declared for it. */
export const NOT_MEASURED = "not measured: no failure class of the labelled corpus is declared for this check";

/** Rows of the thresholds table. */
export function healthParamRows(settings: HealthSettings): TableRow[] {
  return settings.rows.map((r) => ({
    check: r.check,
    parameter: r.param,
    value: String(r.value),
    default: String(r.default),
    from: r.source,
    variable: r.env,
    meaning: r.doc,
  }));
}

/** The index entries of a report. */
export function healthIndexEntries(report: HealthReport): HealthIndexEntry[] {
  return report.results.map((r) => ({ check: r.check, status: r.status, flags: r.flags.length }));
}

/** The per-check table's HTML, preceded by the summary comment (JSON; `--` cannot occur in it). */
export function healthResultsHtml(report: HealthReport): string {
  const json = JSON.stringify(healthIndexEntries(report)).replace(/--/g, "-\\u002d");
  return `<!-- ${HEALTH_SUMMARY_MARKER} ${json} -->\n${tableHtml(healthResultRows(report))}`;
}

/**
 * Display the per-check table (with the summary comment) and a caption below it.
 * @example showHealthResults(report, "Every check, its rule and what it found.")
 */
export function showHealthResults(report: HealthReport, caption: string, options?: ShowOptions): void {
  const display = resolveDisplay(options);
  display.html(healthResultsHtml(report));
  display.markdown(caption.trim());
}

/**
 * Markdown of one check's result beside its rule: what it found, the rule, what a flag is and is not.
 * @example healthReadingMarkdown(result) // "**non_finite** (warning): 1 flag. Rule: ...\n\n- **What a flag is:** ..."
 */
export function healthReadingMarkdown(r: HealthCheckResult): string {
  const found =
    r.status === "not applicable" ? `not applicable (${escapeMarkdown(r.reason ?? "")})` : `${r.flags.length} flag${r.flags.length === 1 ? "" : "s"}`;
  const evidence = r.evidence ? ` On these runs: ${escapeMarkdown(r.evidence)}.` : "";
  return [
    `**${escapeMarkdown(r.check)}** (${r.severity}): ${found}. Rule: ${escapeMarkdown(r.rule)}.${evidence}`,
    "",
    `- **What a flag is:** ${escapeMarkdown(r.is)}.`,
    `- **What it is not:** ${escapeMarkdown(r.isNot)}.`,
    `- **Measured on real failures:** ${escapeMarkdown(measuredText(r.check) ?? NOT_MEASURED)}.`,
  ].join("\n");
}

/** Display {@link healthReadingMarkdown}. */
export function showHealthReading(r: HealthCheckResult, options?: ShowOptions): void {
  resolveDisplay(options).markdown(healthReadingMarkdown(r));
}

/** The summary a notebook's outputs carry (the first one found), or null when it has none. */
export function healthSummaryFromNotebook(nb: Notebook): HealthIndexEntry[] | null {
  const pattern = new RegExp(`<!-- ${HEALTH_SUMMARY_MARKER} (\\[.*?\\]) -->`);
  for (const cell of nb.cells) {
    for (const out of cell.outputs ?? []) {
      const html = out.data?.["text/html"];
      if (html === undefined) continue;
      const m = pattern.exec(Array.isArray(html) ? html.join("") : String(html));
      if (m) return JSON.parse(m[1]) as HealthIndexEntry[];
    }
  }
  return null;
}
