import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { test } from "node:test";

import type { HealthFlag } from "../../lib/health/health-check";
import { FLAGS_PRINTED_FILE, FlagsSeen, readFlagsPrinted } from "../../lib/follow/new-flags";

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

test("the record of printed flags survives a restart: saved into the archive, read back, nothing printed twice", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "flags-seen-"));
  try {
    fs.mkdirSync(path.join(dir, "snapshots"));
    const first = await FlagsSeen.open(dir);
    assert.equal(first.lastAnalysed(), null);
    assert.deepEqual(first.take([flag(10, 12)], { snapshot: 3, takenAt: "2026-01-01T00:03:00.000Z" }), [flag(10, 12)]);
    await first.save(dir);
    const again = await FlagsSeen.open(dir);
    assert.deepEqual(again.take([flag(10, 15), flag(20, 20)], { snapshot: 4, takenAt: null }), [flag(20, 20)]);
    await again.save(dir);
    const record = await readFlagsPrinted(dir);
    assert.deepEqual(
      record.map((f) => [f.first, f.last, f.snapshot, f.takenAt]),
      [
        [10, 12, 3, "2026-01-01T00:03:00.000Z"],
        [20, 20, 4, null],
      ],
    );
    assert.equal((await FlagsSeen.open(dir)).lastAnalysed(), 4, "the last snapshot analysed is recorded too");
    assert.deepEqual(fs.readdirSync(path.join(dir, "snapshots")), ["flags-printed.json"], "no temp file left");
    assert.deepEqual(
      fs.readdirSync(path.dirname(dir)).filter((n) => n.startsWith(`.${path.basename(dir)}.`)),
      [],
      "no lock left",
    );
    fs.writeFileSync(path.join(dir, FLAGS_PRINTED_FILE), "{}");
    await assert.rejects(readFlagsPrinted(dir), /invalid .*flags-printed\.json: not a record of printed flags/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test("an archive no follow printed flags into has an empty record", async () => {
  assert.deepEqual(await readFlagsPrinted(path.join(os.tmpdir(), "no-such-archive-flags")), []);
});
