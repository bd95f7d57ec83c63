import { test } from "node:test";
import assert from "node:assert/strict";

import {
  blockPartSums,
  consecutiveFlags,
  FiniteValues,
  finiteMedian,
  medianInPlace,
  mostExtreme,
  partSums,
  roundFlags,
  roundMedians,
  type HealthHit,
} from "../../lib/health/flag-ranges";
import { keyColumns } from "../../lib/values/key-column";

const hit = (round: string, x: number, key = "k", value: number | null = 1): HealthHit => ({ round, runId: `run-${round}`, x, key, value });

test("mostExtreme: ±Infinity first, then the largest magnitude (sign kept), NaN only alone, null for nothing", () => {
  assert.equal(mostExtreme([0.1, -0.3, NaN]), -0.3);
  assert.equal(mostExtreme([NaN, 5, -Infinity]), -Infinity);
  assert.ok(Number.isNaN(mostExtreme([NaN, null]) as number));
  assert.equal(mostExtreme([null]), null);
  assert.equal(mostExtreme([]), null);
});

test("finiteMedian leaves NaN, ±Infinity and absent values out", () => {
  assert.equal(finiteMedian([3, 1, NaN, 2, 10]), 2.5);
  assert.equal(finiteMedian([undefined, Infinity, 4]), 4);
  assert.equal(finiteMedian([NaN]), null);
});

test("consecutiveFlags: runs of x, x+1 within one round and key, in round order then key; roundFlags: one per round and key", () => {
  const hits = [hit("R1", 9), hit("R0", 2), hit("R0", 3), hit("R0", 5), hit("R1", 8), hit("R0", 4, "a"), hit("R0", 4)];
  const flags = consecutiveFlags(hits, ["R0", "R1"]);
  assert.deepEqual(
    flags.map((f) => [f.round, f.key, f.first, f.last, f.count]),
    [
      ["R0", "a", 4, 4, 1],
      ["R0", "k", 2, 5, 4],
      ["R1", "k", 8, 9, 2],
    ],
  );
  assert.deepEqual(
    roundFlags([hit("R0", 2), hit("R0", 7), hit("R1", 8)], ["R0", "R1"]).map((f) => [f.round, f.first, f.last, f.count, f.at]),
    [
      ["R0", 2, 7, 2, [2, 7]],
      ["R1", 8, 8, 1, [8]],
    ],
  );
});

test("finiteMedian takes a Float64Array column (absent keys are NaN there) as it takes an array", () => {
  assert.equal(finiteMedian(Float64Array.of(3, 1, Number.NaN, 2, 10, Number.POSITIVE_INFINITY)), 2.5);
  assert.equal(finiteMedian(new Float64Array(0)), null);
  assert.equal(medianInPlace(Float64Array.of(5, 1, 3)), 3);
});

test("medianInPlace(xs, n) is the median of the first n values and leaves the rest as they were", () => {
  const xs = Float64Array.of(9, -0, 4, 0, 7, 100, -50, 3);
  assert.equal(medianInPlace(xs, 5), 4);
  assert.deepEqual([...xs.subarray(5)], [100, -50, 3]);
  assert.ok(Object.is(medianInPlace(Float64Array.of(-0, 0, 5, -9), 2), 0), "(-0 + 0) / 2");
  assert.equal(medianInPlace(Float64Array.of(1, 2, 3), 0), null);
});

test("FiniteValues keeps finite values only, past its first 1024, and its median is the array median", () => {
  const f = new FiniteValues();
  const all: number[] = [];
  for (let i = 0; i < 3000; i++) {
    const v = i % 7 === 0 ? Number.NaN : i % 11 === 0 ? Number.NEGATIVE_INFINITY : (i * 7919) % 1000;
    f.add(v);
    all.push(v);
  }
  assert.equal(f.length, all.filter(Number.isFinite).length);
  assert.equal(f.median(), finiteMedian(all));
  assert.equal(new FiniteValues().median(), null);
});

test("roundMedians: one median per listed round from its own records; a round listed twice has its first listing's median; records of unlisted rounds do not count", () => {
  const rec = (round: string, v?: number): { round: string; values: Record<string, number> } => ({ round, values: v === undefined ? {} : { k: v } });
  const records = [rec("A", 1), rec("B", 10), rec("A", 3), rec("X", 100), rec("A"), rec("B", Number.NaN), rec("A", 2)];
  assert.deepEqual(roundMedians(records, "k", ["A", "B", "C", "A"]), [2, 10, null, 2]);
});

test("partSums adds the logged parts of each record in parts order from 0 and counts them; an absent part adds nothing", () => {
  const records: { values: Record<string, number> }[] = [{ values: { p: 1, q: 2 } }, { values: { q: 0.25 } }, { values: {} }, { values: { p: Number.NaN } }];
  const sums = partSums(keyColumns(records, ["p", "q"]), records.length, blockPartSums());
  assert.deepEqual([...sums.logged.subarray(0, 4)], [2, 1, 0, 1]);
  assert.deepEqual([...sums.sum.subarray(0, 3)], [3, 0.25, 0]);
  assert.ok(Number.isNaN(sums.sum[3]));
});

test("medianInPlace selects exactly what a sort gives: random, many equal values, -0 before +0, odd and even counts", () => {
  const sorted = (xs: Float64Array) => {
    const s = Float64Array.from(xs).sort();
    const mid = s.length >> 1;
    return s.length % 2 === 1 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
  };
  let seed = 1;
  const rand = () => {
    seed = (seed * 1664525 + 1013904223) >>> 0;
    return seed / 2 ** 32;
  };
  const pools = [
    () => rand() * 100 - 50,
    () => Math.floor(rand() * 3) - 1, // -1, 0, 1: mostly ties
    () => [-0, 0, -0, 0.5, -0.5][Math.floor(rand() * 5)],
    () => (rand() < 0.5 ? -0 : 0),
    () => 0.140625,
  ];
  for (const draw of pools) {
    for (const n of [1, 2, 3, 4, 5, 10, 11, 100, 101, 1000]) {
      const xs = Float64Array.from({ length: n }, draw);
      const want = sorted(xs);
      const got = medianInPlace(Float64Array.from(xs));
      assert.ok(
        Object.is(got, want),
        `n ${n}: ${got} vs ${want} (${Array.from(xs)
          .slice(0, 12)
          .map((x) => (Object.is(x, -0) ? "-0" : x))})`,
      );
    }
  }
  assert.ok(Object.is(medianInPlace(Float64Array.of(-0, 0, 0)), 0));
  assert.ok(Object.is(medianInPlace(Float64Array.of(0, -0, -0)), -0));
  assert.ok(Object.is(medianInPlace(Float64Array.of(0, -0)), 0), "(-0 + 0) / 2");
  assert.ok(Object.is(medianInPlace(Float64Array.of(-0, -0)), -0));
});
