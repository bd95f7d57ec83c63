/**
 * Ground truth of a scenario (scenario.ts), computed from the generation records, never from the
 * history rows and never with lib/align: which rollouts and updates survive, who supersedes whom,
 * and the display numbering of the surviving lineage. Plain arrays, easy to aggregate in tests.
 *
 * Superseding (issue 14, item 5): processes are taken in the order they ran (round, then segment of a
 * run resumed in place); when a process logs a rollout id that an earlier process logged, the earlier
 * record of that rollout and its updates (actor and critic steps) are superseded by the later one.
 *
 * Display update numbers: with one N for every run, `trainStep - N * r0 + 1` (r0 = the smallest
 * surviving rollout id, as today's axis mapping); when runs differ in N, the 1-based position in the
 * surviving lineage (rollout id, then step in the batch). `lineageOrdinal` is always the position.
 */
import type { GenEval, GenRollout, ScenarioFlags, ScenarioRow } from "./scenario-types";

/** Values of a row without its step key. */
function valuesOf(row: ScenarioRow, ...skip: string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const v of row.values) if (!skip.includes(v.key)) out[v.key] = v.value;
  return out;
}

/** A surviving rollout record: all its rows merged (manager, trainer rollout, multi_turn, passrate, perf). */
export interface TruthRollout {
  round: string;
  runId: string;
  rolloutId: number;
  /** The `rollout/step` value logged (rollout_id * N with always-use-train-step). */
  loggedRolloutStep: number;
  historySteps: number[];
  /** A crashed round's trailing rollout: manager row only. */
  crashed: boolean;
  /** Below `--num-critic-only-steps`: manager row and critic steps only. */
  criticOnly: boolean;
  /** Logged keys without `rollout/step`. */
  values: Record<string, number>;
}

/** A surviving actor update (optimizer step), with the critic's row of the same train/step if any. */
export interface TruthUpdate {
  round: string;
  runId: string;
  rolloutId: number;
  trainStep: number;
  /** 0-based position in the rollout batch (step_id). */
  updateInRollout: number;
  displayUpdate: number;
  /** 1-based position in the surviving lineage. */
  lineageOrdinal: number;
  historyStep: number;
  criticHistoryStep: number | null;
  /** The actor's `train/*` values without `train/step`. */
  values: Record<string, number>;
  /** The critic's `train/critic-*` values, or null without a critic. */
  criticValues: Record<string, number> | null;
}

/** A surviving critic step of a critic-only rollout (no actor row). */
export interface TruthCriticOnlyStep {
  round: string;
  runId: string;
  rolloutId: number;
  trainStep: number;
  historyStep: number;
  values: Record<string, number>;
}

/** A record a later process replaced. */
export interface TruthSuperseded {
  round: string;
  runId: string;
  kind: "rollout" | "update" | "critic-only-step";
  rolloutId: number;
  /** `train/step` of an update, null for a rollout. */
  trainStep: number | null;
  historySteps: number[];
  supersededBy: { round: string; runId: string };
}

/** One eval row (kept as an eval record, whatever its eval/step). */
export interface TruthEval {
  round: string;
  runId: string;
  rolloutId: number;
  /** The `eval/step` value logged. */
  evalStep: number;
  kind: "pre-train" | "periodic";
  historyStep: number;
  values: Record<string, number>;
}

/** Run facts the truth needs. */
export interface TruthRunInput {
  round: string;
  runId: string;
  state: string;
  n: number;
  flags: ScenarioFlags;
  historyEvents: number;
}

/** Per-run facts. */
export interface TruthRun extends TruthRunInput {
  /** Rollout ids whose surviving record this run owns, ascending. */
  ownedRollouts: number[];
  ownedUpdates: number;
  supersededRollouts: number[];
  supersededTrainSteps: number[];
  /** Rollouts this run logged with a manager row only because it crashed (surviving or not). */
  crashedRollouts: number[];
  criticOnlyRollouts: number[];
  evalSteps: number[];
}

/** The whole truth. */
export interface ScenarioTruth {
  displayRule: "formula" | "lineage-order";
  /** r0 of the formula: the smallest surviving rollout id. */
  r0: number;
  runs: TruthRun[];
  rollouts: TruthRollout[];
  updates: TruthUpdate[];
  criticOnlySteps: TruthCriticOnlyStep[];
  superseded: TruthSuperseded[];
  evals: TruthEval[];
}

/** Computes the truth from the generated rollouts and evals (in the order their processes ran). */
export function computeScenarioTruth(runs: TruthRunInput[], rollouts: GenRollout[], evals: GenEval[]): ScenarioTruth {
  const owner = new Map<number, GenRollout>();
  const superseded: TruthSuperseded[] = [];
  const order = rollouts.slice().sort((a, b) => a.roundIndex - b.roundIndex || a.segment - b.segment);
  for (const g of order) {
    const prev = owner.get(g.rolloutId);
    if (prev) superseded.push(...supersededRecords(runs, prev, g));
    owner.set(g.rolloutId, g);
  }
  const surviving = [...owner.values()].sort((a, b) => a.rolloutId - b.rolloutId);
  const r0 = surviving.length > 0 ? surviving[0].rolloutId : 0;
  const ns = new Set(runs.map((r) => r.n));
  const displayRule = ns.size <= 1 ? "formula" : "lineage-order";
  const truthRollouts: TruthRollout[] = [];
  const updates: TruthUpdate[] = [];
  const criticOnlySteps: TruthCriticOnlyStep[] = [];
  for (const g of surviving) {
    const run = runs[g.roundIndex];
    const rows = [g.manager, ...g.trainer];
    let values: Record<string, number> = {};
    for (const x of rows) values = { ...values, ...valuesOf(x, "rollout/step") };
    truthRollouts.push({
      round: run.round,
      runId: run.runId,
      rolloutId: g.rolloutId,
      loggedRolloutStep: g.manager.values[g.manager.values.length - 1].value,
      historySteps: rows.map((x) => x.historyStep).sort((a, b) => a - b),
      crashed: g.crashed,
      criticOnly: g.criticOnly,
      values,
    });
    if (g.criticOnly) {
      for (const c of g.criticSteps) {
        criticOnlySteps.push({
          round: run.round,
          runId: run.runId,
          rolloutId: g.rolloutId,
          trainStep: c.trainStep!,
          historyStep: c.historyStep,
          values: valuesOf(c, "train/step"),
        });
      }
    }
    g.actorSteps.forEach((a, stepId) => {
      const c = g.criticSteps.find((x) => x.trainStep === a.trainStep) ?? null;
      const ordinal = updates.length + 1;
      updates.push({
        round: run.round,
        runId: run.runId,
        rolloutId: g.rolloutId,
        trainStep: a.trainStep!,
        updateInRollout: stepId,
        displayUpdate: displayRule === "formula" ? a.trainStep! - run.n * r0 + 1 : ordinal,
        lineageOrdinal: ordinal,
        historyStep: a.historyStep,
        criticHistoryStep: c ? c.historyStep : null,
        values: valuesOf(a, "train/step"),
        criticValues: c ? valuesOf(c, "train/step") : null,
      });
    });
  }
  const truthEvals: TruthEval[] = evals.map((e) => ({
    round: runs[e.roundIndex].round,
    runId: runs[e.roundIndex].runId,
    rolloutId: e.rolloutId,
    evalStep: e.row.values[e.row.values.length - 1].value,
    kind: e.kind,
    historyStep: e.row.historyStep,
    values: valuesOf(e.row, "eval/step"),
  }));
  const truthRuns: TruthRun[] = runs.map((run, k) => {
    const mine = order.filter((g) => g.roundIndex === k);
    const lost = superseded.filter((s) => s.runId === run.runId);
    return {
      ...run,
      ownedRollouts: truthRollouts.filter((x) => x.runId === run.runId).map((x) => x.rolloutId),
      ownedUpdates: updates.filter((u) => u.runId === run.runId).length,
      supersededRollouts: lost.filter((s) => s.kind === "rollout").map((s) => s.rolloutId),
      supersededTrainSteps: lost.filter((s) => s.kind !== "rollout").map((s) => s.trainStep!),
      crashedRollouts: mine.filter((g) => g.crashed).map((g) => g.rolloutId),
      criticOnlyRollouts: uniq(mine.filter((g) => g.criticOnly).map((g) => g.rolloutId)),
      evalSteps: truthEvals.filter((e) => e.runId === run.runId).map((e) => e.evalStep),
    };
  });
  return { displayRule, r0, runs: truthRuns, rollouts: truthRollouts, updates, criticOnlySteps, superseded, evals: truthEvals };
}

/** The records of `prev` that `next` (a later process logging the same rollout id) supersedes. */
function supersededRecords(runs: TruthRunInput[], prev: GenRollout, next: GenRollout): TruthSuperseded[] {
  const run = runs[prev.roundIndex];
  const by = { round: runs[next.roundIndex].round, runId: runs[next.roundIndex].runId };
  const base = { round: run.round, runId: run.runId, rolloutId: prev.rolloutId, supersededBy: by };
  const out: TruthSuperseded[] = [
    { ...base, kind: "rollout", trainStep: null, historySteps: [prev.manager, ...prev.trainer].map((x) => x.historyStep).sort((a, b) => a - b) },
  ];
  for (const a of prev.actorSteps) {
    const c = prev.criticSteps.find((x) => x.trainStep === a.trainStep);
    out.push({ ...base, kind: "update", trainStep: a.trainStep, historySteps: c ? [a.historyStep, c.historyStep].sort((x, y) => x - y) : [a.historyStep] });
  }
  if (prev.criticOnly) for (const c of prev.criticSteps) out.push({ ...base, kind: "critic-only-step", trainStep: c.trainStep, historySteps: [c.historyStep] });
  return out;
}

function uniq(xs: number[]): number[] {
  return xs.filter((x, i) => xs.indexOf(x) === i);
}
