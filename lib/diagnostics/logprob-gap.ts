/**
 * Mean |train - rollout log-prob| per round and overall. slime logs the absolute difference per
 * update already (train/train_rollout_logprob_abs_diff), so this is a plain mean of that key.
 */
import type { AlignedRuns, Reporter } from "../types";
import { METRICS } from "../schema/slime-metrics";
import type { MetricSpec } from "../registry/metric-spec";
import { roundMeans, type MeanResult } from "./round-mean";

/** Log-prob gap of one round (or all rounds). */
export interface LogprobGapRow {
  round: string;
  runId: string | null;
  updates: number;
  gap: MeanResult;
}

/** Mean |train - rollout log-prob| per round and overall. */
export interface LogprobGap {
  metric: MetricSpec;
  rows: LogprobGapRow[];
  all: LogprobGapRow;
  notes: string[];
}

/**
 * Mean |trainer log-prob - inference-engine log-prob| over optimizer updates, per round and overall.
 * @example logprobGap(aligned).all.gap.mean // ~0.01
 */
export function logprobGap(aligned: AlignedRuns, opts: { reporter?: Reporter } = {}): LogprobGap {
  const m = roundMeans(aligned, METRICS.logprobAbsDiff.key, { grain: "update", reporter: opts.reporter });
  const toRow = (r: (typeof m.rows)[number]): LogprobGapRow => ({
    round: r.round,
    runId: r.runId,
    updates: r.records,
    gap: r.value,
  });
  return { metric: METRICS.logprobAbsDiff, rows: m.rows.map(toRow), all: toRow(m.all), notes: m.notes };
}
