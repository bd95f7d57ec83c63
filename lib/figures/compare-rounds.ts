/**
 * The comparison figure of one concept over round labels, or over the bins of another axis
 * (lib/compare/compare-axis.ts): each experiment a thin line of its cells, each arm's IQM a bold line
 * with its 95% bootstrap band (compare.csv), the same numbers the CSVs hold. Round labels are few and
 * drawn as they are; bins are drawn at their centres, an empty bin as a gap (never bridged), and
 * above the usual count a trace is reduced as every long series is (reduce-points.ts).
 */
import type { Arm, Comparison } from "../compare/compare-arms";
import { AXIS_MEANING, binLow } from "../compare/compare-axis";
import { ALL_ROUNDS } from "../export/summary-table";
import { baseLayout, plotValue, type Figure, type Trace } from "./figure";
import { categoryColor, withAlpha } from "./palette";
import { addReduction, noteReduction, pickAt, reducedIndices, type Reduction } from "./reduce-points";

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

/** Where the scopes are drawn: round labels as they are, or bin centres; and the points each trace keeps (null: all). */
interface XPlacement {
  x: (string | number)[];
  keep: number[] | null;
}

/** The traces of one arm: its band (drawn first), its experiments thin, its IQM bold. */
function armTraces(
  arm: Arm,
  index: number,
  result: Comparison,
  column: string,
  scopes: readonly string[],
  at: (ys: (number | null)[][]) => XPlacement,
): Trace[] {
  const color = categoryColor(index);
  const band = iqmBand(result, arm.name, column);
  const pick = (f: "iqm" | "low" | "high") => scopes.map((r) => plotValue(band.get(r)?.[f] ?? undefined));
  const experimentYs = arm.experiments.map((e) => scopes.map((r) => plotValue(e.cells[column]?.[r] ?? undefined)));
  const [high, low, iqm] = [pick("high"), pick("low"), pick("iqm")];
  const { x: xs, keep } = at([high, low, iqm, ...experimentYs]);
  const x = pickAt(xs, keep);
  const y = (ys: (number | null)[]) => pickAt(ys, keep);
  const labels = pickAt([...scopes], keep);
  const group = `arm-${arm.name}`;
  const traces: Trace[] = [
    { type: "scatter", mode: "lines", x, y: y(high), line: { width: 0, color }, hoverinfo: "skip", showlegend: false, legendgroup: group },
    {
      type: "scatter",
      mode: "lines",
      x,
      y: y(low),
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
      x,
      y: y(experimentYs[k]),
      line: { width: 1, color: withAlpha(color, 0.5) },
      marker: { size: 4, color: withAlpha(color, 0.5) },
      // One legend entry stands for the arm's experiments; the hover names each one.
      name: `${arm.name}: each experiment`,
      text: labels.map((l) => (keep === null && typeof x[0] === "string" ? e.dir : `${e.dir} (${l})`)),
      hovertemplate: "%{text}: %{y}<extra></extra>",
      legendgroup: group,
      showlegend: k === 0,
    });
  });
  traces.push({
    type: "scatter",
    mode: "lines+markers",
    x,
    y: y(iqm),
    line: { width: 3, color },
    marker: { size: 7, color },
    name: `${arm.name}: IQM`,
    legendgroup: group,
  });
  return traces;
}

/**
 * One compared column over the round labels (or the comparison's bins), for every arm.
 * @example compareRoundsFigure(arms, result, "reward_mean")
 */
export function compareRoundsFigure(arms: readonly Arm[], result: Comparison, column: string): Figure {
  if (!result.columns.includes(column)) throw new Error(`invalid column: ${column} (compared: ${result.columns.join(", ")})`);
  const scopes = result.scopes.filter((s) => s !== ALL_ROUNDS);
  const spec = arms[0].experiments[0].columns.find((c) => c.name === column)!;
  const unit = spec.concept.unit ? ` (${spec.concept.unit})` : "";
  const { axis } = result;
  if (axis.name === "round") {
    const layout = baseLayout(spec.label, "round", `${spec.label}${unit}`);
    layout.xaxis = { ...layout.xaxis, type: "category" };
    layout.meta = { figure: "compare-rounds", key: column };
    return { data: arms.flatMap((a, i) => armTraces(a, i, result, column, scopes, () => ({ x: [...scopes], keep: null }))), layout };
  }
  const width = axis.width!;
  const centres = scopes.map((s) => binLow(s) + width / 2);
  let reduced: Reduction | undefined;
  const at = (ys: (number | null)[][]): XPlacement => {
    const keep = reducedIndices(centres, ys);
    if (keep !== null) reduced = addReduction(reduced, centres.length * ys.length, keep.length * ys.length);
    return { x: centres, keep };
  };
  const data = arms.flatMap((a, i) => armTraces(a, i, result, column, scopes, at));
  const layout = baseLayout(
    spec.label,
    `${axis.name} (${AXIS_MEANING[axis.name].unit}), bins of ${width} at their centres; a gap = no record in the bin`,
    `${spec.label}${unit}`,
  );
  layout.meta = { figure: "compare-axis", key: column };
  noteReduction(layout, reduced);
  return { data, layout };
}
