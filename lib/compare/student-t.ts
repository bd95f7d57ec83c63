/**
 * Two-sided p-value of Student's t distribution with real degrees of freedom, through the
 * regularized incomplete beta function of the Cephes library (the `cephes` package: Cephes compiled
 * to WebAssembly; docs/libraries.md says why). P(|T| > |t|) = I_{df/(df+t^2)}(df/2, 1/2); when t^2 is
 * small against df the argument is near 1 and loses its digits, so the complement
 * 1 - I_{t^2/(df+t^2)}(1/2, df/2) is used there instead.
 */
import { incbet, ndtri } from "cephes";

/**
 * P(|T| >= |t|) for T ~ Student t with `df` > 0 degrees of freedom.
 * @example twoSidedTPValue(2.0, 10) // 0.07338803477074...
 */
export function twoSidedTPValue(t: number, df: number): number {
  if (!(df > 0)) throw new Error(`invalid df: ${df} (a positive number)`);
  if (Number.isNaN(t)) return NaN;
  if (!Number.isFinite(t)) return 0;
  const t2 = t * t;
  if (t2 < df) return 1 - incbet(0.5, df / 2, t2 / (df + t2));
  return incbet(df / 2, 0.5, df / (df + t2));
}

/**
 * The standard normal quantile (inverse CDF) at p in (0, 1).
 * @example normalQuantile(0.975) // 1.959963984540054
 */
export function normalQuantile(p: number): number {
  if (!(p > 0 && p < 1)) throw new Error(`invalid p: ${p} (between 0 and 1, exclusive)`);
  return ndtri(p);
}
