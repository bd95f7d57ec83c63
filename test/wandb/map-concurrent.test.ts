import assert from "node:assert/strict";
import { test } from "node:test";

import { mapConcurrent } from "../../lib/wandb/map-concurrent";

/** A promise resolved from outside, so tests order events without timers. */
function gate() {
  let open!: () => void;
  const p = new Promise<void>((r) => (open = r));
  return { p, open };
}

test("results in input order, never more than `limit` in flight", async () => {
  let inFlight = 0;
  let maxInFlight = 0;
  const gates = [gate(), gate(), gate(), gate(), gate()];
  const run = mapConcurrent([0, 1, 2, 3, 4], 2, async (i) => {
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    await gates[i].p;
    inFlight--;
    return i * 10;
  });
  for (const i of [1, 0, 3, 2, 4]) {
    gates[i].open();
    await new Promise((r) => setImmediate(r));
  }
  assert.deepEqual(await run, [0, 10, 20, 30, 40]);
  assert.equal(maxInFlight, 2);
});

test("first error aborts the rest, waits for started calls, starts no new ones", async () => {
  const started: number[] = [];
  const settled: number[] = [];
  const slow = gate();
  const run = mapConcurrent([0, 1, 2, 3], 2, async (i, _index, signal) => {
    started.push(i);
    if (i === 1) throw new Error("run 1 failed");
    await slow.p;
    settled.push(i);
    assert.equal(signal.aborted, true, "the others see the abort");
  });
  await new Promise((r) => setImmediate(r));
  slow.open();
  await assert.rejects(run, /^Error: run 1 failed$/);
  assert.deepEqual(started, [0, 1]);
  assert.deepEqual(settled, [0], "the started call finished before the error surfaced");
});

test("invalid concurrency", async () => {
  await assert.rejects(
    mapConcurrent([1], 0, async (x) => x),
    /^Error: invalid concurrency: 0$/,
  );
});
