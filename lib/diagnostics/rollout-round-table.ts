/**
 * Response length and throughput per round: means over rollout batches of the mean response
 * length, truncated fraction, rollout wall time and actor training tokens/s. One pass over rollouts.
 */
import type { AlignedRuns, Reporter } from "../types";
import { assertMappingHolds } from "../axes/coverage";
import { METRICS } from "../schema/slime-metrics";
import { describeRollout } from "./record-label";
import { collectNotes, MeanAccumulator, nonFiniteMessage, type MeanResult } from "./round-mean";
import { roundIndex, rolloutRoundPosition } from "./round-index";
import type { TableColumn } from "./table-column";

/** The mean columns of the rollout table. */
export type RolloutMeanField = "responseLen" | "truncatedRatio" | "rolloutTime" | "actorTokPerS";

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
}

const ROLLOUTS = "rollout batches";
const FIELDS: readonly RolloutMeanField[] = ["responseLen", "truncatedRatio", "rolloutTime", "actorTokPerS"];

/** Column order and meaning of the rollout table. */
export const ROLLOUT_COLUMNS: readonly TableColumn<RolloutMeanField>[] = FIELDS.map((field) => ({
  field,
  label: METRICS[field].label,
  metric: METRICS[field],
  over: ROLLOUTS,
}));

/**
 * Per-round means over rollout batches of response length, truncated fraction, rollout time and
 * actor tokens/s, plus an `all` row.
 * @example rolloutRoundTable(aligned).rows.map((r) => r.truncatedRatio.mean)
 */
export function rolloutRoundTable(aligned: AlignedRuns, opts: { reporter?: Reporter; allowIssues?: boolean } = {}): RolloutRoundTable {
  assertMappingHolds(aligned, { allowIssues: opts.allowIssues, what: "the rollout round table" });
  const warn = opts.reporter?.warn?.bind(opts.reporter);
  const index = roundIndex(aligned);
  const R = index.rounds.length;
  const keys = FIELDS.map((f) => METRICS[f].key);
  // accs[field][round slot]; slot R = all rounds.
  const accs = FIELDS.map(() => Array.from({ length: R + 1 }, () => new MeanAccumulator()));
  const rollouts = new Array<number>(R + 1).fill(0);
  for (const r of aligned.rollouts) {
    const i = rolloutRoundPosition(index, r);
    rollouts[i]++;
    const values = r.values;
    for (let f = 0; f < keys.length; f++) {
      const v: number | undefined = values[keys[f]];
      accs[f][R].add(v);
      if (!accs[f][i].add(v) && warn) warn(nonFiniteMessage(describeRollout(r), keys[f], v as number));
    }
  }
  rollouts[R] = rollouts.reduce((a, b) => a + b, 0);
  const row = (i: number): RolloutRoundRow => {
    const round = i === R ? null : index.rounds[i];
    const [responseLen, truncatedRatio, rolloutTime, actorTokPerS] = accs.map((a, f) =>
      a[i].result(round, ROLLOUTS, keys[f]),
    );
    return {
      round: round ?? "all",
      runId: round === null ? null : index.runIds[i],
      rollouts: rollouts[i],
      responseLen,
      truncatedRatio,
      rolloutTime,
      actorTokPerS,
    };
  };
  const rows = index.rounds.map((_, i) => row(i));
  const all = row(R);
  const notes = collectNotes([...rows, all].flatMap((r) => FIELDS.map((f) => r[f])));
  return { columns: [...ROLLOUT_COLUMNS], rows, all, notes };
}
