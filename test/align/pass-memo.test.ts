/**
 * Aligning growing runs with a memo (AlignRunsOptions.memo, what a follow's in-memory archive passes)
 * gives exactly the records, issues and notes of a fresh alignment of the same rows, on the real-slime
 * scenarios (restarts, a crash, a resume in place that supersedes rows already aligned, a critic,
 * evals, conflicting values) and on real TRL and verl logs (step profiles), cut at every 40th of
 * their rows; and the memo is actually used.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { test } from "node:test";

import { alignRuns } from "../../lib/align/align-runs";
import type { AlignRunsOptions } from "../../lib/align/align-options";
import { AlignMemo } from "../../lib/align/pass-memo";
import { fetchAndFreeze, type RunSelection } from "../../lib/archive/fetch-and-freeze";
import { loadArchive } from "../../lib/archive/load-archive";
import type { AlignedRuns, RunHistory } from "../../lib/types";
import { keysOf, type ViewPlace, viewPlace } from "../../lib/values/compact-values";
import { scenarioRunHistories, simulateScenario } from "../../tools/simulate-slime/scenario";
import { EVERYTHING_ONE_N, N_PER_ROUND } from "../fixtures/slime-scenarios";

/** Records with their values as plain objects (compact views have no own properties for JSON). */
function plain(aligned: AlignedRuns): string {
  const values = (v: Record<string, number>) => Object.fromEntries(keysOf(v).map((k) => [k, v[k]]));
  const recs = <T extends { values: Record<string, number> }>(xs: readonly T[]) => xs.map((x) => ({ ...x, values: values(x.values) }));
  const { updates, rollouts, evals, criticOnly, superseded, issues, notes, coverage, keyRows, mapping, runs } = aligned;
  return JSON.stringify({
    updates: recs(updates),
    rollouts: recs(rollouts),
    evals: recs(evals),
    criticOnly: recs(criticOnly),
    superseded,
    issues,
    notes,
    coverage,
    keyRows,
    mapping,
    runs,
  });
}

/** The scenario's runs, with two rows of one rollout batch disagreeing on a key of no known family (a conflicting-values issue). */
function runsWithConflict(): RunHistory[] {
  const runs = scenarioRunHistories(simulateScenario(EVERYTHING_ONE_N));
  const rec = alignRuns(runs, { alwaysUseTrainStep: true }).rollouts.find((r) => r.runId === runs[0].runId && r.historySteps.length >= 2)!;
  const rows = runs[0].rows;
  rec.historySteps.slice(0, 2).forEach((step, k) => {
    const i = rows.findIndex((r) => r._step === step);
    rows[i] = { ...rows[i], "custom/x": k + 1 };
  });
  return runs;
}

/**
 * Aligns `full` grown cut by cut (each run to cut/CUTS of its rows, the same row objects, as a follow's
 * archive keeps them) with one memo, each time against a fresh alignment of the same rows; then once
 * more after every row was rewritten in place (new objects, one value changed). Returns the values
 * the memo reused and the issues of the last fresh alignment.
 */
function assertMemoEqualsFresh(full: RunHistory[], opts: AlignRunsOptions, changeKey: string): { reused: number; issues: number; stores: number } {
  const CUTS = 40;
  const memo = new AlignMemo();
  let reused = 0;
  let issues = 0;
  let stores = 0;
  for (let cut = 1; cut <= CUTS; cut++) {
    const grown = full.map((r) => ({ ...r, rows: r.rows.slice(0, Math.ceil((r.rows.length * cut) / CUTS)) }));
    let fresh: AlignedRuns;
    try {
      fresh = alignRuns(
        grown.map((r) => ({ ...r, rows: r.rows.slice() })),
        opts,
      );
    } catch (e) {
      // The first cuts may hold no update rows yet (N cannot be inferred): refused alike with the memo.
      assert.throws(() => alignRuns(grown, { ...opts, memo }), { message: (e as Error).message });
      continue;
    }
    const withMemo = alignRuns(grown, { ...opts, memo });
    assert.equal(plain(withMemo), plain(fresh), `at ${cut}/${CUTS} of the rows`);
    stores = storesOf(withMemo);
    reused += full.reduce((n, r) => n + memo.of(r.runId, r.round).reused.rows + memo.of(r.runId, r.round).reused.rollouts, 0);
    issues = fresh.issues.length;
  }
  // Rows rewritten in place (new objects, one value changed: a new lineage read whole) are built anew, not reused.
  const rewritten = full.map((r) => ({ ...r, rows: r.rows.map((row) => ({ ...row })) }));
  const u = rewritten[0].rows.findIndex((row) => row[changeKey] !== undefined);
  assert.ok(u >= 0, `a row holds ${changeKey}`);
  rewritten[0].rows[u][changeKey] += 1;
  const fresh = alignRuns(
    rewritten.map((r) => ({ ...r, rows: r.rows.slice() })),
    opts,
  );
  assert.equal(plain(alignRuns(rewritten, { ...opts, memo })), plain(fresh), "after rows rewritten in place");
  return { reused, issues, stores };
}

/** How many arena chunks the records' compact values live in. */
function storesOf(aligned: AlignedRuns): number {
  const place: ViewPlace = { store: new Float64Array(0), at: 0, keys: [] };
  const stores = new Set<Float64Array>();
  for (const r of [...aligned.updates, ...aligned.rollouts, ...aligned.evals]) if (viewPlace(r.values, place)) stores.add(place.store);
  return stores.size;
}

for (const [name, make] of [
  ["every trait, one N", () => scenarioRunHistories(simulateScenario(EVERYTHING_ONE_N))],
  ["N per round", () => scenarioRunHistories(simulateScenario(N_PER_ROUND))],
  ["conflicting values", runsWithConflict],
] as const) {
  for (const compact of [false, true]) {
    test(`memo alignment of growing runs equals a fresh alignment (${name}, ${compact ? "compact" : "plain"} values)`, () => {
      // Both scenarios log with --wandb-always-use-train-step (said, since a short prefix cannot tell).
      const { reused, issues, stores } = assertMemoEqualsFresh(make(), { compact, alwaysUseTrainStep: true }, "train/loss");
      assert.ok(reused > 100, `the memo was used (${reused} values reused)`);
      // Kept values are copied into the memo's arena: the records do not hold one chunk per alignment (40 here).
      if (compact) assert.ok(stores <= 3, `records' values in ${stores} chunks`);
      if (name === "conflicting values") assert.equal(issues, 1, "the conflict is reported once, at every cut that holds both rows");
    });
  }
}

/** A real run's archive (test/fixtures/real-runs, written by the framework's own code), frozen from its .wandb logs and loaded as compact rows. */
async function realRuns(
  caseDir: string,
  runs: (meta: { rounds: { wandbRunId: string; wandbFile: string; round: string }[] }) => RunSelection[],
): Promise<RunHistory[]> {
  const dir = path.resolve(__dirname, "../fixtures/real-runs", caseDir);
  const meta = JSON.parse(fs.readFileSync(path.join(dir, "case.json"), "utf8"));
  const out = fs.mkdtempSync(path.join(os.tmpdir(), "pass-memo-"));
  try {
    await fetchAndFreeze({
      entity: "",
      project: "",
      runs: runs(meta).map((r) => ({ ...r, file: path.join(dir, r.file!), resumedIn: r.resumedIn?.map((f) => path.join(dir, f)) })),
      outDir: out,
      env: {},
    });
    return (await loadArchive(out)).runs;
  } finally {
    fs.rmSync(out, { recursive: true, force: true });
  }
}

test("step profiles: memo alignment equals a fresh alignment on real TRL logs resumed in place (same run id) and on verl resumed as a new run", async () => {
  const trl = await realRuns("trl/grpo-resume-same-id", (m) => [
    { runId: m.rounds[0].wandbRunId, round: "R0", file: m.rounds[0].wandbFile, resumedIn: [m.rounds[1].wandbFile] },
  ]);
  const verl = await realRuns("verl/resume", (m) => m.rounds.map((r) => ({ runId: r.wandbRunId, round: r.round, file: r.wandbFile })));
  for (const [runs, key] of [
    [trl, "train/loss"],
    [verl, "actor/entropy"],
  ] as const) {
    for (const compact of [false, true]) {
      const { reused } = assertMemoEqualsFresh(runs, { compact }, key);
      assert.ok(reused > 0, `the memo was used (${reused} values reused)`);
    }
  }
  // The resume in place supersedes rows already aligned at earlier cuts: the equality above held across it.
  assert.ok(alignRuns(trl).superseded.length > 0);
});
