// streakFlags at the size of a 10^6-row archive: no spread of one value per logged value (which overflows the call stack).
import assert from "node:assert/strict";
import { test } from "node:test";

import { exactZeroRule, streakFlags } from "../../lib/health/concept-trace";
import { trailingMedian } from "../../lib/health/flag-ranges";

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

test("a rule's `trailing` bound keeps `before` to its window: the same flags and evidence as with every value kept, and a rule of 0 sees none", () => {
  const n = 20_000;
  let seed = 11;
  const next = () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed / 2 ** 31;
  };
  const xs = Float64Array.from({ length: n }, (_, i) => i + 1);
  // Noise around 1 with dips (streaks below half the trailing median), some NaN.
  const values = Float64Array.from({ length: n }, (_, i) => (i % 997 < 5 ? 0.2 : i % 331 === 0 ? Number.NaN : 1 + next()));
  const trace = { runId: "r", round: "R0", key: "k", xs, values };
  const window = 7;
  const rule = (trailing?: number) => {
    const scratch = new Float64Array(window);
    return {
      minLength: 2,
      early: 5,
      side: "below" as const,
      threshold: (_base: number | null, before: readonly number[]) => {
        const recent = trailingMedian(before, window, scratch);
        return recent === null ? null : 0.5 * recent;
      },
      fires: (v: number, th: number) => v < th,
      ...(trailing === undefined ? {} : { trailing }),
    };
  };
  const all = streakFlags([trace], rule());
  assert.ok(all.flags.length > 10, "the dips are flagged");
  assert.deepEqual(streakFlags([trace], rule(window)), all);
  const seen: number[] = [];
  const counting = (_b: number | null, before: readonly number[]) => {
    seen.push(before.length);
    return 0;
  };
  streakFlags([trace], { ...rule(0), threshold: counting });
  assert.deepEqual([...new Set(seen)], [0]);
});
