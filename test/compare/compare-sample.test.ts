/**
 * The bundled sample comparison: data/compare/ and data/compare.json regenerate byte for byte, and
 * comparing them gives byte-identical files for the same seed.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

import { readCompareConfigFile, runComparison } from "../../lib/compare/compare-config";
import { SAMPLE_ARMS, writeCompareSample } from "../../tools/simulate-slime/compare-sample";

const ROOT = path.resolve(__dirname, "../..");
const work = mkdtempSync(path.join(os.tmpdir(), "compare-sample-test-"));
after(() => rmSync(work, { recursive: true, force: true }));

/** Every file under dir, relative, sorted. */
function files(dir: string, rel = ""): string[] {
  return readdirSync(path.join(dir, rel), { withFileTypes: true })
    .flatMap((d) => (d.isDirectory() ? files(dir, path.join(rel, d.name)) : [path.join(rel, d.name)]))
    .sort();
}

test("npx tsx tools/simulate-slime/compare-sample.ts regenerates data/compare/ and data/compare.json byte for byte", async () => {
  await writeCompareSample(work);
  const committed = files(path.join(ROOT, "data/compare"));
  assert.deepEqual(files(path.join(work, "compare")), committed);
  assert.equal(committed.filter((f) => f.endsWith("manifest.json")).length, 7, "2 arms x 3 seeds and the reference");
  for (const f of committed) assert.ok(readFileSync(path.join(work, "compare", f)).equals(readFileSync(path.join(ROOT, "data/compare", f))), f);
  assert.equal(readFileSync(path.join(work, "compare.json"), "utf8"), readFileSync(path.join(ROOT, "data/compare.json"), "utf8"));
});

test("the sample's arms differ in one declared setting and share no seed; the same seed gives byte-identical outputs", async () => {
  assert.equal(SAMPLE_ARMS.length, 2);
  assert.equal(new Set(SAMPLE_ARMS.flatMap((a) => a.seeds)).size, 6);
  const spec = { ...readCompareConfigFile(path.join(ROOT, "data/compare.json")), resamples: 2000 };
  const a = await runComparison(spec, path.join(work, "a"));
  const b = await runComparison(spec, path.join(work, "b"));
  assert.deepEqual(
    a.files.map((f) => f.text),
    b.files.map((f) => f.text),
  );
  assert.deepEqual(a.result.refused, [], "one framework, one N: nothing refused");
  assert.equal(a.result.compare.rows.length, 2 * 11 * 3, "2 arms x 11 concepts x (R0, R1, all)");
});

test("exports/compare/ is what comparing data/compare.json writes, byte for byte (seed 0, 50,000 resamples)", async () => {
  const out = path.join(work, "exports-compare");
  const run = await runComparison(readCompareConfigFile(path.join(ROOT, "data/compare.json")), out);
  assert.equal(run.files.length, 4);
  for (const f of run.files)
    assert.equal(readFileSync(path.join(ROOT, "exports/compare", f.name), "utf8"), f.text, `exports/compare/${f.name} differs from a regeneration`);
});
