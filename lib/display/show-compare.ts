/**
 * What notebook 07 shows of a comparison: the statistics of one scope as table rows, the refusals,
 * the corridor values outside their band, and the reading rule under each figure (registry texts only).
 */
import type { Arm, Comparison } from "../compare/compare-arms";
import type { ExportCell } from "../export/export-cell";
import type { ExportTable } from "../export/csv-text";
import { resolveDisplay, type ShowOptions } from "./display-target";
import { escapeMarkdown, metricNoteMarkdown } from "./metric-note";

/** Significant digits of the comparison's tables on a page; compare.csv and improvement.csv keep every digit. */
export const COMPARE_SIGNIFICANT = 3;

/** A number to the page's significant digits (integers whole), null as null. */
function rounded(v: ExportCell): number | null {
  if (typeof v !== "number") return null;
  return Number.isInteger(v) || !Number.isFinite(v) ? v : Number(v.toPrecision(COMPARE_SIGNIFICANT));
}

/** "[low, high]" rounded, or null when either end is missing. */
function interval(low: ExportCell, high: ExportCell): string | null {
  const [l, h] = [rounded(low), rounded(high)];
  return l === null || h === null ? null : `[${l}, ${h}]`;
}

/** Rows of a comparison table in one scope, each as a lookup by column name. */
function rowsIn(table: ExportTable, scope: string): ((name: string) => ExportCell)[] {
  const at = (r: ExportCell[]) => (name: string) => r[table.columns.indexOf(name)];
  return table.rows.map(at).filter((cell) => cell("scope") === scope);
}

/** What a page calls a compared column: its registry label (the CSV column name stays in the CSVs). */
export function comparedLabel(arms: readonly Arm[], column: ExportCell): string {
  return arms[0].experiments[0].columns.find((c) => c.name === column)?.label ?? String(column);
}

/**
 * compare.csv's rows of one scope as a page shows them: the concept by its label, n, mean and IQM
 * with their intervals, rounded to {@link COMPARE_SIGNIFICANT} digits (each experiment's value is in compare.csv).
 */
export function armRows(arms: readonly Arm[], result: Comparison, scope: string): Record<string, string | number | null>[] {
  return rowsIn(result.compare, scope).map((c) => ({
    concept: comparedLabel(arms, c("concept")),
    arm: c("arm"),
    n: c("n"),
    mean: rounded(c("mean")),
    "mean 95% interval": interval(c("mean_ci_low"), c("mean_ci_high")),
    IQM: rounded(c("iqm")),
    "IQM 95% interval": interval(c("iqm_ci_low"), c("iqm_ci_high")),
  }));
}

/** improvement.csv's rows of one scope as a page shows them: Welch's p beside its Holm adjustment, rounded. */
export function pairRows(arms: readonly Arm[], result: Comparison, scope: string): Record<string, string | number | null>[] {
  return rowsIn(result.improvement, scope).map((c) => ({
    concept: comparedLabel(arms, c("concept")),
    "X vs Y": `${c("arm_x")} vs ${c("arm_y")}`,
    "P(X better)": rounded(c("p_improve")),
    "P 95% interval": interval(c("p_ci_low"), c("p_ci_high")),
    "mean X - Y": rounded(c("mean_diff")),
    "Welch p": rounded(c("welch_p")),
    "Holm p": rounded(c("welch_p_holm")),
    "experiments needed": c("n_needed"),
  }));
}

/**
 * The multiple-comparison caveat in numbers: how many Welch tests the comparison ran, how many fall
 * below 0.05 raw and how many after Holm's adjustment over all of them.
 */
export function multipleComparisonsMarkdown(result: Comparison): string {
  const col = (name: string) =>
    result.improvement.rows.map((r) => r[result.improvement.columns.indexOf(name)]).filter((v): v is number => typeof v === "number");
  const raw = col("welch_p");
  const below = (ps: number[]) => ps.filter((p) => p < 0.05).length;
  return (
    `**${raw.length} Welch tests** (every pair of arms, concept and scope): ${below(raw)} below 0.05 as computed, ` +
    `${below(col("welch_p_holm"))} after Holm's adjustment over all ${raw.length} ("Holm p"). ` +
    `Among this many tests some raw p-values fall below 0.05 by chance alone (${(raw.length * 0.05).toFixed(1)} expected on pure noise, more or less: the tests are not independent); ` +
    "read a difference from the Holm column, and P(X better) = 1 with an interval [1, 1] from a few seeds as a statement about those seeds only."
  );
}

/** Display the multiple-comparison caveat ({@link multipleComparisonsMarkdown}) under the table of pairs. */
export function showMultipleComparisons(result: Comparison, options?: ShowOptions): void {
  resolveDisplay(options).markdown(multipleComparisonsMarkdown(result));
}

/** Corridor rows whose value is outside its band, as objects by column name (values rounded, the concept by its label). */
export function outsideRows(arms: readonly Arm[], table: ExportTable): Record<string, ExportCell>[] {
  const at = table.columns.indexOf("outside");
  return table.rows
    .filter((r) => r[at] === "true")
    .map((r) => {
      const shown = table.columns.map((c, i): [string, ExportCell] => [
        c,
        c === "concept" ? comparedLabel(arms, r[i]) : typeof r[i] === "number" ? rounded(r[i]) : r[i],
      ]);
      return Object.fromEntries(shown.filter(([c]) => c !== "outside"));
    });
}

/** Every refusal of a comparison, once per concept: its label, against what, and the reason naming each side. */
export function refusalRows(arms: readonly Arm[], result: Comparison): { concept: string; against: string; why: string }[] {
  return [...result.refused.map((r) => ({ r, against: "the arms" })), ...result.refusedAgainstReference.map((r) => ({ r, against: "the reference" }))].map(
    ({ r, against }) => ({ concept: comparedLabel(arms, r.concept), against, why: r.reason }),
  );
}

/** Why nothing was compared (every concept refused), as the first thing a page says. */
export function nothingComparedText(result: Comparison): string {
  return `nothing compared, nothing written: every one of the ${result.refused.length} concepts was refused (the reasons below)`;
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
