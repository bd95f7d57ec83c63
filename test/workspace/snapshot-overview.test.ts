import assert from "node:assert/strict";
import { test } from "node:test";

import { snapshotOverview } from "../../lib/workspace/snapshot-overview";

test("one row per snapshot: time, rows added in all and per run (a rewritten run's loss shown with its sign), lineage and its reason", () => {
  const rows = snapshotOverview({
    ok: true,
    problems: [],
    links: [
      { sequence: 0, takenAt: null, lineage: 1, lineageReason: null, sha256: "a", rowsAdded: { r1: 100, r2: 20 } },
      { sequence: 1, takenAt: "2026-01-01T00:01:00.000Z", lineage: 1, lineageReason: null, sha256: "b", rowsAdded: { r1: 0, r2: 30 } },
      { sequence: 2, takenAt: "2026-01-01T00:02:00.000Z", lineage: 2, lineageReason: "run r1: rewound", sha256: "c", rowsAdded: { r1: -40, r2: 5 } },
    ],
  });
  assert.deepEqual(rows, [
    { snapshot: 0, taken: "(a one-shot fetch)", "rows added": 120, "per run": "r1 +100, r2 +20", lineage: 1, "lineage began because": "" },
    { snapshot: 1, taken: "2026-01-01T00:01:00.000Z", "rows added": 30, "per run": "r1 +0, r2 +30", lineage: 1, "lineage began because": "" },
    { snapshot: 2, taken: "2026-01-01T00:02:00.000Z", "rows added": -35, "per run": "r1 -40, r2 +5", lineage: 2, "lineage began because": "run r1: rewound" },
  ]);
});
