import assert from "node:assert/strict";
import { test } from "node:test";

import type { HealthFlag } from "../../lib/health/health-check";
import { FlagsSeen } from "../../lib/follow/new-flags";

function flag(first: number, last: number, runId = "r1", check = "zero_grad_norm_streak"): HealthFlag {
  return {
    check,
    severity: "warning",
    round: "R0",
    runId,
    unit: "update",
    first,
    last,
    count: last - first + 1,
    key: "train/grad_norm",
    value: 0,
    rule: "rule",
    at: [],
  };
}

test("a flag is new once; its range growing at later polls does not make it new again; another start, run or check does", () => {
  const seen = new FlagsSeen();
  assert.deepEqual(seen.take([flag(10, 12)]), [flag(10, 12)]);
  assert.deepEqual(seen.take([flag(10, 19)]), [], "same flag, longer range");
  const later = [flag(10, 19), flag(40, 41), flag(10, 12, "r2"), flag(10, 12, "r1", "non_finite")];
  assert.deepEqual(seen.take(later), later.slice(1));
  assert.deepEqual(seen.take(later), []);
});
