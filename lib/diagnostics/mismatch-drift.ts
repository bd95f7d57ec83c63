/**
 * Drift of a mismatch metric: the least-squares slope of its round means against the round's
 * position (0, 1, 2, ... in run order), in the metric's unit per round, and, inside each round, the
 * least-squares slope of its points against the rollout id (or training step), in unit per record.
 * A slope says the level moved along a straight line fitted to the means; it is not a test that it
 * moved (no interval is given), and a round mean hides what happened inside the round.
 */
import type { MismatchSeries } from "./mismatch-series";

/** An ordinary least-squares line y = intercept + slope * x. */
export interface LeastSquaresLine {
  slope: number;
  intercept: number;
  /** Points fitted. */
  n: number;
}

/**
 * The ordinary least-squares line through (xs[i], ys[i]), two-pass (centred sums, so large x such
 * as step numbers lose no precision); null with fewer than 2 points or when every x is equal.
 * @example leastSquares([0, 1, 2], [1, 3, 5]) // { slope: 2, intercept: 1, n: 3 }
 */
export function leastSquares(xs: readonly number[], ys: readonly number[]): LeastSquaresLine | null {
  const n = xs.length;
  if (n !== ys.length) throw new Error(`invalid points: ${n} x values and ${ys.length} y values`);
  if (n < 2) return null;
  let mx = 0;
  let my = 0;
  for (let i = 0; i < n; i++) {
    mx += xs[i];
    my += ys[i];
  }
  mx /= n;
  my /= n;
  let sxx = 0;
  let sxy = 0;
  for (let i = 0; i < n; i++) {
    const dx = xs[i] - mx;
    sxx += dx * dx;
    sxy += dx * (ys[i] - my);
  }
  if (sxx === 0) return null;
  const slope = sxy / sxx;
  return { slope, intercept: my - slope * mx, n };
}

/** The slope over round means, or why there is none. */
export interface DriftOverRounds {
  /** Unit per round; null when fewer than 2 rounds have a mean. */
  slope: number | null;
  /** Rounds with a mean (the points fitted). */
  rounds: number;
  /** What the slope is, with its numbers, or why there is none. */
  text: string;
}

/** The least-squares slope of the series' round means against the round position (rounds without a mean left out). */
export function driftOverRounds(s: MismatchSeries): DriftOverRounds {
  const xs: number[] = [];
  const ys: number[] = [];
  s.rounds.forEach((r, i) => {
    if (r.mean.mean === null) return;
    xs.push(i);
    ys.push(r.mean.mean);
  });
  const line = leastSquares(xs, ys);
  if (line === null) {
    return {
      slope: null,
      rounds: xs.length,
      text: `${s.name}: no slope over rounds (${xs.length} round${xs.length === 1 ? "" : "s"} with a mean; a slope needs 2)`,
    };
  }
  return {
    slope: line.slope,
    rounds: line.n,
    text: `${s.name}: ${formatSlope(line.slope)} per round, the least-squares slope of ${line.n} round means against the round's position (0 = ${s.rounds[0].round})`,
  };
}

/** One round's slope of its points against the rollout id or step. */
export interface DriftWithinRound {
  round: string;
  /** Unit per rollout batch (or training step); null with fewer than 2 points. */
  slope: number | null;
  points: number;
}

/** Per round, the least-squares slope of the series' points against x. */
export function driftWithinRounds(s: MismatchSeries): DriftWithinRound[] {
  return s.rounds.map((r) => {
    const pts = s.points.filter((p) => p.round === r.round);
    const line = leastSquares(
      pts.map((p) => p.x),
      pts.map((p) => p.value),
    );
    return { round: r.round, slope: line === null ? null : line.slope, points: pts.length };
  });
}

/** A slope with 3 significant digits and its sign, e.g. "+0.00125", "-2.5e-7". */
export function formatSlope(v: number): string {
  const t = Math.abs(v) >= 1e-4 || v === 0 ? Number(v.toPrecision(3)).toString() : v.toExponential(2);
  return v > 0 ? `+${t}` : t;
}
