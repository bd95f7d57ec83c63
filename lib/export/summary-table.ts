/**
 * summary.csv: one row per round in run order, then an `all` row over every record of every round
 * (not a mean of round means). Every number comes from lib/diagnostics; nothing is recomputed here.
 */
import type { AlignedRuns, Reporter } from "../types";
import { METRICS } from "../schema/slime-metrics";
import type { MetricSpec } from "../registry/metric-spec";
import type { FrameworkProfile } from "../registry/framework-profile";
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

/**
 * The columns of summary.csv for one framework, in their contract order (the same names for every
 * framework), with where each value comes from; a column the framework cannot fill says why.
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
  const r = (name: string, field: RolloutMeanField): SummaryMeanColumn => ({
    name,
    kind: "mean",
    source: { table: "rollout", field },
    column: rollout.find((c) => c.field === field)!,
  });
  const noUpdates = profile.updates.observable ? null : `empty: ${profile.label}: ${profile.updates.note}`;
  const gradNorm = profile.metrics.gradNorm;
  return [
    { name: "round", kind: "label", description: `round label from data/runs.json; "${ALL_ROUNDS}" for the row over every record of every round` },
    { name: "run_id", kind: "label", description: `W&B run id of the round (several runs of one round joined with "+"); empty on the "${ALL_ROUNDS}" row` },
    {
      name: "state",
      kind: "label",
      description: `W&B run state when the run was read (several runs joined with "+"); empty on the "${ALL_ROUNDS}" row, which is not a run`,
    },
    {
      name: "history_events",
      kind: "count",
      description: `W&B history rows frozen for the round (all rows: rollout, update, perf, eval, other); "${ALL_ROUNDS}" = the sum`,
    },
    {
      name: "rollouts",
      kind: "count",
      description: profile.recordsDescription,
    },
    { name: "updates", kind: "count", description: noUpdates ?? "optimizer updates (distinct train/step) of the round" },
    p("entropy_mean", "entropy"),
    p("clipfrac_mean", "clipfrac"),
    p("grad_norm_mean", "gradNorm"),
    p("actor_tok_per_s_mean", "actorTokPerS"),
    r("response_len_mean", "responseLen"),
    r("truncated_ratio_mean", "truncatedRatio"),
    r("rollout_time_mean", "rolloutTime"),
    p("logprob_abs_diff_mean", "logprobAbsDiff"),
    p("ppo_kl_first_update_mean", "ppoKlFirst"),
    p("ppo_kl_later_updates_mean", "ppoKlLater"),
    {
      name: "zero_grad_norm_updates",
      kind: "list",
      metric: "absent" in gradNorm ? undefined : gradNorm,
      description:
        noUpdates ??
        `display update numbers (update = train/step - N*r0 + 1) whose ${METRICS.gradNorm.key} is exactly 0, ascending, separated by single spaces; empty when there is none`,
    },
  ];
}

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
  const profile = profileOfAligned(aligned);
  const columns = summaryColumnsFor(profile);
  const updatesObservable = profile.updates.observable;

  const runsOf = (round: string) => aligned.runs.filter((r) => r.round === round);
  const row = (p: PolicyRoundRow, r: RolloutRoundRow, zeroUpdates: number[], isAll: boolean): ExportCell[] => {
    const runs = isAll ? aligned.runs : runsOf(p.round);
    const cells: ExportCell[] = [];
    for (const col of columns) {
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
          cells.push(updatesObservable ? p.updates : null);
          break;
        case "zero_grad_norm_updates":
          cells.push(zeroUpdates.length === 0 || !updatesObservable ? null : zeroUpdates.join(" "));
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
  return { table: { name: SUMMARY_FILE, columns: columns.map((c) => c.name), rows }, notes };
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
