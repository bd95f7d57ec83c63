/**
 * From records that fired a rule ("hits") to flags: hits of one round and key at consecutive
 * positions (display update numbers or rollout ids) form one flag with count, first, last and the
 * most extreme value. A missing record breaks a range: nothing is assumed about what was not logged.
 */
import type { HealthOutcome } from "./health-check";
import type { Values } from "../values/compact-values";
import { BLOCK, forEachBlock, type KeyColumn } from "../values/key-column";
import { firstPositions, RoundSlot } from "../diagnostics/round-index";

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
 * Median of the finite values (NaN, ±Infinity and undefined left out); null when there is none.
 * @example finiteMedian([3, 1, NaN, 2, 10]) // 2.5
 */
export function finiteMedian(values: ArrayLike<number | undefined>): number | null {
  const all = new Float64Array(values.length);
  let n = 0;
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (v !== undefined && v - v === 0) all[n++] = v;
  }
  return medianInPlace(all, n);
}

/**
 * The finite median of the last `window` of `values` (as finiteMedian(values.slice(-window)), window
 * >= 1), copied into `scratch` (at least `window` long) instead of two fresh arrays: rules that judge
 * every logged value against its trailing median call it once per value.
 */
export function trailingMedian(values: readonly number[], window: number, scratch: Float64Array): number | null {
  let n = 0;
  for (let i = Math.max(0, values.length - window); i < values.length; i++) {
    const v = values[i];
    if (v - v === 0) scratch[n++] = v;
  }
  return medianInPlace(scratch, n);
}

/**
 * Median of the finite values xs[0..n), reordering them in place; null for none. A selection (linear
 * time), not a sort (n log n: a second at 10^7 values), with the sorted order's -0 before +0 kept
 * exactly. A length rather than a subarray: rules that take a trailing median per logged value made
 * one subarray object per call (184 MB of garbage at 10^6 updates).
 * @example medianInPlace(Float64Array.of(3, 1, 2, 10)) // 2.5
 */
export function medianInPlace(xs: Float64Array, n = xs.length): number | null {
  if (n === 0) return null;
  const mid = n >> 1;
  const upper = selectInPlace(xs, mid, n);
  if (n % 2 === 1) return signedZero(xs, n, mid, upper);
  // Selection leaves every value below position mid at or below it: the next lower is their maximum.
  let lower = xs[0];
  for (let i = 1; i < mid; i++) if (xs[i] > lower) lower = xs[i];
  return (signedZero(xs, n, mid - 1, lower) + signedZero(xs, n, mid, upper)) / 2;
}

/**
 * The value at sorted position k of xs[0..n) (finite values), reordering xs so that smaller values come
 * before k and larger after: quickselect with a three-way partition (many equal values stay linear).
 * -0 and +0 compare equal here; {@link signedZero} restores the sorted order's sign.
 */
function selectInPlace(xs: Float64Array, k: number, n: number): number {
  let lo = 0;
  let hi = n - 1;
  while (lo < hi) {
    const pivot = medianOfThree(xs[lo], xs[(lo + hi) >> 1], xs[hi]);
    let lt = lo;
    let i = lo;
    let gt = hi;
    while (i <= gt) {
      const v = xs[i];
      if (v < pivot) {
        xs[i++] = xs[lt];
        xs[lt++] = v;
      } else if (v > pivot) {
        xs[i] = xs[gt];
        xs[gt--] = v;
      } else i++;
    }
    if (k < lt) hi = lt - 1;
    else if (k > gt) lo = gt + 1;
    else return pivot;
  }
  return xs[k];
}

function medianOfThree(a: number, b: number, c: number): number {
  // biome-ignore lint/complexity/useMathMinMax: the comparisons pick between -0 and +0 as the partition does; Math.max prefers +0
  return a < b ? (b < c ? b : a < c ? c : a) : a < c ? a : b < c ? c : b;
}

/** `v`, the value at sorted position k of xs[0..n), with the sign a sort gives a zero there (every -0 sorts before every +0). */
function signedZero(xs: Float64Array, n: number, k: number, v: number): number {
  if (v !== 0) return v;
  let below = 0;
  let negativeZeros = 0;
  for (let i = 0; i < n; i++) {
    if (xs[i] < 0) below++;
    else if (xs[i] === 0 && Object.is(xs[i], -0)) negativeZeros++;
  }
  return k < below + negativeZeros ? -0 : 0;
}

/** Finite values, growing as they come (doubling): one typed array instead of a boxed array. */
export class FiniteValues {
  private xs: Float64Array;
  length = 0;

  /** `capacity`: the most values expected (e.g. the records read), so a large column is allocated once. */
  constructor(capacity = 1024) {
    this.xs = new Float64Array(Math.max(1, capacity));
  }

  /** Adds v when finite. */
  add(v: number): void {
    if (!(v - v === 0)) return;
    if (this.length === this.xs.length) {
      const grown = new Float64Array(this.xs.length * 2);
      grown.set(this.xs);
      this.xs = grown;
    }
    this.xs[this.length++] = v;
  }

  /** The median of the values added (reorders them: a selection in place); null for none. */
  median(): number | null {
    return medianInPlace(this.xs, this.length);
  }
}

/**
 * The finite median of `key` per round of `rounds` (null for a round without a finite value), in
 * one pass over the records; records of a round not listed are left out.
 */
export function roundMedians(records: readonly { round: string; values: Values }[], key: string, rounds: readonly string[]): (number | null)[] {
  const position = firstPositions(rounds);
  const slot = new RoundSlot(position);
  const finite = rounds.map(() => new FiniteValues());
  forEachBlock(records, [key], (from, to, [col]) => {
    for (let i = from; i < to; i++) {
      const s = slot.of(records[i].round);
      if (s >= 0) finite[s].add(col.values[i - from]);
    }
  });
  // A round listed twice has the median of its first listing.
  return rounds.map((round) => finite[position.get(round)!].median());
}

/** Per record: the sum of the parts it logged (added in `parts` order from 0) and how many it logged. */
export interface PartSums {
  sum: Float64Array;
  logged: Int32Array;
}

/**
 * The logged parts of the records `from..to` summed (nested timers: container = sum of its parts),
 * at 0..to-from of `into`. The order of additions is the parts' order, so sums equal
 * `parts.reduce((s, k) => s + v, 0)`.
 */
export function partSums(cols: readonly KeyColumn[], n: number, into: PartSums): PartSums {
  into.sum.fill(0, 0, n);
  into.logged.fill(0, 0, n);
  for (const col of cols) {
    for (let j = 0; j < n; j++) {
      if (col.found[j] === 0) continue;
      into.sum[j] += col.values[j];
      into.logged[j]++;
    }
  }
  return into;
}

/** A {@link PartSums} for one block of records. */
export function blockPartSums(): PartSums {
  return { sum: new Float64Array(BLOCK), logged: new Int32Array(BLOCK) };
}

/**
 * A threshold or median as evidence text: 4 significant digits (the exact values are in health.csv
 * and the records), "none" for null.
 * @example evidenceNumber(0.009807285145575873) // "0.009807"
 */
export function evidenceNumber(x: number | null): string {
  return x === null ? "none" : String(Number(x.toPrecision(4)));
}
