import { test } from "node:test";
import assert from "node:assert/strict";

import { consecutiveFlags, finiteMedian, mostExtreme, roundFlags, type HealthHit } from "../../lib/health/flag-ranges";

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
