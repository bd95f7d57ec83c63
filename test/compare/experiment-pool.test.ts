/**
 * Archives loaded on worker threads (lib/compare/experiment-pool.ts) are the very experiments the
 * main thread loads, warnings included; a failing archive is named, as on the main thread.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import * as path from "node:path";

import { compareAxis, ROUND_AXIS } from "../../lib/compare/compare-axis";
import { loadExperiment } from "../../lib/compare/experiment";
import { loadExperiments, WORKER_MIN_BYTES } from "../../lib/compare/experiment-pool";

const ROOT = path.resolve(__dirname, "../..");
const archives = ["n8-s1", "n8-s2", "n16-s4"].map((d) => ({ dir: path.join(ROOT, "data/compare", d), label: `compare/${d}` }));

test("on worker threads (forced) each experiment equals its main-thread load, round labels and a binned axis", async () => {
  for (const axis of [ROUND_AXIS, compareAxis("wall", 600)]) {
    let progress = 0;
    const pooled = await loadExperiments(archives, axis, { progress: (task, done) => task === "load archives" && (progress = done) }, { minBytes: 0 });
    const here = await Promise.all(archives.map((a) => loadExperiment(a.dir, {}, a.label, axis)));
    assert.deepEqual(pooled, here, axis.name);
    assert.equal(progress, archives.length);
  }
  assert.ok(WORKER_MIN_BYTES > 10 * 2 ** 20, "the bundled sample (a few hundred kB) loads on the main thread");
});

test("a failing archive on a worker thread refuses the comparison, naming it", async () => {
  await assert.rejects(
    loadExperiments([...archives, { dir: path.join(ROOT, "no/such/archive"), label: "no/such/archive" }], ROUND_AXIS, {}, { minBytes: 0 }),
    /refusing to compare no\/such\/archive: .*manifest\.json/,
  );
});
