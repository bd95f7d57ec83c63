/**
 * The verl simulator's options against REAL verl 0.9.1 V0-trainer runs (test/fixtures/real-runs/verl/:
 * plain, val, ckpt, resume, failed, killed): which rows a run logs at which `_step`, the key set of each
 * row (the .wandb history), the key order of each logged dict (own-record.jsonl) and a resumed run's
 * first row. Values are synthetic and not compared. The fixture's data source and reward-function keys are
 * passed as options (`datasets: ["charcount"]`, `rewardExtraInfo: ["score", "acc", "chars"]`), so names
 * are compared as they are. `refPolicy` is not checked: no real run has a reference policy (the CPU
 * fixtures run `use_kl_loss=False`, see tools/real-runs/verl/README.md); the simulator's `actor/kl_loss`,
 * `actor/kl_coef` and `timing_s/ref` follow verl's source only.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";

import type { HistoryRow } from "../../lib/types";
import { readWandbFile } from "../../lib/wandb-file/read-wandb-file";
import { simulateFramework } from "../../tools/simulate-frameworks/simulate";
import { metricKeys } from "../fixtures/metric-keys";
import type { FrameworkOptions, FwRun } from "../../tools/simulate-frameworks/types";

const ROOT = path.resolve(__dirname, "../fixtures/real-runs/verl");
const SKIP = fs.existsSync(ROOT) ? false : `real verl fixtures absent (${ROOT})`;

/** Simulator keys the real runs lack and real keys the simulator lacks: none. */
const EXPECTED_DIFFERENCES: { simOnly: string[]; realOnly: string[] } = { simOnly: [], realOnly: [] };

/** The .wandb history rows of a real case. */
async function realHistory(name: string): Promise<HistoryRow[]> {
  const dir = path.join(ROOT, name);
  const file = fs.readdirSync(dir).find((f) => f.endsWith(".wandb"))!;
  return (await readWandbFile(path.join(dir, file))).rows;
}

/** The dicts verl handed `Tracking.log`, in order: step and keys in dict order. */
function ownRecord(name: string): Array<{ step: number; keys: string[] }> {
  const text = fs.readFileSync(path.join(ROOT, name, "own-record.jsonl"), "utf8");
  return text
    .split("\n")
    .filter(Boolean)
    .map((l) => {
      const r = JSON.parse(l) as { step: number; data: Record<string, unknown> };
      return { step: r.step, keys: Object.keys(r.data) };
    });
}

/** The simulator with the fixtures' names; no planted anomalies, no reference policy (as the fixtures). */
function sim(opts: Partial<FrameworkOptions> & { rounds: FrameworkOptions["rounds"] }): FwRun[] {
  return simulateFramework({
    framework: "verl",
    datasets: ["charcount"],
    rewardExtraInfo: ["score", "acc", "chars"],
    refPolicy: false,
    testFreq: 0,
    valBeforeTrain: false,
    anomalies: [],
    ...opts,
  }).runs;
}

const isVal = (k: string) => k.startsWith("val-");
/** Per row: `_step` and its sorted metric keys. */
const shape = (rows: HistoryRow[]) => rows.map((r) => ({ step: r._step, keys: metricKeys(r).sort() }));
/** Per logged dict: step and keys in order; `timing_per_token_ms/*` sorted in place (verl fills them from a Python set). */
function ordered(rows: Array<{ step: number; keys: string[] }>): Array<{ step: number; keys: string[] }> {
  return rows.map(({ step, keys }) => {
    const perToken = keys.filter((k) => k.startsWith("timing_per_token_ms/")).sort();
    let i = 0;
    return { step, keys: keys.map((k) => (k.startsWith("timing_per_token_ms/") ? perToken[i++] : k)) };
  });
}
const simOrdered = (run: FwRun) => ordered(run.rows.map((r) => ({ step: r.step, keys: r.values.map((v) => v.key) })));

/** Keys of one side missing on the other, over all rows of the cases compared. */
function differences(real: HistoryRow[], simRows: HistoryRow[]): { simOnly: string[]; realOnly: string[] } {
  const r = new Set(real.flatMap(metricKeys));
  const s = new Set(simRows.flatMap(metricKeys));
  return { simOnly: [...s].filter((k) => !r.has(k)).sort(), realOnly: [...r].filter((k) => !s.has(k)).sort() };
}

test("plain (no val, no checkpoint): one row per step at _step = global step, the same keys per row and the same dict order", { skip: SKIP }, async () => {
  const real = await realHistory("plain");
  const [run] = sim({ rounds: [{ steps: 4 }] });
  assert.deepEqual(shape(run.history), shape(real));
  assert.deepEqual(simOrdered(run), ordered(ownRecord("plain")));
  assert.equal(metricKeys(real[0]).length, 100);
  assert.deepEqual(differences(real, run.history), EXPECTED_DIFFERENCES);
});

test("valBeforeTrain + testFreq 2: a val-only row at step 0, val keys merged into steps 2 and 4 (the last); same keys and order", { skip: SKIP }, async () => {
  const real = await realHistory("val");
  const [run] = sim({ rounds: [{ steps: 4 }], valBeforeTrain: true, testFreq: 2 });
  assert.deepEqual(shape(run.history), shape(real));
  assert.deepEqual(simOrdered(run), ordered(ownRecord("val")));
  for (const rows of [real, run.history]) {
    assert.ok(metricKeys(rows[0]).every(isVal), "row 0 holds val keys only");
    assert.deepEqual(
      rows.filter((r) => r._step > 0 && metricKeys(r).some(isVal)).map((r) => r._step),
      [2, 4],
    );
    assert.deepEqual(
      rows.filter((r) => "timing_s/testing" in r).map((r) => r._step),
      [2, 4],
    );
  }
  // The core variable is `acc` (the reward function returns it); `reward`, `score`, `chars` are aux only.
  assert.deepEqual(
    metricKeys(real[0])
      .filter((k) => k.startsWith("val-core/"))
      .sort(),
    ["val-core/charcount/acc/best@2/mean", "val-core/charcount/acc/best@2/std", "val-core/charcount/acc/mean@2"],
  );
  assert.deepEqual(differences(real, run.history), EXPECTED_DIFFERENCES);
});

test("datasets: the val keys are per data source (two sources: each source's keys, then num_turns once)", { skip: SKIP }, async () => {
  const real = metricKeys((await realHistory("val"))[0]).sort();
  const [run] = sim({ rounds: [{ steps: 1 }], valBeforeTrain: true, datasets: ["charcount", "other"] });
  const keys = metricKeys(run.history[0]);
  assert.deepEqual(keys.filter((k) => !k.includes("/other/")).sort(), real);
  assert.deepEqual(
    keys.filter((k) => k.includes("/other/")).sort(),
    real.filter((k) => k.includes("/charcount/")).map((k) => k.replace("/charcount/", "/other/")),
  );
  assert.deepEqual(run.rows[0].values.map((v) => v.key).slice(-3), ["val-aux/num_turns/min", "val-aux/num_turns/max", "val-aux/num_turns/mean"]);
});

test("saveFreq 2 then a resumed run (a new W&B run from global_step_2): ckpt's rows and the resumed run's val-only row at step 2", { skip: SKIP }, async () => {
  const [ckpt, resume] = sim({ rounds: [{ steps: 3 }, { steps: 3 }], restartOverlap: 1, valBeforeTrain: true, testFreq: 2, saveFreq: 2 });
  const realCkpt = await realHistory("ckpt");
  assert.deepEqual(shape(ckpt.history), shape(realCkpt));
  assert.deepEqual(simOrdered(ckpt), ordered(ownRecord("ckpt")));
  assert.deepEqual(
    realCkpt.filter((r) => "timing_s/save_checkpoint" in r).map((r) => r._step),
    [2, 3],
  );
  assert.equal(resume.checkpointStep, 2);
  // resume ran with save_freq -1: the simulator's saveFreq applies to both rounds, so compare without it.
  const noSave = (rows: HistoryRow[]) => shape(rows).map(({ step, keys }) => ({ step, keys: keys.filter((k) => k !== "timing_s/save_checkpoint") }));
  const realResume = await realHistory("resume");
  assert.deepEqual(noSave(resume.history), shape(realResume));
  assert.deepEqual(
    realResume.map((r) => r._step),
    [2, 3, 4, 5],
  );
  for (const rows of [realResume, resume.history]) assert.ok(metricKeys(rows[0]).every(isVal), "the resumed run's first row: val only, at the checkpoint step");
  const [resumeOnly] = sim({ rounds: [{ steps: 2 }, { steps: 3 }], valBeforeTrain: true, testFreq: 2 }).slice(1);
  assert.deepEqual(simOrdered(resumeOnly), ordered(ownRecord("resume")));
  assert.deepEqual(differences([...realCkpt, ...realResume], [...ckpt.history, ...resume.history]), EXPECTED_DIFFERENCES);
});

test("a crashed round (failed: the reward function raised in step 4; killed: SIGKILL after step 6) logs its steps and no final val", {
  skip: SKIP,
}, async () => {
  const [failed] = sim({ rounds: [{ steps: 3, state: "crashed" }] });
  assert.deepEqual(shape(failed.history), shape(await realHistory("failed")));
  assert.deepEqual(simOrdered(failed), ordered(ownRecord("failed")));
  const [killed] = sim({ rounds: [{ steps: 6, state: "crashed" }] });
  assert.deepEqual(simOrdered(killed), ordered(ownRecord("killed")));
  // The .wandb keeps only its complete 32 KiB blocks: a prefix of the logged steps.
  const realKilled = await realHistory("killed");
  assert.deepEqual(shape(killed.history).slice(0, realKilled.length), shape(realKilled));
  const [withVal] = sim({ rounds: [{ steps: 3, state: "crashed" }], testFreq: 2 });
  assert.deepEqual(
    withVal.history.filter((r) => metricKeys(r).some(isVal)).map((r) => r._step),
    [2],
  );
});
