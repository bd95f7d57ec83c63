/**
 * Conformance on two real `.wandb` files written by other people (../shared/real-inputs/wandb-history/,
 * sources in its README; never copied into the repository): SDK 0.15.5 (old Python writer, `key`
 * items, step.num always 0) and SDK 0.18.7 (wandb-core, `nested_key` items). Row counts and first
 * and last rows as documented there, cross-checked with each run's own wandb-summary.json and console log.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { test } from "node:test";

import { freezeWandbFileRun } from "../../lib/archive/freeze-wandb-file";
import { loadArchive } from "../../lib/archive/load-archive";
import { serializeManifest } from "../../lib/archive/manifest";
import { keysOf } from "../../lib/values/compact-values";
import { readWandbFile } from "../../lib/wandb-file/read-wandb-file";

const REAL = path.resolve(__dirname, "../..", "../shared/real-inputs");
const HISTORY = path.join(REAL, "wandb-history");
const SKIP = fs.existsSync(HISTORY) ? false : `real inputs not present (${HISTORY}); conformance on real .wandb files skipped`;

/** Numeric top-level values of a wandb-summary.json (what the last history row must agree with). */
function summaryFile(name: string): Record<string, unknown> {
  return JSON.parse(fs.readFileSync(path.join(HISTORY, name), "utf8"));
}

test("SDK 0.15.5 (ConceptPPO, old Python writer): 763 rows, _step 0-762 from the _step item, global_step 32768 per step", { skip: SKIP }, async () => {
  const warnings: string[] = [];
  const run = await readWandbFile(path.join(HISTORY, "conceptppo__run-mxaehod4.wandb"), { reporter: { warn: (m) => warnings.push(m) } });
  assert.deepEqual(warnings, []);
  assert.equal(run.sdkVersion, "0.15.5");
  assert.equal(run.runId, "mxaehod4");
  assert.equal(run.project, "ConceptPPO");
  assert.equal(run.entity, "", "an offline-era run record without entity");
  assert.equal(run.state, "finished");
  assert.equal(run.rowCount, 763);
  assert.equal(run.lastStep, 762);
  assert.equal(run.tornTail, null);
  assert.equal(run.recordCounts.history, 763);
  assert.equal(run.recordCounts.tbrecord, 1);
  run.rows.forEach((row, i) => {
    assert.equal(row._step, i, `row ${i} _step`);
    assert.equal(row.global_step, 32768 * (i + 1), `row ${i} global_step`);
  });
  assert.deepStrictEqual(run.rows[0], {
    global_step: 32768,
    _timestamp: 1690076270.4770854,
    "Loss/pi": -0.0006673920433968306,
    "Loss/v": 1.667466402053833,
    "Loss/entropy": 2.700913906097412,
    "Rewards/max_episodes": 11,
    "Rewards/mean_episodes": 1.375,
    "Rewards/min_episodes": 0,
    "Len/max_episodes": 144,
    "Len/mean_episodes": 70.67500305175781,
    "Len/min_episodes": 21,
    _runtime: 14.614774465560913,
    _step: 0,
  });
  const { _wandb, ...summary } = summaryFile("conceptppo__run-mxaehod4__wandb-summary.json");
  assert.deepStrictEqual(run.rows[762], summary, "the last row is the run's wandb-summary.json");
  assert.deepStrictEqual(run.summary, Object.fromEntries(Object.entries(summary).sort(([a], [b]) => (a < b ? -1 : 1))));
});

test("SDK 0.18.7 (T-Lab alignment reward model, wandb-core): 17 rows, _step 0-16, agreeing with the console log and summary", { skip: SKIP }, async () => {
  const run = await readWandbFile(path.join(HISTORY, "tlab-alignment__run-wvk49vqj.wandb"));
  assert.equal(run.sdkVersion, "0.18.7");
  assert.equal(run.runId, "wvk49vqj");
  assert.equal(run.state, "finished");
  assert.equal(run.exitCode, 0);
  assert.equal(run.rowCount, 17);
  assert.equal(run.lastStep, 16);
  assert.deepEqual(run.recordCounts, {
    config: 2,
    exit: 1,
    files: 3,
    header: 1,
    history: 17,
    metric: 6,
    output_raw: 615,
    run: 1,
    stats: 610,
    summary: 40,
    telemetry: 6,
  });
  run.rows.forEach((row, i) => assert.equal(row._step, i));
  // The console printed {'loss': 0.691, 'grad_norm': 0.25362429022789, 'learning_rate': 9.386503067484662e-07, 'epoch': 0.06} first.
  assert.deepStrictEqual(run.rows[0], {
    "train/global_step": 30,
    _timestamp: 1734337901.5644813,
    _runtime: 81.436149057,
    _step: 0,
    "train/loss": 0.691,
    "train/grad_norm": 0.25362429022789,
    "train/learning_rate": 9.386503067484662e-7,
    "train/epoch": 0.06134969325153374,
  });
  // The last row is the trainer's end-of-training log call; its train_runtime etc. went to the summary only.
  assert.deepStrictEqual(run.rows[16], { "train/global_step": 489, _timestamp: 1734339040.5340517, _runtime: 1220.362603724, _step: 16, "train/epoch": 1 });
  const summary = summaryFile("tlab-alignment__run-wvk49vqj__wandb-summary.json");
  for (const [key, value] of Object.entries(summary)) {
    if (key !== "_wandb") assert.equal(run.summary[key], value, `summary ${key}`);
  }
  assert.equal(run.rows[15]["train/loss"], 0.1726, "the console's last loss line");
});

test("SDK 0.15.5 run frozen, then loaded compactly (as npm run export and the notebooks load): the same keys, order and values as a plain load", {
  skip: SKIP,
}, async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "real-compact-"));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  fs.mkdirSync(path.join(dir, "history"));
  const { run: entry } = await freezeWandbFileRun(
    { runId: "mxaehod4", round: "R0", file: path.join(HISTORY, "conceptppo__run-mxaehod4.wandb") },
    dir,
    () => "2026-01-01T00:00:00.000Z",
    {},
  );
  fs.writeFileSync(
    path.join(dir, "manifest.json"),
    serializeManifest({ kind: "wandb-frozen-history", formatVersion: 1, readerVersion: "t", pageSize: 1000, runs: [entry] }),
  );
  const plain = await loadArchive(dir);
  const compact = await loadArchive(dir, {}, { compact: true });
  assert.equal(plain.runs[0].rows.length, 763);
  let cells = 0;
  plain.runs[0].rows.forEach((row, i) => {
    const view = compact.runs[0].rows[i];
    assert.deepEqual(keysOf(view), Object.keys(row), `row ${i}: keys`);
    for (const k of Object.keys(row)) {
      assert.ok(Object.is(view[k], row[k]), `row ${i} ${k}`);
      cells++;
    }
  });
  assert.equal(cells, 9919);
});
