/**
 * ppo_kl by the update's position inside its rollout batch (0..N-1). On position 0 the old and the
 * current policy are the same weights, so ppo_kl is ~0 there; later positions follow weight changes.
 */
import type { AlignedRuns, Reporter } from "../types";
import type { MetricSpec } from "../registry/metric-spec";
import { metricOfAligned } from "../registry/profiles";
import { describeUpdate } from "./record-label";
import { collectNotes, MeanAccumulator, nonFiniteMessage, type MeanResult } from "./round-mean";
import { roundIndex, updateRoundPosition } from "./round-index";

/** One round (or the `all` row) of ppo_kl by position. */
export interface PpoKlPositionRow {
  round: string;
  runId: string | null;
  updates: number;
  /** Mean ppo_kl at each position in the batch; index = position (0-based). */
  byPosition: MeanResult[];
}

/** ppo_kl means per position in the rollout batch, per round and over all rounds. */
export interface PpoKlByPosition {
  metric: MetricSpec;
  /** Updates per rollout batch (aligned.mapping.n). */
  n: number;
  /** 0..N-1. */
  positions: number[];
  rows: PpoKlPositionRow[];
  all: PpoKlPositionRow;
  notes: string[];
}

/** Options of {@link ppoKlByPosition}. */
export interface PpoKlByPositionOptions {
  /** Receives one warning per excluded NaN / ±Infinity value. */
  reporter?: Reporter;
}

/**
 * Mean train/ppo_kl at each position 0..N-1 of the rollout batch, per round and overall.
 * Throws when an update's position is outside 0..N-1 (an alignment inconsistency).
 * @example ppoKlByPosition(aligned).all.byPosition.map((m) => m.mean) // [~0, 0.0012]
 */
export function ppoKlByPosition(aligned: AlignedRuns, opts: PpoKlByPositionOptions = {}): PpoKlByPosition {
  const n = aligned.mapping.n;
  if (!Number.isInteger(n) || n < 1) throw new Error(`invalid mapping.n: ${n}`);
  const warn = opts.reporter?.warn?.bind(opts.reporter);
  const metric = metricOfAligned(aligned, "ppoKl");
  const key = metric.key;
  const index = roundIndex(aligned);
  const R = index.rounds.length;
  // accs[round slot][position]; slot R = all rounds.
  const accs = Array.from({ length: R + 1 }, () => Array.from({ length: n }, () => new MeanAccumulator()));
  const updates = new Array<number>(R + 1).fill(0);
  for (const u of aligned.updates) {
    const i = updateRoundPosition(index, u);
    const p = u.updateInRollout;
    if (!Number.isInteger(p) || p < 0 || p >= n)
      throw new Error(`${describeUpdate(u, index.updateKey)}: position in batch ${p} is outside 0..${n - 1} (N = ${n})`);
    updates[i]++;
    const v: number | undefined = u.values[key];
    accs[R][p].add(v);
    if (!accs[i][p].add(v) && warn) warn(nonFiniteMessage(describeUpdate(u, index.updateKey), key, v as number));
  }
  updates[R] = updates.reduce((a, b) => a + b, 0);
  const row = (i: number): PpoKlPositionRow => {
    const round = i === R ? null : index.rounds[i];
    const noun = (p: number) => (updates[i] === 0 ? "optimizer updates" : `updates at position ${p} of a rollout batch`);
    return {
      round: round ?? "all",
      runId: round === null ? null : index.runIds[i],
      updates: updates[i],
      byPosition: accs[i].map((acc, p) => acc.result(round, noun(p), key)),
    };
  };
  const rows = index.rounds.map((_, i) => row(i));
  const all = row(R);
  const notes = collectNotes([...rows, all].flatMap((r) => r.byPosition));
  return { metric, n, positions: Array.from({ length: n }, (_, p) => p), rows, all, notes };
}
