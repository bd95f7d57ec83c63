/**
 * Probability of improvement P(X > Y) between two arms' experiment values: the Mann-Whitney U
 * statistic of X over Y divided by n_x n_y, a tie counting 1/2 (scipy's `mannwhitneyu(x, y).statistic`
 * and rliable's `probability_of_improvement` on one task), with a percentile bootstrap interval that
 * resamples each arm on its own (rliable's `StratifiedIndependentBootstrap`).
 */
import { DEFAULT_RESAMPLES, percentileInterval, resampleCounts, type Interval } from "./bootstrap";
import type { SeededRandom } from "./seeded-random";

/** U / (n_x n_y) of two ascending arrays, by one merge: each x counts the y below it, ties 1/2. */
function improvementOfSorted(x: Float64Array, y: Float64Array): number {
  let u = 0;
  let below = 0;
  let upTo = 0;
  for (let i = 0; i < x.length; i++) {
    const v = x[i];
    while (below < y.length && y[below] < v) below++;
    if (upTo < below) upTo = below;
    while (upTo < y.length && y[upTo] === v) upTo++;
    u += below + (upTo - below) / 2;
  }
  return u / (x.length * y.length);
}

/**
 * P(X > Y) + P(X = Y)/2 over every pair of one value of each arm; NaN when an arm has no value.
 * @example probabilityOfImprovement([2, 3], [1, 2]) // 0.875
 */
export function probabilityOfImprovement(x: ArrayLike<number>, y: ArrayLike<number>): number {
  if (x.length === 0 || y.length === 0) return NaN;
  return improvementOfSorted(Float64Array.from(x as ArrayLike<number>).sort(), Float64Array.from(y as ArrayLike<number>).sort());
}

/**
 * 95% percentile bootstrap interval of P(X > Y), each arm resampled with replacement on its own
 * stream; null when an arm has no value.
 */
export function improvementInterval(
  x: ArrayLike<number>,
  y: ArrayLike<number>,
  randomX: SeededRandom,
  randomY: SeededRandom,
  resamples = DEFAULT_RESAMPLES,
): Interval | null {
  if (x.length === 0 || y.length === 0) return null;
  const sx = Float64Array.from(x as ArrayLike<number>).sort();
  const sy = Float64Array.from(y as ArrayLike<number>).sort();
  const nx = sx.length;
  const ny = sy.length;
  // Where each x value falls among the y values, once: y[0, below) < x <= ... , y[below, upTo) == x.
  const below = new Uint32Array(nx);
  const upTo = new Uint32Array(nx);
  for (let i = 0, lo = 0, hi = 0; i < nx; i++) {
    while (lo < ny && sy[lo] < sx[i]) lo++;
    if (hi < lo) hi = lo;
    while (hi < ny && sy[hi] === sx[i]) hi++;
    below[i] = lo;
    upTo[i] = hi;
  }
  const cx = new Uint32Array(nx);
  const cy = new Uint32Array(ny);
  const cumY = new Float64Array(ny + 1);
  const stats = new Float64Array(resamples);
  for (let b = 0; b < resamples; b++) {
    resampleCounts(nx, randomX, cx);
    resampleCounts(ny, randomY, cy);
    for (let j = 0; j < ny; j++) cumY[j + 1] = cumY[j] + cy[j];
    // U of the resamples: each drawn x counts the drawn y below it, ties 1/2 (improvementOfSorted on the resamples).
    let u = 0;
    for (let i = 0; i < nx; i++) if (cx[i] > 0) u += cx[i] * (cumY[below[i]] + (cumY[upTo[i]] - cumY[below[i]]) / 2);
    stats[b] = u / (nx * ny);
  }
  return percentileInterval(stats);
}
