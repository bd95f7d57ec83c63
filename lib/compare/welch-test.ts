/**
 * The difference of two arms' means with Welch's unequal-variance t-test (two-sided), as
 * `scipy.stats.ttest_ind(x, y, equal_var=False)` computes it.
 */
import { mean, sampleVariance } from "./point-estimates";
import { twoSidedTPValue } from "./student-t";

/** Welch's test of mean(x) - mean(y); `p` null with the reason when the test is not defined. */
export interface WelchResult {
  meanDiff: number;
  t: number | null;
  df: number | null;
  p: number | null;
  /** Why p is null (fewer than 2 values in an arm, no spread in either arm); null when p is given. */
  why: string | null;
}

/**
 * Welch's t-test of two arms' values: t = (mean x - mean y) / sqrt(vx/nx + vy/ny), the
 * Welch-Satterthwaite degrees of freedom, the two-sided p-value.
 * @example welchTest([1, 2, 3], [4, 5, 7]).p // 0.0533...
 */
export function welchTest(x: ArrayLike<number>, y: ArrayLike<number>): WelchResult {
  const meanDiff = mean(x) - mean(y);
  const none = (why: string): WelchResult => ({ meanDiff, t: null, df: null, p: null, why });
  if (x.length < 2 || y.length < 2) return none(`Welch's test needs 2 values per arm (${x.length} and ${y.length})`);
  const vx = sampleVariance(x) / x.length;
  const vy = sampleVariance(y) / y.length;
  const se2 = vx + vy;
  if (!(se2 > 0)) return none("no spread in either arm: every value of each arm is the same");
  const t = meanDiff / Math.sqrt(se2);
  const df = (se2 * se2) / ((vx * vx) / (x.length - 1) + (vy * vy) / (y.length - 1));
  return { meanDiff, t, df, p: twoSidedTPValue(t, df), why: null };
}
