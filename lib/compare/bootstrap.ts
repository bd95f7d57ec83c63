/**
 * Percentile bootstrap intervals (rliable's `get_interval_estimates` with `method="percentile"`):
 * experiments resampled with replacement, the statistic recomputed per resample, the interval ends
 * the 2.5th and 97.5th percentiles of the resampled statistics, interpolated as numpy.percentile
 * does by default. The values are sorted once; a resample is then a count per value, read in
 * order, so every resample is sorted without sorting it again.
 */
import { trimCount } from "./point-estimates";
import { countDraws, type SeededRandom } from "./seeded-random";

/** Resamples of a bootstrap by default (rliable's default). */
export const DEFAULT_RESAMPLES = 50_000;

/** Coverage of the intervals. */
export const INTERVAL_COVERAGE = 0.95;

/** A two-sided interval; null ends when it cannot be computed (no value). */
export interface Interval {
  low: number;
  high: number;
}

/**
 * The q-quantile (0..1) of values in ascending order, linear between neighbours (numpy's default).
 * @example quantileOfSorted(Float64Array.of(1, 2, 3, 4), 0.5) // 2.5
 */
export function quantileOfSorted(sorted: Float64Array, q: number): number {
  const h = (sorted.length - 1) * q;
  const lo = Math.floor(h);
  const hi = Math.min(lo + 1, sorted.length - 1);
  return sorted[lo] + (h - lo) * (sorted[hi] - sorted[lo]);
}

/** The percentile interval of resampled statistics (sorted in place). */
export function percentileInterval(stats: Float64Array, coverage = INTERVAL_COVERAGE): Interval {
  stats.sort();
  const tail = (1 - coverage) / 2;
  return { low: quantileOfSorted(stats, tail), high: quantileOfSorted(stats, 1 - tail) };
}

/** How often each of n values is drawn in one resample of n with replacement, into `counts`. */
export function resampleCounts(n: number, random: SeededRandom, counts: Uint32Array): void {
  countDraws(random, n, n, counts);
}

/** Bootstrap intervals of an arm's mean and IQM, from the same resamples. */
export interface ArmIntervals {
  mean: Interval;
  iqm: Interval;
}

/**
 * 95% percentile bootstrap intervals of the mean and the IQM of one arm's values; null for no value.
 * @example armIntervals([0.1, 0.4, 0.3], randomStream(1, "arm"), 50_000).iqm.low
 */
export function armIntervals(values: ArrayLike<number>, random: SeededRandom, resamples = DEFAULT_RESAMPLES): ArmIntervals | null {
  const n = values.length;
  if (n === 0) return null;
  const sorted = Float64Array.from(values as ArrayLike<number>).sort();
  const counts = new Uint32Array(n);
  const means = new Float64Array(resamples);
  const iqms = new Float64Array(resamples);
  // The resample in order holds sorted[i] at positions [k, k + counts[i]); the IQM keeps positions
  // [cut, n - cut), so each value adds its count inside that window (scipy's trim_mean on the resample).
  const cut = trimCount(n);
  const end = n - cut;
  for (let b = 0; b < resamples; b++) {
    resampleCounts(n, random, counts);
    let total = 0;
    let middle = 0;
    let k = 0;
    for (let i = 0; i < n; i++) {
      const c = counts[i];
      if (c === 0) continue;
      const v = sorted[i];
      total += c * v;
      const inside = Math.min(k + c, end) - Math.max(k, cut);
      if (inside > 0) middle += inside * v;
      k += c;
    }
    means[b] = total / n;
    iqms[b] = middle / (end - cut);
  }
  return { mean: percentileInterval(means), iqm: percentileInterval(iqms) };
}
