/**
 * Point estimates over one arm's experiment values: count, mean, interquartile mean and the sample
 * variance. Values are finite numbers (the caller leaves missing cells out and refuses non-finite ones).
 */

/**
 * Arithmetic mean with compensated (Neumaier) summation; NaN for no values.
 * @example mean([1, 2, 4]) // 2.3333333333333335
 */
export function mean(values: ArrayLike<number>): number {
  const n = values.length;
  if (n === 0) return NaN;
  let sum = 0;
  let c = 0;
  for (let i = 0; i < n; i++) {
    const v = values[i];
    const t = sum + v;
    c += Math.abs(sum) >= Math.abs(v) ? sum - t + v : v - t + sum;
    sum = t;
  }
  return (sum + c) / n;
}

/** How many values the 25% trim drops at each end of n sorted values, as scipy.stats.trim_mean counts it: floor(n / 4). */
export function trimCount(n: number): number {
  return Math.floor(0.25 * n);
}

/**
 * Interquartile mean: the mean of the sorted values without floor(n/4) at each end, as
 * `scipy.stats.trim_mean(x, 0.25)` (and rliable's IQM) computes it. With fewer than 4 values nothing
 * is trimmed and the IQM is the mean.
 * @example iqm([1, 2, 3, 100]) // 2.5
 */
export function iqm(values: ArrayLike<number>): number {
  const sorted = Float64Array.from(values as ArrayLike<number>).sort();
  return iqmOfSorted(sorted);
}

/** The interquartile mean of values already in ascending order. */
export function iqmOfSorted(sorted: Float64Array): number {
  const cut = trimCount(sorted.length);
  return mean(sorted.subarray(cut, sorted.length - cut));
}

/**
 * Sample variance (n - 1 in the denominator, numpy's `ddof=1`), two-pass; NaN for fewer than 2 values.
 * @example sampleVariance([1, 2, 3, 4]) // 1.6666666666666667
 */
export function sampleVariance(values: ArrayLike<number>): number {
  const n = values.length;
  if (n < 2) return NaN;
  const m = mean(values);
  const d = new Float64Array(n);
  for (let i = 0; i < n; i++) d[i] = (values[i] - m) ** 2;
  return (mean(d) * n) / (n - 1);
}
