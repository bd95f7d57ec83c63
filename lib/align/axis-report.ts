/**
 * Plain rows for notebook 02 and the report: how each run's step keys were read (N, the
 * --wandb-always-use-train-step reading and its evidence, the display formula), what was superseded,
 * and what alignment handled on its way (notes). Pure; one row per run or per superseded group.
 */
import type { AlignedRuns } from "../types";

/** One row of the per-run axis table. */
export interface RunAxisRow {
  round: string;
  runId: string;
  n: number;
  /** How rollout/step was read: "rollout_id", "rollout_id * N (--wandb-always-use-train-step)" or "either (same ids)". */
  rolloutStep: string;
  firstRollout: number | null;
  formula: string;
  evidence: string;
}

/** The per-run axis table: N, the rollout/step reading and its evidence, the display formula. */
export function runAxesTable(aligned: AlignedRuns): RunAxisRow[] {
  return aligned.mapping.runs.map((a) => ({
    round: a.round,
    runId: a.runId,
    n: a.n,
    rolloutStep:
      a.alwaysUseTrainStep === true
        ? `rollout_id * ${a.n} (--wandb-always-use-train-step)`
        : a.alwaysUseTrainStep === false
          ? "rollout_id"
          : "either (same ids)",
    firstRollout: a.firstRollout,
    formula: a.formula,
    evidence: a.flagEvidence,
  }));
}

/** One row per superseded group: which run's rows a later logging replaced, and by whom. */
export interface SupersededRow {
  round: string;
  runId: string;
  byRound: string;
  byRunId: string;
  rollouts: string;
  updates: string;
  evals: number;
  rows: number;
}

/** Superseded groups as plain rows (id lists as ranges). */
export function supersededRows(aligned: AlignedRuns): SupersededRow[] {
  return aligned.superseded.map((s) => ({
    round: s.round,
    runId: s.runId,
    byRound: s.byRound,
    byRunId: s.byRunId,
    rollouts: idRanges(s.rollouts),
    updates: idRanges(s.updates),
    evals: s.evals,
    rows: s.rows,
  }));
}

/** "3..5, 9" for sorted integers; "-" when empty. */
export function idRanges(sorted: readonly number[]): string {
  if (sorted.length === 0) return "-";
  const parts: string[] = [];
  let a = 0;
  for (let i = 1; i <= sorted.length; i++) {
    if (i < sorted.length && sorted[i] === sorted[i - 1] + 1) continue;
    parts.push(a === i - 1 ? `${sorted[a]}` : `${sorted[a]}..${sorted[i - 1]}`);
    a = i;
  }
  return parts.join(", ");
}

/** "rollouts 3..5, 9" for sorted integers, `what` the singular noun. */
export function namedRanges(sorted: readonly number[], what: string): string {
  return `${what}${sorted.length === 1 ? "" : "s"} ${idRanges(sorted)}`;
}

/** One sentence on whether the numbers of the later notebooks can be cited. */
export function mappingVerdict(aligned: AlignedRuns, blocking: number): string {
  const sup = aligned.superseded.reduce((s, x) => s + x.rows, 0);
  const conv = aligned.mapping.runs.filter((a) => a.alwaysUseTrainStep === true).length;
  const ns = [...new Set(aligned.mapping.runs.map((a) => a.n))];
  const parts = [
    `N = ${ns.join(" / ")}${ns.length > 1 ? " (per run)" : ""}`,
    `${conv} run(s) read with --wandb-always-use-train-step`,
    `${sup} superseded row(s) excluded`,
    `${aligned.issues.length} issue(s), ${blocking} of them blocking`,
  ];
  return blocking === 0
    ? `axis mapping holds for every run: ${parts.join("; ")}`
    : `axis mapping does NOT hold: ${parts.join("; ")}; round tables and exports refuse until this is resolved (or allowIssues is passed)`;
}
