/**
 * What notebook 07 shows of a comparison: the statistics of one scope as table rows, the refusals,
 * the corridor values outside their band, and the reading rule under each figure (registry texts only).
 */
import type { Arm, Comparison } from "../compare/compare-arms";
import type { ExportCell } from "../export/export-cell";
import type { ExportTable } from "../export/csv-text";
import { resolveDisplay, type ShowOptions } from "./display-target";
import { escapeMarkdown, metricNoteMarkdown } from "./metric-note";

/** Rows of a comparison table whose `scope` column equals `scope`, as objects by column name. */
export function scopeRows(table: ExportTable, scope: string): Record<string, ExportCell>[] {
  const at = table.columns.indexOf("scope");
  return table.rows.filter((r) => r[at] === scope).map((r) => Object.fromEntries(table.columns.map((c, i) => [c, r[i]])));
}

/** Corridor rows whose value is outside its band, as objects by column name. */
export function outsideRows(table: ExportTable): Record<string, ExportCell>[] {
  const at = table.columns.indexOf("outside");
  return table.rows.filter((r) => r[at] === "true").map((r) => Object.fromEntries(table.columns.map((c, i) => [c, r[i]])));
}

/** Every refusal of a comparison: concept, the two sides, why. */
export function refusalRows(result: Comparison): { concept: string; between: string; against: string; why: string }[] {
  return [...result.refused.map((r) => ({ r, against: "the arms" })), ...result.refusedAgainstReference.map((r) => ({ r, against: "the reference" }))].map(
    ({ r, against }) => ({
      concept: r.concept,
      between: `${r.sides[0]} / ${r.sides[1]}`,
      against,
      why: r.reason,
    }),
  );
}

/** The reading rule of a compared column as markdown: what the number is and is not, which way is better, how the figure is drawn. */
export function compareReadingMarkdown(arms: readonly Arm[], column: string): string {
  const spec = arms[0].experiments[0].columns.find((c) => c.name === column);
  if (spec === undefined || spec.metric === null) throw new Error(`invalid column: ${column} (not logged by ${arms[0].experiments[0].dir})`);
  const direction =
    spec.concept.direction === "neither"
      ? "a diagnostic: differences are shown, never called an improvement"
      : `${spec.concept.direction} is better: improvement.csv gives P(${spec.concept.direction === "higher" ? "X > Y" : "X < Y"}) with ties counted 1/2`;
  const rule = spec.concept.compareRule ? `\n- **Across runs:** ${escapeMarkdown(spec.concept.compareRule)}.` : "";
  const over = {
    all: undefined,
    first: "the first update of each rollout batch (position 0)",
    later: "the later updates of each rollout batch (position >= 1)",
  }[spec.subset];
  return [
    metricNoteMarkdown(spec.metric, over),
    `- **Direction:** ${direction}.${rule}`,
    `- **Drawn:** each experiment's round cells of summary.csv (thin), each arm's interquartile mean over its experiments (bold; with fewer than 4 experiments nothing is trimmed and it is the mean) and its 95% percentile bootstrap band over experiments (with 3 experiments a band has few distinct resamples and is optimistic).`,
  ].join("\n");
}

/** Display the reading rule of a compared column under its figure. */
export function showCompareReading(arms: readonly Arm[], column: string, options?: ShowOptions): void {
  resolveDisplay(options).markdown(compareReadingMarkdown(arms, column));
}
