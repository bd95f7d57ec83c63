/**
 * Superseding that takes more than it keeps is refused: when superseding drops more than half of a
 * run's frozen rows, or every row of the run holding a key the profile maps to a concept, the
 * alignment gets a blocking issue (`superseding-dominates`) with the evidence, so no table or export
 * is built on it unless asked (allowIssues). A restart re-logs what came after its checkpoint; a run
 * losing most of itself usually means rows were read as re-logged steps that are not (TRL's profiling
 * rows, stamped by W&B's step_sync with the last training step, did exactly that).
 */
import type { AlignedRuns, CoverageIssue, KeyRows } from "../types";

/** The blocking issues of superseding that dominates a run, in run order. */
export function supersedingIssues(aligned: Pick<AlignedRuns, "runs" | "superseded">, keyRows: readonly KeyRows[]): CoverageIssue[] {
  const out: CoverageIssue[] = [];
  for (const run of aligned.runs) {
    const mine = aligned.superseded.filter((s) => s.runId === run.runId);
    if (mine.length === 0) continue;
    const gone = mine.reduce((s, x) => s + x.rows, 0);
    const evidence = mine.map((s) => s.message).join("; ");
    const first = mine.flatMap((s) => s.rollouts)[0] ?? null;
    const where = `run ${run.runId} (round ${run.round})`;
    const hint =
      "a restart re-logs only what came after its checkpoint; check which rows were taken as re-logged (notebook 02, superseded.csv) and pass allowIssues (CLI: --allow-issues) only if they were";
    if (2 * gone > run.historyEvents) {
      out.push({
        runId: run.runId,
        round: run.round,
        kind: "superseding-dominates",
        step: first,
        key: null,
        message: `${where}: superseding would drop ${gone} of its ${run.historyEvents} frozen rows (more than half): ${evidence}; ${hint}`,
      });
    }
    for (const k of keyRows) {
      if (k.runId !== run.runId || k.superseded < k.rows) continue;
      out.push({
        runId: run.runId,
        round: run.round,
        kind: "superseding-dominates",
        step: first,
        key: k.key,
        message: `${where}: superseding would drop every one of the ${k.rows} frozen rows holding ${k.key}: ${evidence}; ${hint}`,
      });
    }
  }
  return out;
}
