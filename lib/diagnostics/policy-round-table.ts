/**
 * Policy diagnostics per round: entropy, clip fraction, gradient norm, |train - rollout log-prob|
 * and ppo_kl (split by the update's position in its rollout batch) as means over optimizer updates;
 * actor training throughput as a mean over rollout batches. One pass over updates, one over rollouts.
 */
import type { AlignedRuns, Reporter } from "../types";
import { assertMappingHolds } from "../align/issues";
import type { FrameworkProfile } from "../registry/framework-profile";
import { profileOfAligned, updatesUnobservable } from "../registry/profiles";
import { conceptMeans, resolveColumns, type ConceptColumnSpec } from "./concept-means";
import { collectNotes, type MeanResult } from "./round-mean";
import { roundIndex } from "./round-index";
import type { TableColumn } from "./table-column";

/** The mean columns of the policy table. */
export type PolicyMeanField = "entropy" | "clipfrac" | "gradNorm" | "actorTokPerS" | "logprobGap" | "ppoKlFirst" | "ppoKlLater";

/** One round (or the `all` row) of the policy table. */
export interface PolicyRoundRow extends Record<PolicyMeanField, MeanResult> {
  /** Round label, or "all". */
  round: string;
  /** Run id of the round; null for the `all` row. */
  runId: string | null;
  /** Optimizer updates of the round. */
  updates: number;
  /** Rollout batches of the round (what actorTokPerS is averaged over). */
  rollouts: number;
}

/** Policy diagnostics per round plus an `all` row over every record. */
export interface PolicyRoundTable {
  columns: TableColumn<PolicyMeanField>[];
  /** One row per round, in `aligned.rounds` order. */
  rows: PolicyRoundRow[];
  /** All records of all rounds together (not a mean of the round means). */
  all: PolicyRoundRow;
  /** Unique notes of all cells (empty rounds, missing keys, excluded values), and why a count is not observable. */
  notes: string[];
  /** Headers of the count fields: what they count for this framework ("optimizer updates", the profile's record noun). */
  countLabels: Record<"updates" | "rollouts", string>;
  /** Count fields the framework cannot observe, with why (`updates` of a step-logged framework); absent when none. */
  unobservable?: Record<string, string>;
}

/** Options of {@link policyRoundTable}. */
export interface PolicyRoundTableOptions {
  /** Build the table although the axis mapping does not hold for some run (lib/align/issues.ts). Default false: refuse. */
  allowIssues?: boolean;
  /** Receives one warning per excluded NaN / ±Infinity value, naming run, step and key. */
  reporter?: Reporter;
}

/** The policy table's columns: concept and update subset (resolved per framework, lib/diagnostics/concept-means.ts). */
export const POLICY_SPECS: readonly ConceptColumnSpec<PolicyMeanField>[] = [
  { field: "entropy", concept: "entropy", subset: "all" },
  { field: "clipfrac", concept: "clipfrac", subset: "all" },
  { field: "gradNorm", concept: "gradNorm", subset: "all" },
  { field: "actorTokPerS", concept: "actorTokPerS", subset: "all" },
  { field: "logprobGap", concept: "logprobGap", subset: "all" },
  { field: "ppoKlFirst", concept: "ppoKl", subset: "first", suffix: " (first update of batch)" },
  { field: "ppoKlLater", concept: "ppoKl", subset: "later", suffix: " (later updates of batch)" },
];

/** The policy table's columns for one framework (its keys, records and reading rules). */
export function policyColumns(profile: FrameworkProfile): TableColumn<PolicyMeanField>[] {
  return resolveColumns(POLICY_SPECS, profile);
}

/**
 * Per-round means of the policy diagnostics, plus an `all` row. The keys come from the runs'
 * framework profile; a column the framework cannot fill carries the reason (see `notes`).
 * @example const t = policyRoundTable(aligned, { reporter }); t.rows.map((r) => r.entropy.mean)
 */
export function policyRoundTable(aligned: AlignedRuns, opts: PolicyRoundTableOptions = {}): PolicyRoundTable {
  assertMappingHolds(aligned, { allowIssues: opts.allowIssues, what: "the policy round table" });
  const profile = profileOfAligned(aligned);
  const columns = resolveColumns(POLICY_SPECS, profile);
  const means = conceptMeans(aligned, columns, { reporter: opts.reporter });
  const index = roundIndex(aligned);
  const R = index.rounds.length;
  const row = (i: number): PolicyRoundRow => {
    const round = i === R ? null : index.rounds[i];
    return { round: round ?? "all", runId: round === null ? null : index.runIds[i], updates: means.updates[i], rollouts: means.rollouts[i], ...means.cells[i] };
  };
  const rows = index.rounds.map((_, i) => row(i));
  const all = row(R);
  const notes = collectNotes([...rows, all].flatMap((r) => columns.map((c) => r[c.field]))).concat(means.aliasNotes);
  const countLabels = { updates: "optimizer updates", rollouts: profile.recordNoun };
  // Zero counted updates on a step-logged framework means "not seen", not "none ran".
  const unseen = updatesUnobservable(aligned);
  if (unseen === null) return { columns, rows, all, notes, countLabels };
  if (!notes.includes(unseen)) notes.push(unseen);
  return { columns, rows, all, notes, countLabels, unobservable: { updates: unseen } };
}
