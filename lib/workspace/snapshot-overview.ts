/** The snapshot chain of a followed archive as table rows for notebook 01 (docs/follow.md). */
import type { ChainReport } from "../archive/snapshot-chain";

/** One row per snapshot: when it was taken, rows it added (all runs, then per run), its lineage and why that lineage began. */
export interface SnapshotOverviewRow {
  snapshot: number;
  taken: string;
  "rows added": number;
  "per run": string;
  lineage: number;
  "lineage began because": string;
}

/**
 * Rows of `report.links` in sequence order; snapshot 0 (a one-shot fetch the follow started from)
 * says so instead of a time.
 * @example showTable(snapshotOverview(await verifySnapshotChain(dir)), "Snapshot chain")
 */
export function snapshotOverview(report: ChainReport): SnapshotOverviewRow[] {
  return report.links.map((l) => {
    const added = Object.entries(l.rowsAdded);
    return {
      snapshot: l.sequence,
      taken: l.takenAt ?? "(a one-shot fetch)",
      "rows added": added.reduce((sum, [, n]) => sum + n, 0),
      "per run": added.map(([run, n]) => `${run} ${n >= 0 ? "+" : ""}${n}`).join(", "),
      lineage: l.lineage,
      "lineage began because": l.lineageReason ?? "",
    };
  });
}
