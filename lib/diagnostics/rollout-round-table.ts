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

/** One round (or the `all` row) of the rollout table: the means of its fields `F` (default all). */
export type RolloutRoundRow<F extends RolloutMeanField = RolloutMeanField> = Record<F, MeanResult> & {
  /** Round label, or "all". */
  round: string;
  /** Run id of the round; null for the `all` row. */
  runId: string | null;
  /** Rollout batches of the round. */
  rollouts: number;
};

/** Rollout-batch means per round plus an `all` row over every batch. */
export interface RolloutRoundTable<F extends RolloutMeanField = RolloutMeanField> {
  columns: TableColumn<F>[];
  rows: RolloutRoundRow<F>[];
  /** All rollout batches together (not a mean of the round means). */
  all: RolloutRoundRow<F>;
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

/** Options of {@link rolloutRoundTable}. */
export interface RolloutRoundTableOptions<F extends RolloutMeanField> {
  reporter?: Reporter;
  /** Build the table although the axis mapping does not hold for some run. Default false: refuse. */
  allowIssues?: boolean;
  /** The fields to average (summary.csv takes actor tokens/s from the policy table, so it is averaged once). Default all. */
  fields?: readonly F[];
}

/**
 * Per-round means over rollout batches (training steps, logged steps: the framework's records) of
 * response length, truncated fraction, rollout time and actor tokens/s, plus an `all` row.
 * @example rolloutRoundTable(aligned).rows.map((r) => r.truncated.mean)
 */
export function rolloutRoundTable<F extends RolloutMeanField = RolloutMeanField>(
  aligned: AlignedRuns,
  opts: RolloutRoundTableOptions<F> = {},
): RolloutRoundTable<F> {
  assertMappingHolds(aligned, { allowIssues: opts.allowIssues, what: "the rollout round table" });
  const profile = profileOfAligned(aligned);
  const fields = opts.fields;
  // Without `fields`, F is every field (its default).
  const specs = (
    fields === undefined ? ROLLOUT_SPECS : ROLLOUT_SPECS.filter((s) => (fields as readonly string[]).includes(s.field))
  ) as readonly ConceptColumnSpec<F>[];
  const columns = resolveColumns(specs, profile);
  const means = conceptMeans(aligned, columns, { reporter: opts.reporter });
  const index = roundIndex(aligned);
  const R = index.rounds.length;
  const row = (i: number): RolloutRoundRow<F> => {
    const round = i === R ? null : index.rounds[i];
    return { round: round ?? "all", runId: round === null ? null : index.runIds[i], rollouts: means.rollouts[i], ...means.cells[i] } as RolloutRoundRow<F>;
  };
  const rows = index.rounds.map((_, i) => row(i));
  const all = row(R);
  const notes = collectNotes([...rows, all].flatMap((r) => columns.map((c) => r[c.field]))).concat(means.aliasNotes);
  return { columns, rows, all, notes, countLabels: { rollouts: profile.recordNoun } };
}
