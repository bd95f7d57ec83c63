/** When each health flag first appeared while its runs were followed, as table rows for notebook 06 (docs/follow.md). */
import { flagId, type PrintedFlag } from "../follow/new-flags";
import type { HealthReport } from "../health/run-health-checks";

/** One row per flag: where it is now, and the snapshot whose analysis first printed it. */
export interface FlagFirstSeenRow {
  check: string;
  run: string;
  key: string;
  /** The range now (unit update or rollout), or "(not flagged now)". */
  now: string;
  /** The range when first printed. */
  "when first printed": string;
  "first seen in snapshot": number | null;
  "taken at": string;
}

/**
 * The report's flags with the snapshot that first printed each (null: no follow printed it, e.g. it
 * appeared after the follow ended), then the printed flags the report no longer holds (a threshold
 * computed over the runs, such as a median, moved as rows arrived).
 * @example showTable(flagsFirstSeen(report, await readFlagsPrinted(params.archiveDir)), "When each flag first appeared")
 */
export function flagsFirstSeen(report: HealthReport, printed: readonly PrintedFlag[]): FlagFirstSeenRow[] {
  const byId = new Map(printed.map((p) => [flagId(p), p]));
  const current = new Set<string>();
  const rows: FlagFirstSeenRow[] = report.flags.map((f) => {
    const id = flagId(f);
    current.add(id);
    return row(f, `${f.unit} ${f.first}..${f.last}`, byId.get(id) ?? null);
  });
  for (const p of printed) if (!current.has(flagId(p))) rows.push(row(p, "(not flagged now)", p));
  return rows;
}

function row(f: Pick<PrintedFlag, "check" | "runId" | "key">, now: string, p: PrintedFlag | null): FlagFirstSeenRow {
  return {
    check: f.check,
    run: f.runId,
    key: f.key,
    now,
    "when first printed": p === null ? "" : `${p.unit} ${p.first}..${p.last}`,
    "first seen in snapshot": p === null ? null : p.snapshot,
    "taken at": p === null ? "(not printed by a follow)" : (p.takenAt ?? ""),
  };
}
