/**
 * Aligning growing runs with a memo (AlignRunsOptions.memo, what a follow's in-memory archive passes)
 * gives exactly the records, issues and notes of a fresh alignment of the same rows, on the real-slime
 * scenarios (restarts, a crash, a resume in place that supersedes rows already aligned, a critic,
 * evals, conflicting values), cut at every 40th of their rows; and the memo is actually used.
 */
import assert from "node:assert/strict";
import { test } from "node:test";

import { alignRuns } from "../../lib/align/align-runs";
import { AlignMemo } from "../../lib/align/slime/pass-memo";
import type { AlignedRuns, RunHistory } from "../../lib/types";
import { keysOf } from "../../lib/values/compact-values";
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

for (const [name, make] of [
  ["every trait, one N", () => scenarioRunHistories(simulateScenario(EVERYTHING_ONE_N))],
  ["N per round", () => scenarioRunHistories(simulateScenario(N_PER_ROUND))],
  ["conflicting values", runsWithConflict],
] as const) {
  for (const compact of [false, true]) {
    test(`memo alignment of growing runs equals a fresh alignment (${name}, ${compact ? "compact" : "plain"} values)`, () => {
      const full = make();
      const memo = new AlignMemo();
      let reused = 0;
      let issues = 0;
      const CUTS = 40;
      for (let cut = 1; cut <= CUTS; cut++) {
        // Both scenarios log with --wandb-always-use-train-step (said, since a short prefix cannot tell). Each run grows to tenth/10 of its rows; the same row objects, as a follow's archive keeps them.
        const grown = full.map((r) => ({ ...r, rows: r.rows.slice(0, Math.ceil((r.rows.length * cut) / CUTS)) }));
        let fresh: AlignedRuns;
        try {
          fresh = alignRuns(
            grown.map((r) => ({ ...r, rows: r.rows.slice() })),
            { compact, alwaysUseTrainStep: true },
          );
        } catch (e) {
          // The first cuts hold no update rows yet (N cannot be inferred): refused alike with the memo.
          assert.throws(() => alignRuns(grown, { compact, alwaysUseTrainStep: true, memo }), { message: (e as Error).message });
          continue;
        }
        const withMemo = alignRuns(grown, { compact, alwaysUseTrainStep: true, memo });
        assert.equal(plain(withMemo), plain(fresh), `at ${cut}/${CUTS} of the rows`);
        reused += full.reduce((n, r) => n + memo.of(r.runId, r.round).reused.updates + memo.of(r.runId, r.round).reused.rollouts, 0);
        issues = fresh.issues.length;
      }
      assert.ok(reused > 100, `the memo was used (${reused} values reused)`);
      // Rows rewritten in place (new objects, one value changed: a new lineage read whole) are built anew, not reused.
      const rewritten = full.map((r) => ({ ...r, rows: r.rows.map((row) => ({ ...row })) }));
      const u = rewritten[0].rows.findIndex((row) => row["train/loss"] !== undefined);
      rewritten[0].rows[u]["train/loss"] += 1;
      const fresh = alignRuns(
        rewritten.map((r) => ({ ...r, rows: r.rows.slice() })),
        { compact, alwaysUseTrainStep: true },
      );
      assert.equal(plain(alignRuns(rewritten, { compact, alwaysUseTrainStep: true, memo })), plain(fresh));
      if (name === "conflicting values") assert.equal(issues, 1, "the conflict is reported once, at every cut that holds both rows");
    });
  }
}
