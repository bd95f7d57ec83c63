/**
 * Conformance on real slime log lines (../shared/real-inputs/slime-logs/, not part of the repository;
 * sources in its README): grep hits quoted in a markdown file, each line `  NNNN:` + ANSI-coloured Ray
 * prefix + logger prefix + `perf 0:` (rollout manager) or `rollout 0:` (trainer), each quoted twice.
 * Skips with a plain message when the folder is absent.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import * as path from "node:path";
import { parseSlimeLogWithStats } from "../../lib/local-logs/parse-slime-log";

const repoRoot = path.resolve(__dirname, "../..");
const FILE = path.resolve(repoRoot, "../shared/real-inputs/slime-logs", "shihaofu2003-slime__tau2-rl_MONITOR.md.excerpt");

test("real slime lines (shihaofu2003/slime MONITOR.md excerpt): 2 manager perf and 2 trainer rollout records, nothing malformed", (t) => {
  if (!existsSync(FILE)) {
    t.skip(`real slime log excerpt not found at ${FILE}: conformance not checked`);
    return;
  }
  const { records, stats, malformed } = parseSlimeLogWithStats(readFileSync(FILE, "utf8"), { runId: "tau2", file: path.basename(FILE) });
  assert.deepEqual(malformed, []);
  assert.equal(stats.metricLines, 4);
  assert.deepEqual(
    records.map((r) => [r.kind, r.id, Object.keys(r.values).length]),
    [
      ["rollout-manager-perf", 0, 23],
      ["rollout", 0, 10],
      ["rollout-manager-perf", 0, 23],
      ["rollout", 0, 10],
    ],
  );
  // Traits: a key with a float-looking suffix, an int among floats, an exponent; the duplicate quotes are equal.
  assert.equal(records[0].values["rollout/dynamic_filter/drop_zero_std_0.0"], 5);
  assert.equal(records[0].values["rollout/response_len/max"], 5478);
  assert.equal(records[1].values["rollout/rewards"], 1.241763432820638e-9);
  assert.deepEqual(records[2].values, records[0].values);
  assert.deepEqual(records[3].values, records[1].values);
});
