import { test } from "node:test";
import assert from "node:assert/strict";

import { countDraws, randomStream, SeededRandom } from "../../lib/compare/seeded-random";

test("xoshiro128** from state {1, 2, 3, 4} gives the reference implementation's first outputs", () => {
  // The authors' xoshiro128starstar.c compiled with gcc, state {1, 2, 3, 4}, first 8 outputs.
  const expected = [11520, 0, 5927040, 70819200, 2031721883, 1637235492, 1287239034, 3734860849];
  const r = new SeededRandom([1, 2, 3, 4]);
  assert.deepEqual(
    expected.map(() => r.nextUint32()),
    expected,
  );
});

test("the same seed and stream name give the same draws; another seed or name gives others", () => {
  const draws = (seed: number, name: string) => {
    const r = randomStream(seed, name);
    return Array.from({ length: 20 }, () => r.below(1000));
  };
  assert.deepEqual(draws(7, "a"), draws(7, "a"));
  assert.notDeepEqual(draws(7, "a"), draws(8, "a"), "another seed");
  assert.notDeepEqual(draws(7, "a"), draws(7, "b"), "another stream");
});

test("below(n) stays in [0, n) and is close to uniform (chi-square over 200,000 draws)", () => {
  const r = randomStream(1, "uniform");
  const n = 7;
  const counts = new Array(n).fill(0);
  const draws = 200_000;
  for (let i = 0; i < draws; i++) {
    const v = r.below(n);
    assert.ok(Number.isInteger(v) && v >= 0 && v < n, `draw ${v}`);
    counts[v]++;
  }
  const e = draws / n;
  const chi2 = counts.reduce((s, c) => s + (c - e) ** 2 / e, 0);
  // 6 degrees of freedom: P(chi2 > 22.46) = 0.001.
  assert.ok(chi2 < 22.46, `chi2 ${chi2}, counts ${counts}`);
});

test("a seed that is not a non-negative integer, and an all-zero state, are refused", () => {
  assert.throws(() => randomStream(-1, "x"), /invalid seed: -1/);
  assert.throws(() => randomStream(1.5, "x"), /invalid seed: 1.5/);
  assert.throws(() => new SeededRandom([0, 0, 0, 0]), /invalid state/);
});

test("countDraws counts the very draws below(n) makes, in order, and leaves the stream where below(n) would", () => {
  // 2^21 - 1: about one draw in 2,000 is rejected and drawn again, so the reject path runs too.
  for (const n of [1, 2, 3, 50, 1000, 2 ** 21 - 1]) {
    const a = randomStream(11, `draws-${n}`);
    const b = randomStream(11, `draws-${n}`);
    const counts = new Uint32Array(n);
    const draws = 20_000;
    countDraws(a, n, draws, counts);
    const expected = new Uint32Array(n);
    for (let i = 0; i < draws; i++) expected[b.below(n)]++;
    assert.ok(
      counts.every((c, i) => c === expected[i]),
      `n = ${n}`,
    );
    assert.equal(a.nextUint32(), b.nextUint32(), "same state after");
  }
});
