import assert from "node:assert/strict";
import { test } from "node:test";

import type { HealthFlag } from "../../lib/health/health-check";
import type { PrintedFlag } from "../../lib/follow/new-flags";
import { flagsFirstSeen } from "../../lib/workspace/flags-first-seen";

function flag(runId: string, first: number, last: number, check = "non_finite"): HealthFlag {
  return { check, severity: "warning", round: "R0", runId, unit: "rollout", first, last, count: 1, key: "rollout/kl", value: NaN, rule: "rule", at: [first] };
}

function printed(f: HealthFlag, snapshot: number, takenAt: string | null): PrintedFlag {
  const { check, severity, runId, round, unit, key, first, last, rule } = f;
  return { check, severity, runId, round, unit, key, first, last, rule, snapshot, takenAt };
}

test("each flag now with the snapshot that first printed it; one no follow printed; one printed but no longer flagged", () => {
  const grown = flag("a", 10, 14);
  const unprinted = flag("b", 3, 3);
  const gone = flag("c", 7, 7, "throughput_drop");
  const rows = flagsFirstSeen({ results: [], flags: [grown, unprinted], recordNoun: "rollout batch" }, [
    printed(flag("a", 10, 11), 4, "2026-01-01T00:04:00.000Z"),
    printed(gone, 2, null),
  ]);
  assert.deepEqual(rows, [
    {
      check: "non_finite",
      run: "a",
      key: "rollout/kl",
      now: "rollout 10..14",
      "when first printed": "rollout 10..11",
      "first seen in snapshot": 4,
      "taken at": "2026-01-01T00:04:00.000Z",
    },
    {
      check: "non_finite",
      run: "b",
      key: "rollout/kl",
      now: "rollout 3..3",
      "when first printed": "",
      "first seen in snapshot": null,
      "taken at": "(not printed by a follow)",
    },
    {
      check: "throughput_drop",
      run: "c",
      key: "rollout/kl",
      now: "(not flagged now)",
      "when first printed": "rollout 7..7",
      "first seen in snapshot": 2,
      "taken at": "",
    },
  ]);
});
