/**
 * The train/inference mismatch panel in a notebook (lib/diagnostics/mismatch-panel.ts): one table
 * of every logged mismatch metric (round means, slope over rounds, jumps at restarts, comparable or
 * not), one figure per metric with what it is, then what the correction did, what the framework does
 * not log, keys that only look like mismatch keys, and what logged means cannot show.
 */
import type { MismatchPanel, MismatchPanelEntry } from "../diagnostics/mismatch-panel";
import { formatSlope } from "../diagnostics/mismatch-drift";
import { mismatchFigure } from "../figures/mismatch-figure";
import { MISMATCH_QUANTITIES } from "../registry/mismatch";
import { resolveDisplay, type ShowOptions } from "./display-target";
import { escapeMarkdown } from "./metric-note";
import { showFigure } from "./show-figure";
import { showTable } from "./show-table";
import type { TableRow } from "./table-html";

/** One row per logged metric: quantity, key, comparable, each round's mean, slope over rounds, jumps. */
export function mismatchRows(panel: MismatchPanel, rounds: readonly string[]): TableRow[] {
  return panel.entries.map((e) => {
    const row: TableRow = { quantity: e.label, key: e.series.name, comparable: e.series.metric.comparable ? "yes" : "no" };
    for (const round of rounds) row[round] = e.series.rounds.find((r) => r.round === round)?.mean.mean ?? null;
    row["slope per round"] = e.drift.slope === null ? "none (< 2 rounds)" : formatSlope(e.drift.slope);
    row["jumps at restarts"] = jumpsText(e);
    return row;
  });
}

/**
 * Shows the panel; `rounds` the run set's rounds in order.
 * @example showMismatchPanel(mismatchPanel(aligned), aligned.rounds)
 */
export function showMismatchPanel(panel: MismatchPanel, rounds: readonly string[], options: ShowOptions = {}): void {
  const d = resolveDisplay(options);
  if (panel.empty !== null) {
    d.markdown(`*Train/inference mismatch: nothing to show.* ${escapeMarkdown(panel.empty)}.`);
  } else {
    showTable(
      mismatchRows(panel, rounds),
      `Train/inference mismatch of these ${panel.framework} runs: round means (over the records that logged the key), the least-squares slope of the round means against the round's position, and the jump at each restart (first batch minus the mean of the batches before). "comparable": the quantity's reference estimator, so the number may be set beside another framework's.`,
      { defaultSignificant: 4, ...options },
    );
    for (const e of panel.entries) {
      const fig = mismatchFigure(e, rounds, panel.xTitle);
      showFigure(fig, (fig.layout.title as { text: string }).text, options);
      d.markdown(entryNote(e, panel.xTitle));
    }
  }
  d.markdown(escapeMarkdown(`Correction: ${panel.correction.text}.`));
  const lines = [
    ...panel.absent.map((a) => `- ${MISMATCH_QUANTITIES[a.quantity].label}: not logged by ${panel.framework} (${a.reason})`),
    ...panel.notLogged.map((n) => `- ${n.name} (${MISMATCH_QUANTITIES[n.quantity].label}): not in these runs; logged ${n.when}`),
    ...panel.lookAlikes.map((l) => `- ${l.key} is logged but is not a mismatch key: ${l.is}`),
  ];
  if (lines.length > 0) d.markdown(lines.map(escapeMarkdownLine).join("\n"));
  d.markdown(`**Not shown:** ${escapeMarkdown(panel.notShown)}.`);
}

/** What the metric is here, whether it is comparable, and its drift inside each round. */
function entryNote(e: MismatchPanelEntry, xTitle: string): string {
  const m = e.series.metric;
  const within = e.within
    .filter((w) => w.slope !== null)
    .map((w) => `${w.round} ${formatSlope(w.slope as number)}`)
    .join(", ");
  const parts = [
    `**Is:** ${escapeMarkdown(m.is)}.`,
    `**${m.comparable ? "Comparable" : "Not comparable"} across frameworks:** ${escapeMarkdown(m.comparability)}.`,
    `**Drift:** ${escapeMarkdown(e.drift.text)}${within ? escapeMarkdown(`; inside each round, slope per ${xTitle}: ${within}`) : ""}.`,
    `**Logged:** ${escapeMarkdown(m.when)} (${escapeMarkdown(m.source)}).`,
  ];
  return parts.join("  \n");
}

/** Each restart's jump; relative to the level before only for quantities whose level is one (not signed ones, not ratios near 1). */
function jumpsText(e: MismatchPanelEntry): string {
  if (e.jumps.length === 0) return "no restart";
  const relative = "relative" in MISMATCH_QUANTITIES[e.series.quantity].resumeSpike;
  return e.jumps
    .map(
      (j) =>
        `${j.resume.round} ${j.jump === null ? "none" : formatSlope(j.jump)}${relative && j.relative !== null ? ` (${formatSlope(j.relative * 100)}%)` : ""}`,
    )
    .join("; ");
}

/** A list line, its text escaped but its leading "- " kept. */
function escapeMarkdownLine(line: string): string {
  return `- ${escapeMarkdown(line.slice(2))}`;
}
