/**
 * Round tables of the diagnostics (policy, rollout) as plain rows and as danfojs DataFrames, with the
 * columns named after the schema labels and the `all` row last. Cells hold the mean, null when no value
 * was logged (never 0), or NaN when only non-finite values were logged; what each mean is over comes
 * from the table's columns.
 */
import { DataFrame } from "danfojs-node";
import type { MeanResult } from "../diagnostics/round-mean";
import type { TableColumn } from "../diagnostics/table-column";

/** A round table as the diagnostics return it (policyRoundTable, rolloutRoundTable). */
export interface RoundTableLike<F extends string> {
  columns: readonly TableColumn<F>[];
  rows: readonly ({ round: string; runId: string | null } & Record<F, MeanResult>)[];
  all: { round: string; runId: string | null } & Record<F, MeanResult>;
  /** Headers of count columns by field (e.g. rollouts: "logged steps", the profile's record noun); absent: the field name. */
  countLabels?: Readonly<Record<string, string>>;
  /** Count columns the framework cannot observe (e.g. "updates" of a step-logged framework), with why: shown as a dash, never 0. */
  unobservable?: Readonly<Record<string, string>>;
}

/** One displayed row: round, run, the count columns asked for, then one cell per mean column. */
export type RoundTableRow = Record<string, string | number | null>;

/** A mean's cell: the mean; NaN when the only logged values were non-finite; null when nothing was logged. */
function meanCell(m: MeanResult): number | null {
  if (m.mean !== null) return m.mean;
  // NaN is kept for what the run did log (as in the CSVs), so it never stands for "not logged".
  return m.nonFinite > 0 ? NaN : null;
}

/**
 * Plain rows of a round table: `round`, `run`, the `counts` fields (e.g. "updates", headed by the
 * table's count label; null when the framework cannot observe it), then each
 * column's label with the mean (null when the round has no value, NaN when it logged only non-finite ones).
 * @example roundTableRows(policyRoundTable(aligned), ["updates", "rollouts"])
 */
export function roundTableRows<F extends string>(table: RoundTableLike<F>, counts: readonly string[] = []): RoundTableRow[] {
  const out: RoundTableRow[] = [];
  for (const row of [...table.rows, table.all]) {
    const r: RoundTableRow = { round: row.round, run: row.runId ?? "" };
    for (const c of counts) {
      const v = (row as unknown as Record<string, unknown>)[c];
      if (typeof v !== "number") throw new Error(`invalid count column: ${c}`);
      r[table.countLabels?.[c] ?? c] = table.unobservable?.[c] === undefined ? v : null;
    }
    for (const col of table.columns) r[col.label] = meanCell(row[col.field]);
    out.push(r);
  }
  return out;
}

/**
 * The round table as a danfojs DataFrame (one row per round, then `all`). A missing mean stays null in
 * the frame, which the HTML table shows as a dash; NaN is only a logged non-finite value.
 */
export function roundTableFrame<F extends string>(table: RoundTableLike<F>, counts: readonly string[] = []): DataFrame {
  const rows = roundTableRows(table, counts);
  const columns = Object.keys(rows[0] ?? { round: "", run: "" });
  const data: Record<string, (string | number | null)[]> = {};
  for (const c of columns) data[c] = rows.map((r) => r[c]);
  return new DataFrame(data, { columns });
}
