/**
 * Holm's step-down adjustment of a family of p-values (Holm 1979; statsmodels' `multipletests(p,
 * method="holm")`): sorted ascending, the j-th smallest (0-based) of m is multiplied by m - j, each
 * adjusted value is at least the one before it (so the order of the raw values is kept), capped at 1.
 * It controls the chance of any false rejection in the family under any dependence between the tests,
 * which the comparison's tests have (the `all` scope overlaps the rounds).
 */

/**
 * Holm-adjusted p-values in the input order; a null or non-finite entry stays null and is not one of the m tests.
 * @example holmAdjusted([0.01, 0.04, 0.03]) // [0.03, 0.06, 0.06]
 */
export function holmAdjusted(p: readonly (number | null)[]): (number | null)[] {
  const at = p.map((_v, i) => i).filter((i) => p[i] !== null && Number.isFinite(p[i]));
  at.sort((i, j) => (p[i] as number) - (p[j] as number) || i - j);
  const m = at.length;
  const out: (number | null)[] = p.map(() => null);
  let running = 0;
  at.forEach((i, j) => {
    running = Math.max(running, Math.min(1, (m - j) * (p[i] as number)));
    out[i] = running;
  });
  return out;
}
