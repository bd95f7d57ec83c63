/**
 * Reading an alignment's coverage and issues, for every aligner: the coverage table, which issue kinds
 * block the axis mapping, and the assertions notebooks and exports make before citing a number.
 */
import type { AlignedRuns, CoverageIssue } from "../types";

/** One plain row per run of the coverage table shown in notebooks. */
export interface CoverageTableRow {
  round: string;
  runId: string;
  historyEvents: number;
  rollouts: number;
  /** "1..20", or "-" when the run has none. */
  rolloutRange: string;
  updates: number;
  /** Display update numbers, "1..40", or "-". */
  updateRange: string;
  /** Eval rows and critic-update rows (kept out of updates), when known from alignment. */
  evalRows: number | null;
  criticRows: number | null;
  issues: number;
  ok: boolean;
}

/** Coverage per run as plain rows for display (ranges as text, issue counts). */
export function coverageTable(aligned: AlignedRuns): CoverageTableRow[] {
  const counts = new Map<string, number>();
  for (const x of aligned.issues) counts.set(x.runId, (counts.get(x.runId) ?? 0) + 1);
  return aligned.coverage.map((c) => ({
    round: c.round,
    runId: c.runId,
    historyEvents: c.historyEvents,
    rollouts: c.rollouts,
    rolloutRange: c.firstRollout === null ? "-" : `${c.firstRollout}..${c.lastRollout}`,
    updates: c.updates,
    updateRange: c.firstUpdate === null ? "-" : `${c.firstUpdate}..${c.lastUpdate}`,
    evalRows: c.rowKinds ? c.rowKinds.eval : null,
    criticRows: c.rowKinds ? c.rowKinds["critic-update"] : null,
    issues: counts.get(c.runId) ?? 0,
    ok: c.ok,
  }));
}

/**
 * Issue kinds after which the axis mapping does not hold for the run (an update or rollout whose
 * place is unknown or doubled): round tables and exports built on it are refused unless the user
 * asks for them anyway. Gaps, holes and unclassified rows are reported but leave the mapping intact.
 */
export const BLOCKING_ISSUE_KINDS: ReadonlySet<CoverageIssue["kind"]> = new Set<CoverageIssue["kind"]>([
  "missing-update",
  "duplicate-update",
  "update-without-rollout",
  "duplicate-rollout",
  "conflicting-values",
  "superseding-dominates",
]);

/** The issues after which the axis mapping does not hold (see BLOCKING_ISSUE_KINDS), in issue order. */
export function blockingIssues(aligned: Pick<AlignedRuns, "issues">): CoverageIssue[] {
  return aligned.issues.filter((x) => BLOCKING_ISSUE_KINDS.has(x.kind));
}

/** Options of {@link assertMappingHolds}. */
export interface AssertMappingHoldsOptions {
  /** Build the numbers anyway (the caller prints the issues). Default false. */
  allowIssues?: boolean;
  /** What is being refused, for the message, e.g. "export". Default "round tables". */
  what?: string;
}

/**
 * Throws one message naming the first blocking issue's run, rollout and key when the axis mapping
 * does not hold for some run (numbers people cite are not built on a guess), unless allowIssues.
 */
export function assertMappingHolds(aligned: Pick<AlignedRuns, "issues">, opts: AssertMappingHoldsOptions = {}): void {
  if (opts.allowIssues) return;
  const bad = blockingIssues(aligned);
  if (bad.length === 0) return;
  const x = bad[0];
  const where = `run ${x.runId}, round ${x.round}${x.step === null ? "" : `, ${UPDATE_STEP_KINDS.has(x.kind) ? "train/step" : "rollout"} ${x.step}`}${x.key === null ? "" : `, key ${x.key}`}`;
  const more = bad.length > 1 ? ` (and ${bad.length - 1} more blocking issue(s); see notebook 02 or aligned.issues)` : "";
  throw new Error(
    `refusing ${opts.what ?? "round tables"}: the axis mapping does not hold for ${where}: ${x.kind}: ${x.message}${more}. ` +
      `Numbers built on it could be wrong; pass allowIssues (CLI: --allow-issues) to build them anyway`,
  );
}

const UPDATE_STEP_KINDS = new Set<CoverageIssue["kind"]>(["missing-update", "duplicate-update", "update-without-rollout"]);

/** Options of {@link assertAligned}. */
export interface AssertAlignedOptions {
  /** How many issues the error lists. Default 5. */
  max?: number;
}

/**
 * Throws one error listing the first issues (run, round, step, kind) when alignment found any.
 * @example assertAligned(alignRuns(archive.runs)) // passes silently for clean data
 */
export function assertAligned(aligned: AlignedRuns, opts: AssertAlignedOptions = {}): void {
  const max = opts.max ?? 5;
  if (!Number.isInteger(max) || max < 1) throw new Error(`invalid max: ${opts.max}`);
  const issues = aligned.issues;
  if (issues.length === 0) return;
  const runs = new Set(issues.map((x) => x.runId)).size;
  const lines = issues.slice(0, max).map((x) => {
    const step = x.step === null ? "" : `, step ${x.step}`;
    const key = x.key === null ? "" : `, key ${x.key}`;
    return `  - ${x.kind} (run ${x.runId}, round ${x.round}${step}${key}): ${x.message}`;
  });
  const more = issues.length > max ? `\n  ... and ${issues.length - max} more (see aligned.issues)` : "";
  throw new Error(`alignment found ${issues.length} issue(s) in ${runs} run(s):\n${lines.join("\n")}${more}`);
}
