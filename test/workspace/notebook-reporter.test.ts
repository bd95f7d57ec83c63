import { test } from "node:test";
import assert from "node:assert/strict";
import { notebookReporter } from "../../lib/workspace/notebook-reporter";

test("short tasks print nothing; long tasks print throttled lines and their completion", (t) => {
  let now = 1000;
  t.mock.method(Date, "now", () => now);
  const lines: string[] = [];
  const r = notebookReporter({ everyMs: 1000, out: (l) => lines.push(l), err: (l) => lines.push(l) });
  r.progress("quick", 0, 2);
  now += 10;
  r.progress("quick", 2, 2);
  assert.deepEqual(lines, []);
  r.progress("slow", 0, 100);
  now += 1500;
  r.progress("slow", 40, 100);
  now += 200;
  r.progress("slow", 50, 100);
  now += 900;
  r.progress("slow", 90, null);
  r.progress("slow", 100, 100);
  assert.deepEqual(lines, ["slow: 40 / 100", "slow: 90", "slow: 100 / 100"]);
});

test("warnings are counted and printed", () => {
  const lines: string[] = [];
  const r = notebookReporter({ out: (l) => lines.push(l), err: (l) => lines.push(l) });
  r.warn("run a train/step 4: train/grad_norm is NaN");
  r.info("working offline");
  assert.deepEqual(r.warnings, ["run a train/step 4: train/grad_norm is NaN"]);
  assert.deepEqual(lines, ["warning: run a train/step 4: train/grad_norm is NaN", "working offline"]);
});

test("warnings beyond maxWarnings are counted and kept, not printed (a kernel drops a flood of output)", () => {
  const err: string[] = [];
  const r = notebookReporter({ maxWarnings: 2, out: () => {}, err: (l) => err.push(l) });
  for (let i = 0; i < 5; i++) r.warn(`w${i}`);
  assert.deepEqual(err, ["warning: w0", "warning: w1", "warning: more warnings follow, not printed (counted: see reporter.warnings)"]);
  assert.deepEqual(r.warnings, ["w0", "w1", "w2", "w3", "w4"]);
});
