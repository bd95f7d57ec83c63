/**
 * The comparison figure of one concept over round labels: each experiment a thin line of its round
 * cells (summary.csv), each arm's IQM a bold line with its 95% bootstrap band (compare.csv), the same
 * numbers the CSVs hold. Nothing is reduced: a comparison has one point per round and experiment.
 */
import type { Arm, Comparison } from "../compare/compare-arms";
import { ALL_ROUNDS } from "../export/summary-table";
import { baseLayout, plotValue, type Figure, type Trace } from "./figure";
import { categoryColor } from "./palette";

/** A colour with alpha (for an arm's band and its experiments' thin lines). */
function withAlpha(hex: string, alpha: number): string {
  const n = Number.parseInt(hex.slice(1), 16);
  return `rgba(${(n >> 16) & 255}, ${(n >> 8) & 255}, ${n & 255}, ${alpha})`;
}

/** compare.csv's IQM and band of an arm and column by scope. */
function iqmBand(result: Comparison, arm: string, column: string): Map<string, { iqm: number | null; low: number | null; high: number | null }> {
  const out = new Map<string, { iqm: number | null; low: number | null; high: number | null }>();
  const at = (name: string) => result.compare.columns.indexOf(name);
  for (const row of result.compare.rows) {
    if (row[at("arm")] !== arm || row[at("concept")] !== column) continue;
    const num = (name: string) => (typeof row[at(name)] === "number" ? (row[at(name)] as number) : null);
    out.set(String(row[at("scope")]), { iqm: num("iqm"), low: num("iqm_ci_low"), high: num("iqm_ci_high") });
  }
  return out;
}

/** The traces of one arm: its band (drawn first), its experiments thin, its IQM bold. */
function armTraces(arm: Arm, index: number, result: Comparison, column: string, rounds: readonly string[]): Trace[] {
  const color = categoryColor(index);
  const band = iqmBand(result, arm.name, column);
  const pick = (f: "iqm" | "low" | "high") => rounds.map((r) => plotValue(band.get(r)?.[f] ?? undefined));
  const group = `arm-${arm.name}`;
  const traces: Trace[] = [
    { type: "scatter", mode: "lines", x: [...rounds], y: pick("high"), line: { width: 0, color }, hoverinfo: "skip", showlegend: false, legendgroup: group },
    {
      type: "scatter",
      mode: "lines",
      x: [...rounds],
      y: pick("low"),
      fill: "tonexty",
      fillcolor: withAlpha(color, 0.15),
      line: { width: 0, color },
      name: `${arm.name}: IQM 95% band`,
      legendgroup: group,
      hoverinfo: "skip",
    },
  ];
  arm.experiments.forEach((e, k) => {
    traces.push({
      type: "scatter",
      mode: "lines+markers",
      x: [...rounds],
      y: rounds.map((r) => plotValue(e.cells[column]?.[r] ?? undefined)),
      line: { width: 1, color: withAlpha(color, 0.5) },
      marker: { size: 4, color: withAlpha(color, 0.5) },
      // One legend entry stands for the arm's experiments; the hover names each one.
      name: `${arm.name}: each experiment`,
      text: rounds.map(() => e.dir),
      hovertemplate: "%{text}: %{y}<extra></extra>",
      legendgroup: group,
      showlegend: k === 0,
    });
  });
  traces.push({
    type: "scatter",
    mode: "lines+markers",
    x: [...rounds],
    y: pick("iqm"),
    line: { width: 3, color },
    marker: { size: 7, color },
    name: `${arm.name}: IQM`,
    legendgroup: group,
  });
  return traces;
}

/**
 * One compared column over the round labels, for every arm.
 * @example compareRoundsFigure(arms, result, "reward_mean")
 */
export function compareRoundsFigure(arms: readonly Arm[], result: Comparison, column: string): Figure {
  if (!result.columns.includes(column)) throw new Error(`invalid column: ${column} (compared: ${result.columns.join(", ")})`);
  const rounds = result.scopes.filter((s) => s !== ALL_ROUNDS);
  const spec = arms[0].experiments[0].columns.find((c) => c.name === column)!;
  const unit = spec.concept.unit ? ` (${spec.concept.unit})` : "";
  const layout = baseLayout(column, "round", `${spec.concept.label}${unit}`);
  layout.xaxis = { ...layout.xaxis, type: "category" };
  layout.meta = { figure: "compare-rounds", key: column };
  return { data: arms.flatMap((a, i) => armTraces(a, i, result, column, rounds)), layout };
}
