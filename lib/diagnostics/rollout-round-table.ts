/**
 * Response length and throughput per round: means over rollout batches of the mean response
 * length, truncated fraction, rollout wall time and actor training tokens/s. One pass over rollouts.
 */
import type { AlignedRuns, Reporter } from "../types";
import { assertMappingHolds } from "../align/issues";
import type { FrameworkProfile } from "../registry/framework-profile";
import { profileOfAligned } from "../registry/profiles";
import { conceptMeans, resolveColumns, type ConceptColumnSpec } from "./concept-means";
import { collectNotes, type MeanResult } from "./round-mean";
import { roundIndex } from "./round-index";
import type { TableColumn } from "./table-column";

/** The mean columns of the rollout table. */
export type RolloutMeanField = "responseLen" | "truncated" | "rolloutTime" | "actorTokPerS" | "reward";

/** One round (or the `all` row) of the rollout table. */
export interface RolloutRoundRow extends Record<RolloutMeanField, MeanResult> {
  /** Round label, or "all". */
  round: string;
  /** Run id of the round; null for the `all` row. */
  runId: string | null;
  /** Rollout batches of the round. */
  rollouts: number;
}

/** Rollout-batch means per round plus an `all` row over every batch. */
export interface RolloutRoundTable {
  columns: TableColumn<RolloutMeanField>[];
  rows: RolloutRoundRow[];
  /** All rollout batches together (not a mean of the round means). */
  all: RolloutRoundRow;
  notes: string[];
  /** Header of the count field: the profile's record noun ("rollout batches", "logged steps"). */
  countLabels: Record<"rollouts", string>;
}

/** The rollout table's columns: one concept each, per record (resolved per framework, lib/diagnostics/concept-means.ts). */
export const ROLLOUT_SPECS: readonly ConceptColumnSpec<RolloutMeanField>[] = [
  { field: "responseLen", concept: "responseLen", subset: "all" },
  { field: "truncated", concept: "truncated", subset: "all" },
  { field: "rolloutTime", concept: "rolloutTime", subset: "all" },
  { field: "actorTokPerS", concept: "actorTokPerS", subset: "all" },
  { field: "reward", concept: "reward", subset: "all" },
];

/** The rollout table's columns for one framework. */
export function rolloutColumns(profile: FrameworkProfile): TableColumn<RolloutMeanField>[] {
  return resolveColumns(ROLLOUT_SPECS, profile);
}

/**
 * Per-round means over rollout batches (training steps, logged steps: the framework's records) of
 * response length, truncated fraction, rollout time and actor tokens/s, plus an `all` row.
 * @example rolloutRoundTable(aligned).rows.map((r) => r.truncated.mean)
 */
export function rolloutRoundTable(aligned: AlignedRuns, opts: { reporter?: Reporter; allowIssues?: boolean } = {}): RolloutRoundTable {
  assertMappingHolds(aligned, { allowIssues: opts.allowIssues, what: "the rollout round table" });
  const profile = profileOfAligned(aligned);
  const columns = resolveColumns(ROLLOUT_SPECS, profile);
  const means = conceptMeans(aligned, columns, { reporter: opts.reporter });
  const index = roundIndex(aligned);
  const R = index.rounds.length;
  const row = (i: number): RolloutRoundRow => {
    const round = i === R ? null : index.rounds[i];
    return { round: round ?? "all", runId: round === null ? null : index.runIds[i], rollouts: means.rollouts[i], ...means.cells[i] };
  };
  const rows = index.rounds.map((_, i) => row(i));
  const all = row(R);
  const notes = collectNotes([...rows, all].flatMap((r) => columns.map((c) => r[c.field]))).concat(means.aliasNotes);
  return { columns, rows, all, notes, countLabels: { rollouts: profile.recordNoun } };
}
