/**
 * summary.csv: one row per round in run order, then an `all` row over every record of every round
 * (not a mean of round means). Every number comes from lib/diagnostics; nothing is recomputed here.
 */
import type { AlignedRuns, Reporter } from "../types";
import type { MetricSpec } from "../registry/metric-spec";
import { metricOf, type FrameworkProfile } from "../registry/framework-profile";
import { profileOfAligned } from "../registry/profiles";
import {
  policyColumns,
  rolloutColumns,
  policyRoundTable,
  rolloutRoundTable,
  zeroGradNormUpdates,
  type MeanResult,
  type PolicyMeanField,
  type PolicyRoundRow,
  type RolloutRoundRow,
  type TableColumn,
} from "../diagnostics/index";
import type { ExportCell } from "./export-cell";
import type { ExportTable } from "./csv-text";

/** File name of the summary table. */
export const SUMMARY_FILE = "summary.csv";

/** Round label of the row over all rounds. */
export const ALL_ROUNDS = "all";

/** The rollout table's fields summary.csv reads (actor tokens/s comes from the policy table: averaged once). */
const SUMMARY_ROLLOUT_FIELDS = ["responseLen", "truncated", "rolloutTime", "reward"] as const;

/** A rollout table field of summary.csv. */
type SummaryRolloutField = (typeof SUMMARY_ROLLOUT_FIELDS)[number];

/** What one summary row's cells are computed from: its round's (or every round's) rows and runs. */
export interface SummaryRowSource {
  policy: PolicyRoundRow;
  rollout: RolloutRoundRow<SummaryRolloutField>;
  /** Display update numbers with an exact-zero gradient norm. */
  zeroUpdates: number[];
  /** The round's runs (every run on the `all` row). */
  runs: AlignedRuns["runs"];
  isAll: boolean;
}

/** A summary column that is a per-round mean, read from a diagnostics table. */
export interface SummaryMeanColumn {
  name: string;
  kind: "mean";
  /** Which diagnostics table and field the mean comes from. */
  source: { table: "policy"; field: PolicyMeanField } | { table: "rollout"; field: SummaryRolloutField };
  /** The diagnostics column: schema entry and what the mean is taken over. */
  column: TableColumn;
}

/** A summary column that is not a mean (labels, counts, update list), with its meaning in words. */
export interface SummaryPlainColumn {
  name: string;
  kind: "label" | "count" | "list";
  /** Schema entry the column is about, if any. */
  metric?: MetricSpec;
  description: string;
  /** The column's cell of one summary row. */
  cell(row: SummaryRowSource): ExportCell;
}

/** One column of summary.csv. */
export type SummaryColumn = SummaryMeanColumn | SummaryPlainColumn;

/**
 * The columns of summary.csv for one framework, in their contract order (the same names for every
 * framework), with where each value comes from; a column the framework cannot fill says why. Longer
 * than 60 lines on purpose: it is the declared table of the columns, one entry each, not steps.
 */
export function summaryColumnsFor(profile: FrameworkProfile): SummaryColumn[] {
  const policy = policyColumns(profile);
  const rollout = rolloutColumns(profile);
  const p = (name: string, field: PolicyMeanField): SummaryMeanColumn => ({
    name,
    kind: "mean",
    source: { table: "policy", field },
    column: policy.find((c) => c.field === field)!,
  });
  const r = (name: string, field: SummaryRolloutField): SummaryMeanColumn => ({
    name,
    kind: "mean",
    source: { table: "rollout", field },
    column: rollout.find((c) => c.field === field)!,
  });
  const noUpdates = profile.updates.observable ? null : `empty: ${profile.label}: ${profile.updates.note}`;
  const observable = profile.updates.observable;
  const gradNorm = metricOf(profile, "gradNorm");
  return [
    {
      name: "round",
      kind: "label",
      description: `round label from data/runs.json; "${ALL_ROUNDS}" for the row over every record of every round`,
      cell: (x) => x.policy.round,
    },
    {
      name: "run_id",
      kind: "label",
      description: `W&B run id of the round (several runs of one round joined with "+"); empty on the "${ALL_ROUNDS}" row`,
      cell: (x) => (x.isAll ? null : x.policy.runId),
    },
    {
      name: "state",
      kind: "label",
      description: `W&B run state when the run was read (several runs joined with "+"); empty on the "${ALL_ROUNDS}" row, which is not a run`,
      cell: (x) => (x.isAll ? null : x.runs.map((r) => r.state).join("+")),
    },
    {
      name: "history_events",
      kind: "count",
      description: `W&B history rows frozen for the round (all rows: rollout, update, perf, eval, other); "${ALL_ROUNDS}" = the sum`,
      cell: (x) => x.runs.reduce((s, r) => s + r.historyEvents, 0),
    },
    { name: "rollouts", kind: "count", description: profile.recordsDescription, cell: (x) => x.policy.rollouts },
    {
      name: "updates",
      kind: "count",
      description: noUpdates ?? "optimizer updates (distinct train/step) of the round",
      cell: (x) => (observable ? x.policy.updates : null),
    },
    p("entropy_mean", "entropy"),
    p("clipfrac_mean", "clipfrac"),
    p("grad_norm_mean", "gradNorm"),
    p("actor_tok_per_s_mean", "actorTokPerS"),
    r("response_len_mean", "responseLen"),
    r("truncated_ratio_mean", "truncated"),
    r("rollout_time_mean", "rolloutTime"),
    p("logprob_abs_diff_mean", "logprobGap"),
    p("ppo_kl_first_update_mean", "ppoKlFirst"),
    p("ppo_kl_later_updates_mean", "ppoKlLater"),
    {
      name: "zero_grad_norm_updates",
      kind: "list",
      metric: gradNorm ?? undefined,
      description:
        noUpdates ??
        `display update numbers (update = train/step - N*r0 + 1) whose ${gradNorm === null ? "gradient norm" : gradNorm.key} is exactly 0, ascending, separated by single spaces; empty when there is none`,
      cell: (x) => (x.zeroUpdates.length === 0 || !observable ? null : x.zeroUpdates.join(" ")),
    },
    // Last, so that the columns before it keep their positions (it came with the comparison, lib/compare/).
    r("reward_mean", "reward"),
  ];
}

/** A mean column's cell: the mean of its diagnostics table's field. */
function meanCell(col: SummaryMeanColumn, x: SummaryRowSource): ExportCell {
  const m: MeanResult = col.source.table === "policy" ? x.policy[col.source.field] : x.rollout[col.source.field];
  return m.mean;
}

/** The summary table, its columns (summaryColumnsFor, resolved once) and the notes of its means (empty rounds, missing keys, excluded values). */
export interface SummaryExport {
  table: ExportTable;
  columns: SummaryColumn[];
  notes: string[];
}

/** Options of {@link summaryTable}. */
export interface SummaryTableOptions {
  /** Receives the diagnostics' warnings (one per excluded NaN / ±Infinity value). */
  reporter?: Reporter;
  /** Build the summary although the axis mapping does not hold for some run. Default false: refuse. */
  allowIssues?: boolean;
}

/**
 * summary.csv from the diagnostics tables: one row per round in run order, then the `all` row.
 * @example summaryTable(aligned).table.rows.map((r) => r[0]) // ["R0", "R1", "R2", "R3", "all"]
 */
export function summaryTable(aligned: AlignedRuns, opts: SummaryTableOptions = {}): SummaryExport {
  const reporter = opts.reporter;
  const policy = policyRoundTable(aligned, { reporter, allowIssues: opts.allowIssues });
  const rollout = rolloutRoundTable(aligned, { reporter, allowIssues: opts.allowIssues, fields: SUMMARY_ROLLOUT_FIELDS });
  const zero = zeroGradNormUpdates(aligned);
  const columns = summaryColumnsFor(profileOfAligned(aligned));
  const runsOf = (round: string) => aligned.runs.filter((r) => r.round === round);
  const row = (policyRow: PolicyRoundRow, rolloutRow: RolloutRoundRow<SummaryRolloutField>, zeroUpdates: number[], isAll: boolean): ExportCell[] => {
    const x: SummaryRowSource = { policy: policyRow, rollout: rolloutRow, zeroUpdates, runs: isAll ? aligned.runs : runsOf(policyRow.round), isAll };
    return columns.map((col) => (col.kind === "mean" ? meanCell(col, x) : col.cell(x)));
  };
  const rows = policy.rows.map((p, i) => row(p, rollout.rows[i], zero.rows[i].updates, false));
  rows.push(row(policy.all, rollout.all, zero.updates, true));
  const zeroNotes = [...zero.rows.map((z) => z.note), zero.note].filter((n): n is string => n !== null);
  const notes = [...new Set([...policy.notes, ...rollout.notes, ...zeroNotes])];
  return { table: { name: SUMMARY_FILE, columns: columns.map((c) => c.name), rows }, columns, notes };
}
