/**
 * The export's invariant: a concept's summary cell is filled wherever its key is in the frozen
 * history. For every mean column over all records (not a subset by update position), a round whose
 * live frozen rows (not superseded) hold the column's key (or an older name of it) must have a mean;
 * so must the `all` row. An empty cell there means the records missed rows holding the metric (rows
 * classified as something else, a trait of the framework the profile does not know), and an export
 * that shares it would read as "not logged". Refused with the key, run, rows and the means' note.
 */
import type { AlignedRuns } from "../types";
import type { ExportTable } from "./csv-text";
import { ALL_ROUNDS, type SummaryColumn } from "./summary-table";

/** One empty cell whose key the frozen history holds. */
export interface UnfilledCell {
  round: string;
  column: string;
  key: string;
  message: string;
}

/**
 * The cells of `summary` left empty although live frozen rows hold their key, with a message each;
 * empty when the alignment has no key counts (a hand-made alignment) or every such cell is filled.
 */
export function unfilledCells(
  summary: ExportTable,
  columns: readonly SummaryColumn[],
  aligned: Pick<AlignedRuns, "keyRows">,
  notes: readonly string[],
): UnfilledCell[] {
  const keyRows = aligned.keyRows ?? [];
  if (keyRows.length === 0) return [];
  const out: UnfilledCell[] = [];
  columns.forEach((col, c) => {
    if (col.kind !== "mean" || col.column.metric === null || (col.column.subset ?? "all") !== "all") return;
    const keys = [col.column.metric.key, ...(col.column.metric.aliases ?? []).map((a) => a.key)];
    for (const row of summary.rows) {
      if (row[c] !== null) continue;
      const round = String(row[0]);
      const held = keyRows.filter((k) => keys.includes(k.key) && (round === ALL_ROUNDS || k.round === round) && k.rows > k.superseded);
      if (held.length === 0) continue;
      const where = held
        .map(
          (k) =>
            `run ${k.runId} (round ${k.round}): ${k.key} in ${k.rows - k.superseded} live frozen row(s)${k.superseded > 0 ? ` (${k.superseded} more superseded)` : ""}`,
        )
        .join("; ");
      const inRound = (n: string) => (round === ALL_ROUNDS ? !/\bround \S+[: ]/.test(n) || n.includes("all rounds") : n.includes(`round ${round}`));
      const aboutKey = notes.filter((n) => inRound(n) && keys.some((k) => n.includes(k)));
      const why = aboutKey.length > 0 ? aboutKey : notes.filter(inRound);
      out.push({
        round,
        column: col.name,
        key: held[0].key,
        message:
          `summary cell ${col.name} of round ${round} is empty, but ${where}; no ${col.column.over} record kept it` +
          `${why.length > 0 ? ` (${why.join("; ")})` : ""}: the records miss rows that hold the metric (rows classified as something else, or a framework trait the profile does not know)`,
      });
    }
  });
  return out;
}
