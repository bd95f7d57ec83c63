/**
 * The forest plot of one compared concept over all rounds: one row per arm, its interquartile mean
 * with the 95% bootstrap interval (compare.csv's `all` scope), each experiment's value beside it, and
 * the reference's corridor (corridor.csv: ref ± band) as a shaded band, so the reader sees at once
 * whether the intervals overlap and whether an arm left the reference's corridor.
 */
import type { Arm, Comparison } from "../compare/compare-arms";
import { ALL_ROUNDS } from "../export/summary-table";
import { baseLayout, plotValue, type Figure, type FigureShape, type Trace } from "./figure";
import { BOUNDARY_COLOR, categoryColor, withAlpha } from "./palette";

/** A row of a comparison table as a lookup by column name. */
function cellsOf(table: { columns: string[] }, row: readonly unknown[]): (name: string) => unknown {
  return (name) => row[table.columns.indexOf(name)];
}

/** The reference's value and band of a column over all rounds (corridor.csv), or null without one. */
function corridorOf(result: Comparison, column: string): { ref: number; band: number } | null {
  const table = result.corridor;
  if (table === null) return null;
  for (const row of table.rows) {
    const at = cellsOf(table, row);
    if (at("concept") === column && at("scope") === ALL_ROUNDS) return { ref: at("ref") as number, band: at("band") as number };
  }
  return null;
}

/** A number as a hover text shows it (4 significant digits; the CSVs keep every digit). */
function shown(v: number | null): string {
  return v === null ? "none" : String(Number(v.toPrecision(4)));
}

/** One arm's row: its experiments' values (small) and its IQM with the interval (large). */
function armTraces(arm: Arm, index: number, result: Comparison, column: string): Trace[] {
  const row = result.compare.rows.find((r) => {
    const at = cellsOf(result.compare, r);
    return at("arm") === arm.name && at("concept") === column && at("scope") === ALL_ROUNDS;
  });
  const at = row === undefined ? () => null : cellsOf(result.compare, row);
  const num = (name: string) => (typeof at(name) === "number" ? (at(name) as number) : null);
  const [iqm, low, high] = [num("iqm"), num("iqm_ci_low"), num("iqm_ci_high")];
  const color = categoryColor(index);
  const values = arm.experiments.map((e) => plotValue(e.cells[column]?.[ALL_ROUNDS] ?? undefined));
  return [
    {
      type: "scatter",
      mode: "markers",
      x: values,
      y: values.map(() => arm.name),
      marker: { size: 6, color: withAlpha(color, 0.45), symbol: "circle-open" },
      text: arm.experiments.map((e) => e.dir),
      hovertemplate: "%{text}: %{x}<extra></extra>",
      name: `${arm.name}: each experiment`,
    },
    {
      type: "scatter",
      mode: "markers",
      x: [iqm],
      y: [arm.name],
      marker: { size: 11, color, symbol: "diamond" },
      error_x: {
        type: "data",
        symmetric: false,
        array: [high === null || iqm === null ? 0 : high - iqm],
        arrayminus: [low === null || iqm === null ? 0 : iqm - low],
        color,
        thickness: 2,
      },
      hovertemplate: `${arm.name} IQM %{x} [${shown(low)}, ${shown(high)}]<extra></extra>`,
      name: `${arm.name}: IQM, 95% interval`,
    },
  ];
}

/**
 * The forest plot of a compared column over all rounds, one row per arm (the first on top).
 * @example compareForestFigure(arms, result, "reward_mean")
 */
export function compareForestFigure(arms: readonly Arm[], result: Comparison, column: string): Figure {
  if (!result.columns.includes(column)) throw new Error(`invalid column: ${column} (compared: ${result.columns.join(", ")})`);
  const spec = arms[0].experiments[0].columns.find((c) => c.name === column)!;
  const unit = spec.concept.unit ? ` (${spec.concept.unit})` : "";
  const layout = baseLayout(`${spec.label}, all rounds: each arm's IQM and 95% interval`, `${spec.label}${unit}`, "");
  // One row per arm, a fixed height per row, so a forest of two arms is not drawn 420 px tall.
  layout.height = 230 + 45 * arms.length;
  layout.yaxis = { ...layout.yaxis, type: "category", autorange: "reversed", automargin: true };
  layout.meta = { figure: "compare-forest", key: column };
  const data = arms.flatMap((a, i) => armTraces(a, i, result, column));
  const corridor = corridorOf(result, column);
  if (corridor !== null) {
    const shapes: FigureShape[] = [
      {
        type: "rect",
        xref: "x",
        yref: "paper",
        x0: corridor.ref - corridor.band,
        x1: corridor.ref + corridor.band,
        y0: 0,
        y1: 1,
        fillcolor: "rgba(136, 136, 136, 0.18)",
        line: { width: 0 },
        layer: "below",
      },
      { type: "line", xref: "x", yref: "paper", x0: corridor.ref, x1: corridor.ref, y0: 0, y1: 1, line: { color: BOUNDARY_COLOR, dash: "dot", width: 1.5 } },
    ];
    layout.shapes = shapes;
    // A legend entry for the band (shapes have none): an empty trace in the band's colour.
    data.push({
      type: "scatter",
      mode: "lines",
      x: [null],
      y: [null],
      line: { color: "rgba(136, 136, 136, 0.5)", width: 10 },
      name: `reference ${Number(corridor.ref.toPrecision(3))} ± ${Number(corridor.band.toPrecision(3))} (corridor)`,
    });
  }
  return { data, layout };
}
