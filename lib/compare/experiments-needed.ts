/**
 * How many experiments per arm a two-sided test at level alpha needs to detect the observed
 * difference of means with the given power, from the observed sample variances (normal
 * approximation): n = (z_{1-alpha/2} + z_{power})^2 (s_x^2 + s_y^2) / d^2, rounded up, at least 2.
 */
import { mean, sampleVariance } from "./point-estimates";
import { normalQuantile } from "./student-t";

/** Power and level the comparison reports n for. */
export const POWER = 0.8;
export const ALPHA = 0.05;

/** Experiments per arm needed, or null with the reason when the formula has no answer. */
export interface ExperimentsNeeded {
  n: number | null;
  why: string | null;
}

/**
 * Experiments per arm to detect mean(x) - mean(y) with 80% power at 5% (two-sided).
 * @example experimentsNeeded([1, 2, 3], [2, 3, 4]).n // 32
 */
export function experimentsNeeded(x: ArrayLike<number>, y: ArrayLike<number>, power = POWER, alpha = ALPHA): ExperimentsNeeded {
  if (x.length < 2 || y.length < 2) return { n: null, why: `variances need 2 values per arm (${x.length} and ${y.length})` };
  const d = mean(x) - mean(y);
  if (d === 0) return { n: null, why: "the observed difference of means is 0: no sample size detects it" };
  const z = normalQuantile(1 - alpha / 2) + normalQuantile(power);
  const n = Math.ceil((z * z * (sampleVariance(x) + sampleVariance(y))) / (d * d));
  return { n: Math.max(2, n), why: null };
}
