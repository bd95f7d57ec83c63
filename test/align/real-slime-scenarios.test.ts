/**
 * Real slime traits all at once (tools/simulate-slime/scenario.ts): --wandb-always-use-train-step, a
 * critic written by another process with --num-critic-only-steps, async row order, pre-training and
 * periodic evals, rounds restarted from older checkpoints, a run resumed in place, crashes, N changed
 * between rounds, interleaved writers. Every expectation is derived from the simulator's ground truth
 * (what it generated), never from lib/align: records, superseded ids, display numbers and the
 * exported per-round numbers.
 */
import { test } from "node:test";
import assert from "node:assert/strict";

import { alignRuns } from "../../lib/align/align-runs";
import { buildExports } from "../../lib/export/build-exports";
import { csvText } from "../../lib/export/csv-text";
import { packedCsvChunks } from "../../lib/export/packed-csv";
import { unpackTable } from "../../lib/export/packed-table";
import { readExportCsv } from "../../lib/export/read-export-csv";
import { rolloutsTable, updatesTable } from "../../lib/export/record-tables";
import type { AlignedRuns, Archive } from "../../lib/types";
import { crossCheck } from "../../lib/local-logs/cross-check";
import { scenarioManifest } from "../../tools/simulate-slime/scenario-data";
import { scenarioLocalLog } from "../../tools/simulate-slime/scenario-local-log";
import { localOf } from "../local-logs/slime-log-fixture";
import { scenarioRunHistories, simulateScenario, type Scenario, type ScenarioOptions } from "../../tools/simulate-slime/scenario";
import type { ScenarioTruth } from "../../tools/simulate-slime/scenario-truth";
import { compactRuns, packedRuns } from "../fixtures/compact-runs";
import { packedRowsOf } from "../../lib/values/packed-run";
import { EVERYTHING_ONE_N, N_PER_ROUND } from "../fixtures/slime-scenarios";

function archiveOf(s: Scenario): Archive {
  return { dir: "mem", manifest: scenarioManifest(s), runs: scenarioRunHistories(s) };
}

/** Display number of each surviving update, derived from the truth: update slots of every rollout before it in the lineage (its owner's N), plus its position. */
function expectedDisplay(truth: ScenarioTruth): Map<string, number> {
  const nOfRun = new Map(truth.runs.map((r) => [r.runId, r.n] as const));
  const ownerN = new Map<number, number>();
  for (const r of truth.rollouts) ownerN.set(r.rolloutId, nOfRun.get(r.runId)!);
  const ids = [...ownerN.keys()].sort((a, b) => a - b);
  const out = new Map<string, number>();
  for (const u of truth.updates) {
    let before = 0;
    for (const id of ids) if (id < u.rolloutId) before += ownerN.get(id)!;
    out.set(`${u.runId}/${u.trainStep}`, before + u.updateInRollout + 1);
  }
  return out;
}

/** Values without the step keys (the truth keeps the logged metrics; step keys are axes). */
function metrics(values: Record<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const k in values) if (k !== "rollout/step" && k !== "train/step" && k !== "eval/step") out[k] = values[k];
  return out;
}

function mean(xs: number[]): number | null {
  const f = xs.filter((x) => Number.isFinite(x));
  return f.length === 0 ? null : f.reduce((a, b) => a + b, 0) / f.length;
}

function checkAgainstTruth(s: Scenario, aligned: AlignedRuns): void {
  const t = s.truth;
  assert.deepEqual(aligned.issues, [], "no coverage issue: every trait is understood");
  // Flags and N per run.
  assert.deepEqual(
    aligned.mapping.runs.map((a) => [a.runId, a.n, a.alwaysUseTrainStep]),
    t.runs.map((r) => [r.runId, r.n, r.flags.alwaysUseTrainStep]),
  );
  // Surviving rollout records: ids, owners and merged values.
  const key = (r: { runId: string; rollout: number }) => `${r.runId}/${r.rollout}`;
  assert.deepEqual(
    aligned.rollouts.map((r) => [r.round, r.runId, r.rollout]),
    t.rollouts.map((r) => [r.round, r.runId, r.rolloutId]),
  );
  const truthRollouts = new Map(t.rollouts.map((r) => [key({ runId: r.runId, rollout: r.rolloutId }), r] as const));
  for (const r of aligned.rollouts) assert.deepEqual(metrics(r.values), metrics(truthRollouts.get(key(r))!.values), `values of rollout ${key(r)}`);
  // Surviving updates: owner, position, critic merged in, display number in lineage order.
  const display = expectedDisplay(t);
  assert.deepEqual(
    aligned.updates.map((u) => [u.round, u.runId, u.trainStep, u.rollout, u.updateInRollout, u.update]),
    t.updates.map((u) => [u.round, u.runId, u.trainStep, u.rolloutId, u.updateInRollout, display.get(`${u.runId}/${u.trainStep}`)]),
  );
  t.updates.forEach((u, i) =>
    assert.deepEqual(metrics(aligned.updates[i].values), metrics({ ...u.values, ...(u.criticValues ?? {}) }), `values of update ${u.runId}/${u.trainStep}`),
  );
  // Superseded: the same rollout ids and train/steps, replaced by the same run.
  const sup = (kind: "rollout" | "update") =>
    t.superseded
      .filter((x) => x.kind === kind)
      .map((x) => `${x.runId}:${kind === "rollout" ? x.rolloutId : x.trainStep}<-${x.supersededBy.runId}`)
      .sort();
  const mine = (kind: "rollout" | "update") =>
    aligned.superseded.flatMap((x) => (kind === "rollout" ? x.rollouts : x.trainSteps).map((id) => `${x.runId}:${id}<-${x.byRunId}`)).sort();
  assert.deepEqual(mine("rollout"), sup("rollout"));
  assert.deepEqual(mine("update"), sup("update"));
  // Critic-only rollouts and crashed trailing rollouts are notes, not issues.
  const criticOnly = t.runs.flatMap((r) => r.criticOnlyRollouts.filter((id) => r.ownedRollouts.includes(id)));
  assert.equal(
    aligned.notes.some((x) => x.kind === "critic-only"),
    criticOnly.length > 0,
  );
  const survivingEvals = t.evals.filter((e) => !supersededEval(s)(e));
  assert.deepEqual(aligned.evals.map((e) => [e.runId, e.rollout, e.evalStep]).sort(), survivingEvals.map((e) => [e.runId, e.rolloutId, e.evalStep]).sort());
}

/**
 * Evals: every eval row of the truth survives, converted to rollout ids, except those logged from
 * weights a restart discarded (superseded): of an earlier round at or after a later round's first
 * rollout, or of a run resumed in place, logged before the resume at or after the rollout it resumed from.
 */
function supersededEval(s: Scenario): (e: Scenario["truth"]["evals"][number]) => boolean {
  const t = s.truth;
  const starts = t.runs.map((r) => Math.min(...r.ownedRollouts, ...r.supersededRollouts));
  const resumes = s.runs.map((run) => {
    const first = run.rows.find((row) => row.segment === 1);
    if (first === undefined) return null;
    const relogged = t.superseded.filter((x) => x.runId === run.runId && x.supersededBy.runId === run.runId).map((x) => x.rolloutId);
    return { step: first.historyStep, from: Math.min(...relogged) };
  });
  return (e) => {
    const j = t.runs.findIndex((r) => r.runId === e.runId);
    const resume = resumes[j];
    if (resume !== null && e.historyStep < resume.step && e.rolloutId >= resume.from) return true;
    return starts.slice(j + 1).some((st) => e.rolloutId >= st);
  };
}

function checkExportedNumbers(s: Scenario, aligned: AlignedRuns): void {
  const t = s.truth;
  const { files } = buildExports(archiveOf(s), aligned, { workspaceVersion: "t" });
  // Compact rows and records (what npm run export uses) give the same bytes.
  const compactAligned = alignRuns(compactRuns(scenarioRunHistories(s)), { compact: true, releaseRows: true });
  const compact = buildExports(archiveOf(s), compactAligned, { workspaceVersion: "t" });
  files.forEach((f, i) => assert.equal(compact.files[i].text, f.text, `${f.name}: compact rows and records give the same bytes`));
  // Rows still packed (a load worker's), aligned without a view per row: same bytes again.
  const packedRunsIn = packedRuns(scenarioRunHistories(s));
  const packed = buildExports(archiveOf(s), alignRuns(packedRunsIn, { compact: true }), { workspaceVersion: "t" });
  files.forEach((f, i) => assert.equal(packed.files[i].text, f.text, `${f.name}: packed rows give the same bytes`));
  assert.ok(
    packedRunsIn.every((r) => packedRowsOf(r) !== null),
    "alignment read the packed rows without unpacking them",
  );
  // The record tables as packed for the CSV worker give the same bytes too.
  for (const table of [rolloutsTable(compactAligned), updatesTable(compactAligned)]) {
    const packed = table.pack!();
    assert.ok(packed !== null, `${table.name}: compact records pack`);
    assert.equal(csvText(unpackTable(packed)), files.find((f) => f.name === table.name)!.text, `${table.name}: packed for the worker, same bytes`);
    // Chunks share one buffer: each is copied before the next is made.
    const chunks: Buffer[] = [];
    for (const c of packedCsvChunks(packed)) chunks.push(Buffer.from(c));
    assert.equal(Buffer.concat(chunks).toString("utf8"), files.find((f) => f.name === table.name)!.text, `${table.name}: the worker's formatter, same bytes`);
  }
  const summary = readExportCsv(files.find((f) => f.name === "summary.csv")!.text, { file: "summary.csv" });
  t.runs.forEach((run, i) => {
    const row = summary.rows[i];
    const ups = t.updates.filter((u) => u.runId === run.runId);
    const ros = t.rollouts.filter((r) => r.runId === run.runId);
    const at = `round ${run.round}`;
    assert.equal(row.round, run.round);
    assert.equal(row.history_events, run.historyEvents, `${at}: history_events is the W&B row count, superseded rows included`);
    assert.equal(row.rollouts, ros.length, `${at}: rollouts owned`);
    assert.equal(row.updates, ups.length, `${at}: updates owned`);
    const near = (name: string, expected: number | null) => {
      const v = row[name] as number | null;
      if (expected === null) assert.equal(v, null, `${at} ${name}`);
      else assert.ok(v !== null && Math.abs(v - expected) <= 1e-12 * Math.max(1, Math.abs(expected)), `${at} ${name}: ${v} vs ${expected}`);
    };
    near("entropy_mean", mean(ups.map((u) => u.values["train/entropy_loss"])));
    near("grad_norm_mean", mean(ups.map((u) => u.values["train/grad_norm"])));
    near("ppo_kl_first_update_mean", mean(ups.filter((u) => u.updateInRollout === 0).map((u) => u.values["train/ppo_kl"])));
    near("ppo_kl_later_updates_mean", mean(ups.filter((u) => u.updateInRollout > 0).map((u) => u.values["train/ppo_kl"])));
    near("truncated_ratio_mean", mean(ros.filter((r) => "rollout/truncated_ratio" in r.values).map((r) => r.values["rollout/truncated_ratio"])));
  });
  const updatesCsv = readExportCsv(files.find((f) => f.name === "updates.csv")!.text, { file: "updates.csv" });
  assert.equal(updatesCsv.rows.length, t.updates.length, "each surviving update once");
  const superseded = readExportCsv(files.find((f) => f.name === "superseded.csv")!.text, { file: "superseded.csv" });
  const records = superseded.rows.filter((r) => r.record !== "eval");
  assert.equal(records.length, t.superseded.filter((x) => x.kind !== "critic-only-step").length);
  // One row per superseded eval row, at the rollout it evaluated (issue 39, case 8).
  assert.deepEqual(
    superseded.rows
      .filter((r) => r.record === "eval")
      .map((r) => `${r.run_id}:${r.rollout}`)
      .sort(),
    t.evals
      .filter(supersededEval(s))
      .map((e) => `${e.runId}:${e.rolloutId}`)
      .sort(),
  );
}

test("every real slime trait at once, one N: records, superseded ids, display numbers and exported numbers equal the truth", () => {
  const s = simulateScenario(EVERYTHING_ONE_N);
  assert.ok(s.truth.superseded.length > 0 && s.truth.runs.some((r) => r.crashedRollouts.length > 0), "the scenario exercises superseding and crashes");
  const aligned = alignRuns(scenarioRunHistories(s));
  checkAgainstTruth(s, aligned);
  checkExportedNumbers(s, aligned);
  // The first updates' ppo_kl is the ~0 of a fresh batch, not a later update's: no pairing mix-up.
  const first = aligned.updates.filter((u) => u.updateInRollout === 0).map((u) => Math.abs(u.values["train/ppo_kl"]));
  const later = aligned.updates.filter((u) => u.updateInRollout > 0).map((u) => Math.abs(u.values["train/ppo_kl"]));
  assert.ok(Math.max(...first) < Math.min(...later), "position-0 updates keep their ~0 ppo_kl");
});

test("every real slime trait at once with N changed between rounds: N per run, display numbers in lineage order", () => {
  const s = simulateScenario(N_PER_ROUND);
  const aligned = alignRuns(scenarioRunHistories(s));
  assert.deepEqual([...new Set(aligned.mapping.runs.map((a) => a.n))], [3, 2]);
  checkAgainstTruth(s, aligned);
  checkExportedNumbers(s, aligned);
  assert.ok(aligned.notes.some((x) => x.kind === "n-per-run"));
});

test("each trait alone aligns without issues and matches the truth", () => {
  const cases: [string, ScenarioOptions][] = [
    ["always-use-train-step", { n: 3, alwaysUseTrainStep: true, rounds: [{ rollouts: 4 }, { rollouts: 4 }] }],
    ["critic", { critic: true, rounds: [{ rollouts: 4 }] }],
    ["critic-only steps", { critic: true, numCriticOnlySteps: 2, rounds: [{ rollouts: 5 }] }],
    ["async", { async: true, rounds: [{ rollouts: 5 }] }],
    ["evals", { evalInterval: 1, rounds: [{ rollouts: 4 }, { rollouts: 3 }] }],
    ["restart overlap", { restartOverlap: 2, rounds: [{ rollouts: 5 }, { rollouts: 5 }] }],
    ["resume in place", { rounds: [{ rollouts: 6, resumeInPlace: { crashAfter: 3, relog: 2 } }] }],
    ["crash", { rounds: [{ rollouts: 4, crash: true }] }],
    [
      "N per round",
      {
        rounds: [
          { rollouts: 3, n: 2 },
          { rollouts: 3, n: 4 },
        ],
      },
    ],
    ["interleaved writers", { critic: true, interleaveWriters: true, rounds: [{ rollouts: 5 }] }],
    ["2025-10 profile", { profile: "2025-10", rounds: [{ rollouts: 4 }] }],
    ["2025-12 profile", { profile: "2025-12", specDecoding: true, rounds: [{ rollouts: 4 }] }],
    ["2026-05 profile", { profile: "2026-05", rounds: [{ rollouts: 4 }] }],
  ];
  for (const [name, opts] of cases) {
    const s = simulateScenario(opts);
    const aligned = alignRuns(scenarioRunHistories(s));
    try {
      checkAgainstTruth(s, aligned);
      checkExportedNumbers(s, aligned);
    } catch (e) {
      (e as Error).message = `${name}: ${(e as Error).message}`;
      throw e;
    }
  }
});

test("local logs of every trait at once (Ray prefixes, ANSI, tqdm, repeated lines) cross-check exactly with the right pairing", () => {
  for (const opts of [EVERYTHING_ONE_N, N_PER_ROUND]) {
    const s = simulateScenario(opts);
    const aligned = alignRuns(scenarioRunHistories(s));
    const local = localOf(...s.runs.map((run) => ({ runId: run.runId, text: scenarioLocalLog(run, { ansi: true, repeated: true, tqdm: "glued" }) })));
    const check = crossCheck(aligned, local);
    assert.deepEqual([check.mismatches.length, check.onlyInLocal.length, check.unmatched, check.malformed.length], [0, 0, [], 0]);
    assert.equal(check.agree, true, check.verdict);
    assert.ok(
      check.runs.some((r) => r.supersededRecords > 0),
      "lines of superseded records were left out, not compared",
    );
  }
});

test("releaseRows empties each run's rows once aligned and changes nothing in the alignment", () => {
  for (const opts of [EVERYTHING_ONE_N, N_PER_ROUND]) {
    const s = simulateScenario(opts);
    const kept = alignRuns(scenarioRunHistories(s));
    const runs = scenarioRunHistories(s);
    const rows = runs.map((r) => r.rows.length);
    const released = alignRuns(runs, { releaseRows: true });
    assert.deepEqual(released, kept);
    assert.ok(rows.every((n) => n > 0));
    assert.deepEqual(
      runs.map((r) => r.rows.length),
      runs.map(() => 0),
      "every run's rows released",
    );
    assert.deepEqual(
      released.runs.map((r) => r.historyEvents),
      rows,
      "history events still counted",
    );
  }
});
