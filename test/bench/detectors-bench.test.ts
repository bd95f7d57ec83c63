/**
 * `npm run bench -- detectors`: the Detectors section of the results file is written in place (other
 * sections kept, a second run replaces it rather than adding one), and the measured-scores module it
 * writes is the one lib/ holds (the committed corpus has not changed since it was measured).
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { test } from "node:test";

import { runDetectorsBench } from "../../bench/detectors-bench";

const ROOT = path.resolve(__dirname, "../..");
const SKIP = fs.existsSync(path.join(ROOT, "test/fixtures/real-runs/faults")) ? false : "fault corpus absent";

test("the Detectors section replaces itself and keeps the others; the scores module equals lib/'s", { skip: SKIP }, async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "detectors-bench-"));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const out = path.join(dir, "RESULTS.md");
  const scores = path.join(dir, "scores.ts");
  fs.writeFileSync(
    out,
    "# Results\n\n## Fetch\n\nfetch numbers\n\n## Detectors: health checks on real runs with injected failures\n\nold\n\n## Later\n\nlater numbers\n",
  );
  const write = process.stdout.write.bind(process.stdout);
  process.stdout.write = (() => true) as typeof process.stdout.write;
  try {
    await runDetectorsBench(["--out", out, "--scores", scores]);
    await runDetectorsBench(["--out", out, "--scores", scores]);
  } finally {
    process.stdout.write = write;
  }
  const text = fs.readFileSync(out, "utf8");
  assert.equal(text.split("## Detectors:").length, 2, "one Detectors section");
  assert.ok(text.startsWith("# Results\n\n## Fetch\n\nfetch numbers\n\n## Detectors:"));
  assert.ok(text.endsWith("## Later\n\nlater numbers\n"));
  assert.ok(!text.includes("\nold\n"));
  assert.match(text, /### Split: test \(\d+ runs, \d+ healthy\)/);
  assert.equal(fs.readFileSync(scores, "utf8"), fs.readFileSync(path.join(ROOT, "lib/health/measured-scores-data.ts"), "utf8"));
});
