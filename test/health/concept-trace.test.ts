// streakFlags at the size of a 10^6-row archive: no spread of one value per logged value (which overflows the call stack).
import assert from "node:assert/strict";
import { test } from "node:test";

import { exactZeroRule, streakFlags } from "../../lib/health/concept-trace";

test("streakFlags judges a trace of 300,000 values ending in a 150,000-value streak of exact zeros", () => {
  const n = 300_000;
  const xs = Array.from({ length: n }, (_, i) => i + 1);
  const values = xs.map((x) => (x > 150_000 ? 0 : 1 + (x % 7)));
  const out = streakFlags([{ runId: "r", round: "R0", key: "grad_norm", xs, values }], exactZeroRule(3));
  assert.equal(out.flags.length, 1);
  const f = out.flags[0];
  assert.deepEqual([f.first, f.last, f.count, f.value, f.raisedAt], [150_001, 300_000, 150_000, 0, 150_003]);
  assert.deepEqual(out.evidence, ["R0 r: threshold 0"]);
});
