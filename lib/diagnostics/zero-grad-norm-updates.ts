/**
 * Optimizer updates whose recorded gradient norm is exactly 0. Observable, not by itself a bug or
 * convergence: it follows when every sample of the step has zero advantage (the gradient norm's isNot in its profile).
 */
import type { AlignedRuns } from "../types";
import type { MetricSpec } from "../registry/metric-spec";
import { metricOfAligned, updatesUnobservable } from "../registry/profiles";
import { roundIndex, RoundSlot, updateRoundPosition } from "./round-index";
import { forEachBlock } from "../values/key-column";

/** Zero-gradient-norm updates of one round (or of all rounds). */
export interface ZeroGradNormRow {
  round: string;
  runId: string | null;
  /** Display update numbers with train/grad_norm === 0, ascending. */
  updates: number[];
  /** Updates of the round with a finite train/grad_norm (the ones that could be 0). */
  checked: number;
  /** Updates without the key. */
  missing: number;
  /** Updates whose value is NaN or ±Infinity (not zero, not checked). */
  nonFinite: number;
  /** Why nothing could be checked; null otherwise. */
  note: string | null;
}

/** Updates with an exactly-zero gradient norm, overall and per round. */
export interface ZeroGradNormUpdates extends ZeroGradNormRow {
  metric: MetricSpec;
  rows: ZeroGradNormRow[];
}

/**
 * Sorted display update numbers whose train/grad_norm is exactly 0 (also -0), with a per-round split.
 * @example zeroGradNormUpdates(aligned).updates // [66, 70, 82, 116, 140, 142, 156, 160]
 */
export function zeroGradNormUpdates(aligned: AlignedRuns): ZeroGradNormUpdates {
  const metric = metricOfAligned(aligned, "gradNorm");
  const unobservable = updatesUnobservable(aligned);
  const key = metric.key;
  const index = roundIndex(aligned);
  const R = index.rounds.length;
  const found: number[][] = Array.from({ length: R }, () => []);
  const checked = new Array<number>(R).fill(0);
  const missing = new Array<number>(R).fill(0);
  const nonFinite = new Array<number>(R).fill(0);
  const updates = aligned.updates;
  const slot = new RoundSlot(index.position);
  forEachBlock(updates, [key], (from, to, [col]) => {
    for (let j = from; j < to; j++) {
      let i = slot.of(updates[j].round);
      if (i < 0) i = updateRoundPosition(index, updates[j]);
      const v = col.values[j - from];
      if (col.found[j - from] === 0) missing[i]++;
      else if (v - v !== 0) nonFinite[i]++;
      else {
        checked[i]++;
        if (v === 0) found[i].push(updates[j].update);
      }
    }
  });
  const byNumber = (a: number, b: number) => a - b;
  const rows: ZeroGradNormRow[] = index.rounds.map((round, i) => ({
    round,
    runId: index.runIds[i],
    updates: found[i].sort(byNumber),
    checked: checked[i],
    missing: missing[i],
    nonFinite: nonFinite[i],
    // Where single updates are not observable (step frameworks), the run-wide note says so once.
    note: unobservable === null ? noteFor(`round ${round}`, checked[i], missing[i], nonFinite[i], key) : null,
  }));
  const sum = (a: number[]) => a.reduce((x, y) => x + y, 0);
  const total = { checked: sum(checked), missing: sum(missing), nonFinite: sum(nonFinite) };
  return {
    metric,
    round: "all",
    runId: null,
    updates: ([] as number[]).concat(...found).sort(byNumber),
    ...total,
    note:
      unobservable === null
        ? noteFor("all rounds", total.checked, total.missing, total.nonFinite, key)
        : `zero-gradient-norm updates: single optimizer updates are not observable (${unobservable})`,
    rows,
  };
}

function noteFor(where: string, checked: number, missing: number, nonFinite: number, key: string): string | null {
  if (checked > 0) return null;
  if (missing + nonFinite === 0) return `${where}: no optimizer updates`;
  return `${where}: no update has a finite ${key} (${missing} lack it, ${nonFinite} non-finite)`;
}
