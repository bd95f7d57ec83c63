/**
 * wallClock on a run whose frozen `_step` goes back (a later log of a run resumed in place, kept at the
 * steps verl logged): every step is found, a step held twice at its latest row.
 */
import assert from "node:assert/strict";
import { test } from "node:test";

import { wallClock } from "../../lib/compare/wall-clock";
import type { HistoryRow, RunHistory } from "../../lib/types";

test("a run whose _step goes back at a later log: each step found, a step held twice at its latest row's time", () => {
  // First process: steps 0-3 at t=100..103; the resumed one: steps 2-5 at t=200..203 (as verl's resume in place).
  const rows = [
    ...[0, 1, 2, 3].map((s) => ({ _step: s, _timestamp: 100 + s, _runtime: s })),
    ...[2, 3, 4, 5].map((s, i) => ({ _step: s, _timestamp: 200 + i, _runtime: 50 + i })),
  ] as HistoryRow[];
  const run: RunHistory = { runId: "r", round: "R0", entity: "", project: "", state: "finished", rows };
  const w = wallClock([run]);
  assert.ok(!("none" in w));
  assert.equal(w.origin, 100);
  assert.deepEqual(
    [0, 1, 2, 3, 4, 5].map((s) => w.at("r", [s])),
    [0, 1, 100, 101, 102, 103],
  );
});
