/**
 * summary.csv: one row per round in run order, then an `all` row over every record of every round
 * (not a mean of round means). Every number comes from lib/diagnostics; nothing is recomputed here.
 */
import type { AlignedRuns, Reporter } from "../types";
import { METRICS, type MetricSpec } from "../schema/slime-metrics";
import {
  POLICY_COLUMNS,
  ROLLOUT_COLUMNS,
  policyRoundTable,
  rolloutRoundTable,
  zeroGradNormUpdates,
  type MeanResult,
  type PolicyMeanField,
  type PolicyRoundRow,
  type RolloutMeanField,
  type RolloutRoundRow,
  type TableColumn,
} from "../diagnostics/index";
import type { ExportCell } from "./export-cell";
import type { ExportTable } from "./csv-text";

/** File name of the summary table. */
export const SUMMARY_FILE = "summary.csv";

/** Round label of the row over all rounds. */
export const ALL_ROUNDS = "all";

/** A summary column that is a per-round mean, read from a diagnostics table. */
export interface SummaryMeanColumn {
  name: string;
  kind: "mean";
  /** Which diagnostics table and field the mean comes from. */
  source: { table: "policy"; field: PolicyMeanField } | { table: "rollout"; field: RolloutMeanField };
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
}

/** One column of summary.csv. */
export type SummaryColumn = SummaryMeanColumn | SummaryPlainColumn;

function policyColumn(name: string, field: PolicyMeanField): SummaryMeanColumn {
  const column = POLICY_COLUMNS.find((c) => c.field === field);
  if (column === undefined) throw new Error(`invalid policy field: ${field}`);
  return { name, kind: "mean", source: { table: "policy", field }, column };
}

function rolloutColumn(name: string, field: RolloutMeanField): SummaryMeanColumn {
  const column = ROLLOUT_COLUMNS.find((c) => c.field === field);
  if (column === undefined) throw new Error(`invalid rollout field: ${field}`);
  return { name, kind: "mean", source: { table: "rollout", field }, column };
}

/** The columns of summary.csv, in their contract order, with where each value comes from. */
export const SUMMARY_COLUMNS: readonly SummaryColumn[] = [
  { name: "round", kind: "label", description: `round label from data/runs.json; "${ALL_ROUNDS}" for the row over every record of every round` },
  { name: "run_id", kind: "label", description: `W&B run id of the round (several runs of one round joined with "+"); empty on the "${ALL_ROUNDS}" row` },
  { name: "state", kind: "label", description: `W&B run state when the run was read (several runs joined with "+"); empty on the "${ALL_ROUNDS}" row, which is not a run` },
  { name: "history_events", kind: "count", description: `W&B history rows frozen for the round (all rows: rollout, update, perf, eval, other); "${ALL_ROUNDS}" = the sum` },
  { name: "rollouts", kind: "count", description: "rollout batches (distinct rollout/step) of the round" },
  { name: "updates", kind: "count", description: "optimizer updates (distinct train/step) of the round" },
  policyColumn("entropy_mean", "entropy"),
  policyColumn("clipfrac_mean", "clipfrac"),
  policyColumn("grad_norm_mean", "gradNorm"),
  policyColumn("actor_tok_per_s_mean", "actorTokPerS"),
  rolloutColumn("response_len_mean", "responseLen"),
  rolloutColumn("truncated_ratio_mean", "truncatedRatio"),
  rolloutColumn("rollout_time_mean", "rolloutTime"),
  policyColumn("logprob_abs_diff_mean", "logprobAbsDiff"),
  policyColumn("ppo_kl_first_update_mean", "ppoKlFirst"),
  policyColumn("ppo_kl_later_updates_mean", "ppoKlLater"),
  {
    name: "zero_grad_norm_updates",
    kind: "list",
    metric: METRICS.gradNorm,
    description: `display update numbers (update = train/step - N*r0 + 1) whose ${METRICS.gradNorm.key} is exactly 0, ascending, separated by single spaces; empty when there is none`,
  },
];

/** The summary table and the notes of its means (empty rounds, missing keys, excluded values). */
export interface SummaryExport {
  table: ExportTable;
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
  // Both tables average actor tokens/s, so each excluded value would be warned twice: say it once.
  const reporter = opts.reporter && onceReporter(opts.reporter);
  const policy = policyRoundTable(aligned, { reporter, allowIssues: opts.allowIssues });
  const rollout = rolloutRoundTable(aligned, { reporter, allowIssues: opts.allowIssues });
  const zero = zeroGradNormUpdates(aligned);

  const runsOf = (round: string) => aligned.runs.filter((r) => r.round === round);
  const row = (p: PolicyRoundRow, r: RolloutRoundRow, zeroUpdates: number[], isAll: boolean): ExportCell[] => {
    const runs = isAll ? aligned.runs : runsOf(p.round);
    const cells: ExportCell[] = [];
    for (const col of SUMMARY_COLUMNS) {
      switch (col.name) {
        case "round":
          cells.push(p.round);
          break;
        case "run_id":
          cells.push(isAll ? null : p.runId);
          break;
        case "state":
          cells.push(isAll ? null : runs.map((x) => x.state).join("+"));
          break;
        case "history_events":
          cells.push(runs.reduce((s, x) => s + x.historyEvents, 0));
          break;
        case "rollouts":
          cells.push(p.rollouts);
          break;
        case "updates":
          cells.push(p.updates);
          break;
        case "zero_grad_norm_updates":
          cells.push(zeroUpdates.length === 0 ? null : zeroUpdates.join(" "));
          break;
        default: {
          if (col.kind !== "mean") throw new Error(`invalid summary column: ${col.name}`);
          const m: MeanResult = col.source.table === "policy" ? p[col.source.field] : r[col.source.field];
          cells.push(m.mean);
        }
      }
    }
    return cells;
  };
  const rows = policy.rows.map((p, i) => row(p, rollout.rows[i], zero.rows[i].updates, false));
  rows.push(row(policy.all, rollout.all, zero.updates, true));
  const zeroNotes = [...zero.rows.map((z) => z.note), zero.note].filter((n): n is string => n !== null);
  const notes = [...new Set([...policy.notes, ...rollout.notes, ...zeroNotes])];
  return { table: { name: SUMMARY_FILE, columns: SUMMARY_COLUMNS.map((c) => c.name), rows }, notes };
}

/** A reporter passing each distinct warning on once (the diagnostics tables only warn). */
function onceReporter(reporter: Reporter): Reporter {
  const seen = new Set<string>();
  return {
    warn: (message: string) => {
      if (seen.has(message)) return;
      seen.add(message);
      reporter.warn?.(message);
    },
  };
}
