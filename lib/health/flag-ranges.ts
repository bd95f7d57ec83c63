/**
 * From records that fired a rule ("hits") to flags: hits of one round and key at consecutive
 * positions (display update numbers or rollout ids) form one flag with count, first, last and the
 * most extreme value. A missing record breaks a range: nothing is assumed about what was not logged.
 */
import type { HealthOutcome } from "./health-check";

/** One record that fired a rule. */
export interface HealthHit {
  round: string;
  runId: string;
  /** Display update number or rollout id. */
  x: number;
  key: string;
  value: number | null;
}

/** A flag as a check's function returns it. */
export type CheckFlag = Extract<HealthOutcome, { applicable: true }>["flags"][number];

/**
 * The most extreme of some values: ±Infinity before finite values, finite values by magnitude (the
 * signed value is kept), NaN only when nothing else is there; null for no number at all.
 * @example mostExtreme([0.1, -0.3, NaN]) // -0.3
 */
export function mostExtreme(values: readonly (number | null)[]): number | null {
  let best: number | null = null;
  const rank = (v: number) => (Number.isNaN(v) ? -1 : Math.abs(v));
  for (const v of values) {
    if (v === null) continue;
    if (best === null || rank(v) > rank(best)) best = v;
  }
  return best;
}

/** One flag over some hits (all of one round and key), positions ascending. */
export function flagOf(hits: readonly HealthHit[]): CheckFlag {
  const at = hits.map((h) => h.x).sort((a, b) => a - b);
  return {
    round: hits[0].round,
    runId: hits[0].runId,
    first: at[0],
    last: at[at.length - 1],
    count: hits.length,
    key: hits[0].key,
    value: mostExtreme(hits.map((h) => h.value)),
    at,
  };
}

/**
 * Hits grouped into flags: one flag per run of consecutive positions (x, x+1, ...) within one round
 * and key. Order: by `roundOrder`, then key, then first position.
 * @example consecutiveFlags(hits at x = 3, 4, 7 of round R0) // two flags: 3..4 (count 2) and 7..7
 */
export function consecutiveFlags(hits: readonly HealthHit[], roundOrder: readonly string[]): CheckFlag[] {
  const flags: CheckFlag[] = [];
  for (const group of groupByRoundAndKey(hits, roundOrder)) {
    let run: HealthHit[] = [];
    for (const h of group) {
      if (run.length > 0 && h.x !== run[run.length - 1].x + 1) {
        flags.push(flagOf(run));
        run = [];
      }
      run.push(h);
    }
    if (run.length > 0) flags.push(flagOf(run));
  }
  return flags;
}

/** Hits grouped into one flag per round and key (count, first, last over the whole round). */
export function roundFlags(hits: readonly HealthHit[], roundOrder: readonly string[]): CheckFlag[] {
  return groupByRoundAndKey(hits, roundOrder).map(flagOf);
}

/** Hits grouped by round (in `roundOrder`, unknown rounds after) and key (code-unit order), each group sorted by x. */
export function groupByRoundAndKey(hits: readonly HealthHit[], roundOrder: readonly string[]): HealthHit[][] {
  const groups = new Map<string, HealthHit[]>();
  for (const h of hits) {
    const id = JSON.stringify([h.round, h.key]);
    const g = groups.get(id);
    if (g) g.push(h);
    else groups.set(id, [h]);
  }
  const roundRank = (r: string) => {
    const i = roundOrder.indexOf(r);
    return i < 0 ? roundOrder.length : i;
  };
  const out = Array.from(groups.values()).map((g) => g.sort((a, b) => a.x - b.x));
  out.sort((a, b) => roundRank(a[0].round) - roundRank(b[0].round) || cmp(a[0].round, b[0].round) || cmp(a[0].key, b[0].key));
  return out;
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Median of the finite values (NaN and ±Infinity left out); null when there is none.
 * @example finiteMedian([3, 1, NaN, 2, 10]) // 2.5
 */
export function finiteMedian(values: readonly (number | undefined)[]): number | null {
  // A typed array sorts numerically without a comparator call per pair (10^6 values at 10^6 updates).
  const all = new Float64Array(values.length);
  let n = 0;
  for (const v of values) if (v !== undefined && Number.isFinite(v)) all[n++] = v;
  if (n === 0) return null;
  const xs = all.subarray(0, n).sort();
  const mid = n >> 1;
  return n % 2 === 1 ? xs[mid] : (xs[mid - 1] + xs[mid]) / 2;
}

/**
 * A threshold or median as evidence text: 4 significant digits (the exact values are in health.csv
 * and the records), "none" for null.
 * @example evidenceNumber(0.009807285145575873) // "0.009807"
 */
export function evidenceNumber(x: number | null): string {
  return x === null ? "none" : String(Number(x.toPrecision(4)));
}
