/**
 * Archives loaded on worker threads (lib/compare/compare-threads.ts) are the very experiments the
 * main thread loads, warnings included; a failing archive is named, as on the main thread.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import * as path from "node:path";

import { compareAxis, ROUND_AXIS } from "../../lib/compare/compare-axis";
import { loadExperiment } from "../../lib/compare/experiment";
import { compareArms } from "../../lib/compare/compare-arms";
import { CompareThreads, loadExperiments, WORKER_MIN_BYTES } from "../../lib/compare/compare-threads";

const ROOT = path.resolve(__dirname, "../..");
const archives = ["n8-s1", "n8-s2", "n16-s4"].map((d) => ({ dir: path.join(ROOT, "data/compare", d), label: `compare/${d}` }));

test("on worker threads (forced) each experiment equals its main-thread load, round labels and a binned axis", async () => {
  for (const axis of [ROUND_AXIS, compareAxis("wall", 600)]) {
    let progress = 0;
    const progressed = (task: string, done: number) => {
      if (task === "load archives") progress = done;
    };
    const pooled = await loadExperiments(archives, axis, { progress: progressed }, { minBytes: 0 });
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

test("the bootstrap on worker threads (recorded, computed there, replayed) gives the very rows compareArms computes here", async () => {
  const threads = CompareThreads.forArchives(archives, {}, 0);
  try {
    assert.ok(threads.active, "two threads started");
    const experiments = await threads.loadExperiments(archives, ROUND_AXIS);
    const arms = [
      { name: "a", experiments: experiments.slice(0, 2) },
      { name: "b", experiments: experiments.slice(2) },
    ];
    const opts = { seed: 3, resamples: 2000 };
    const there = await threads.compareArms(arms, experiments[0], opts);
    const here = compareArms(arms, experiments[0], opts);
    assert.deepEqual(there, here);
    assert.ok(
      here.improvement.rows.some((r) => typeof r[5] === "number"),
      "some P(improvement) interval computed",
    );
  } finally {
    await threads.close();
  }
});
