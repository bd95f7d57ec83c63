/**
 * The statistics core against hand-computed values and against scipy / rliable (the committed
 * expectations of tools/compare-reference/make_expected.py; recomputed live when its venv is present).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import * as path from "node:path";

import { armIntervals, quantileOfSorted } from "../../lib/compare/bootstrap";
import { experimentsNeeded } from "../../lib/compare/experiments-needed";
import { iqm, mean, sampleVariance } from "../../lib/compare/point-estimates";
import { improvementInterval, probabilityOfImprovement } from "../../lib/compare/probability-of-improvement";
import { randomStream } from "../../lib/compare/seeded-random";
import { normalQuantile, twoSidedTPValue } from "../../lib/compare/student-t";
import { welchTest } from "../../lib/compare/welch-test";

const ROOT = path.resolve(__dirname, "../..");
const EXPECTED_FILE = path.join(ROOT, "test/fixtures/compare/expected.json");
const MAKER = path.join(ROOT, "tools/compare-reference/make_expected.py");
/** The reference venv: COMPARE_REFERENCE_PYTHON, else .venv-compare (pip install -r tools/compare-reference/requirements.txt). */
const PYTHON = process.env.COMPARE_REFERENCE_PYTHON ?? path.join(ROOT, ".venv-compare/bin/python");

interface Side {
  n: number;
  mean: number;
  iqm: number;
  iqm_rliable: number;
}
interface Ends {
  low: number;
  high: number;
}
interface Case {
  name: string;
  x: number[];
  y: number[];
  points: {
    x: Side;
    y: Side;
    p_improve: number;
    mann_whitney_u: number;
    mean_diff: number;
    welch_t: number;
    welch_p: number;
    welch_df: number;
    n_needed: number;
  };
  intervals?: { x_mean: Ends; x_iqm: Ends; p_improve?: Ends };
}
interface Expected {
  resamples: number;
  seed: number;
  cases: Case[];
}

/** |a - b| within 1e-12, relative to the larger magnitude when it exceeds 1. */
function close(actual: number, expected: number, what: string): void {
  const scale = Math.max(1, Math.abs(expected));
  assert.ok(Math.abs(actual - expected) <= 1e-12 * scale, `${what}: ${actual} vs ${expected} (diff ${actual - expected})`);
}

function checkPoints(c: Case): void {
  for (const side of ["x", "y"] as const) {
    const v = c[side];
    close(mean(v), c.points[side].mean, `${c.name}: mean of ${side}`);
    close(iqm(v), c.points[side].iqm, `${c.name}: IQM of ${side} (scipy trim_mean)`);
    close(iqm(v), c.points[side].iqm_rliable, `${c.name}: IQM of ${side} (rliable)`);
  }
  close(probabilityOfImprovement(c.x, c.y), c.points.p_improve, `${c.name}: P(X > Y)`);
  close(probabilityOfImprovement(c.x, c.y) * c.x.length * c.y.length, c.points.mann_whitney_u, `${c.name}: U`);
  const w = welchTest(c.x, c.y);
  close(w.meanDiff, c.points.mean_diff, `${c.name}: mean difference`);
  close(w.t!, c.points.welch_t, `${c.name}: Welch t`);
  close(w.df!, c.points.welch_df, `${c.name}: Welch df`);
  close(w.p!, c.points.welch_p, `${c.name}: Welch p`);
  assert.equal(experimentsNeeded(c.x, c.y).n, c.points.n_needed, `${c.name}: n per arm`);
}

const expected = JSON.parse(readFileSync(EXPECTED_FILE, "utf8")) as Expected;

test("point estimates equal scipy's and rliable's to 1e-12 on every committed case", () => {
  assert.ok(expected.cases.length >= 6);
  for (const c of expected.cases) checkPoints(c);
});

/** Mean and standard deviation of each interval end over our seeds 1..K. */
function ourSpread(K: number, ends: (seed: number) => Ends): { low: number; lowSd: number; high: number; highSd: number } {
  const lows: number[] = [];
  const highs: number[] = [];
  for (let s = 1; s <= K; s++) {
    const e = ends(s);
    lows.push(e.low);
    highs.push(e.high);
  }
  const sd = (v: number[]) => Math.sqrt(sampleVariance(v));
  return { low: mean(lows), lowSd: sd(lows), high: mean(highs), highSd: sd(highs) };
}

test("interval ends are within Monte Carlo error of rliable's at 50,000 resamples", () => {
  assert.equal(expected.resamples, 50_000);
  // Both sides draw 50,000 iid resamples of the same values, so one rliable end scatters as one of
  // ours: the Monte Carlo sd is measured as the spread of our ends over K seeds, and rliable's end
  // must lie within 5 sd of the difference (sd * sqrt(1 + 1/K)) of our mean, plus 1e-12 for ends
  // that did not move (a discrete bootstrap distribution).
  const K = 8;
  const within = (ours: { low: number; lowSd: number; high: number; highSd: number }, theirs: Ends, what: string) => {
    for (const end of ["low", "high"] as const) {
      const sd = end === "low" ? ours.lowSd : ours.highSd;
      const tol = 5 * sd * Math.sqrt(1 + 1 / K) + 1e-12 * Math.max(1, Math.abs(theirs[end]));
      assert.ok(Math.abs(ours[end] - theirs[end]) <= tol, `${what} ${end}: ours ${ours[end]} (sd ${sd}) vs rliable ${theirs[end]}, tolerance ${tol}`);
    }
  };
  let poiCases = 0;
  for (const c of expected.cases) {
    const iv = c.intervals!;
    within(
      ourSpread(K, (s) => armIntervals(c.x, randomStream(s, `${c.name}/x`))!.mean),
      iv.x_mean,
      `${c.name}: mean`,
    );
    within(
      ourSpread(K, (s) => armIntervals(c.x, randomStream(s, `${c.name}/x`))!.iqm),
      iv.x_iqm,
      `${c.name}: IQM`,
    );
    if (iv.p_improve === undefined) continue;
    poiCases++;
    within(
      ourSpread(K, (s) => improvementInterval(c.x, c.y, randomStream(s, `${c.name}/px`), randomStream(s, `${c.name}/py`))!),
      iv.p_improve,
      `${c.name}: P(X > Y)`,
    );
  }
  assert.ok(poiCases >= 3, "P(X > Y) intervals checked on at least 3 cases");
});

const live = existsSync(PYTHON)
  ? false
  : `no reference venv at ${PYTHON} (set COMPARE_REFERENCE_PYTHON, or pip install -r tools/compare-reference/requirements.txt into .venv-compare)`;

test("live: the maker recomputes the same point estimates with the installed scipy and rliable", { skip: live }, () => {
  const out = JSON.parse(execFileSync(PYTHON, [MAKER, "--points-only"], { encoding: "utf8" })) as Expected;
  assert.equal(out.cases.length, expected.cases.length);
  for (const c of out.cases) checkPoints(c);
});

test("hand-computed values: IQM trims floor(n/4) per end, ties count 1/2, percentiles interpolate", () => {
  assert.equal(iqm([1, 2, 3, 100]), 2.5, "one value trimmed at each end of 4");
  assert.equal(iqm([5, 1, 3]), 3, "nothing trimmed below 4 values: the mean");
  assert.equal(iqm([1, 2, 3, 4, 5, 6, 7, 8]), 4.5, "2 trimmed at each end of 8");
  assert.equal(probabilityOfImprovement([2, 3], [1, 2]), 0.875, "(1 + 0.5 + 1 + 1) / 4");
  assert.equal(probabilityOfImprovement([1, 1], [1, 1]), 0.5, "all ties");
  assert.equal(probabilityOfImprovement([0], [1]), 0);
  assert.equal(quantileOfSorted(Float64Array.of(1, 2, 3, 4), 0.5), 2.5);
  assert.equal(quantileOfSorted(Float64Array.of(1, 2, 3, 4), 0.025), 1.075);
  assert.equal(sampleVariance([1, 2, 3, 4]), 5 / 3);
  close(normalQuantile(0.975), 1.959963984540054, "z 0.975");
  close(twoSidedTPValue(0, 3), 1, "t = 0");
  // df = 1 is the Cauchy distribution: P(|T| > t) = 1 - 2 atan(t) / pi.
  close(twoSidedTPValue(1e-6, 1), 1 - (2 * Math.atan(1e-6)) / Math.PI, "Cauchy, tiny t");
  close(twoSidedTPValue(3, 1), 1 - (2 * Math.atan(3)) / Math.PI, "Cauchy");
  // df = 2: P(|T| > t) = 1 - t / sqrt(2 + t^2).
  close(twoSidedTPValue(2.5, 2), 1 - 2.5 / Math.sqrt(2 + 6.25), "df 2");
  close(twoSidedTPValue(-2.5, 2), 1 - 2.5 / Math.sqrt(2 + 6.25), "symmetric");
});

test("what must not happen: no p-value without 2 values per arm or without spread, no n for a zero difference", () => {
  assert.equal(welchTest([1], [2, 3]).p, null);
  assert.match(welchTest([1], [2, 3]).why!, /2 values per arm \(1 and 2\)/);
  assert.equal(welchTest([1, 1], [2, 2]).p, null);
  assert.match(welchTest([1, 1], [2, 2]).why!, /no spread/);
  assert.equal(experimentsNeeded([1, 2], [2, 1]).n, null);
  assert.match(experimentsNeeded([1, 2], [2, 1]).why!, /difference of means is 0/);
  assert.equal(armIntervals([], randomStream(1, "e")), null);
  assert.equal(improvementInterval([], [1], randomStream(1, "a"), randomStream(1, "b")), null);
  assert.ok(Number.isNaN(mean([])));
  assert.throws(() => twoSidedTPValue(1, 0), /invalid df: 0/);
  assert.throws(() => normalQuantile(1), /invalid p: 1/);
});

test("the same seed gives identical intervals; another seed moves them only within Monte Carlo error", () => {
  const v = [0.31, 0.35, 0.42, 0.29, 0.5, 0.33];
  const a = armIntervals(v, randomStream(5, "s"), 2000)!;
  const b = armIntervals(v, randomStream(5, "s"), 2000)!;
  assert.deepEqual(a, b);
  const c = armIntervals(v, randomStream(6, "s"), 2000)!;
  assert.notDeepEqual(a, c);
  assert.ok(Math.abs(a.mean.low - c.mean.low) < 0.02);
});
