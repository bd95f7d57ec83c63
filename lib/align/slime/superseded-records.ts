/** Superseded rows as records and notes (which run's logging replaced which rows). Internal to lib/align/slime. */
import type { AlignmentNote, SupersededRecords } from "../../types";
import { namedRanges } from "../axis-report";
import { runUpdateNumber } from "./axis-formulas";
import { CODE_EVAL, CODE_OPTIMIZER_UPDATE, CODE_ROLLOUT_MANAGER, CODE_TRAINER_PERF, CODE_TRAINER_ROLLOUT } from "./key-flags";
import type { RunRows } from "./slime-records";
import { LIVE } from "./supersede";

const UPDATE = CODE_OPTIMIZER_UPDATE;
const MANAGER = CODE_ROLLOUT_MANAGER;
const TRAINER_ROLLOUT = CODE_TRAINER_ROLLOUT;
const TRAINER_PERF = CODE_TRAINER_PERF;
const EVAL = CODE_EVAL;

/**
 * Run j's superseded rows grouped by the run replacing them (in run order): read from its rows'
 * kinds, steps and marks, and only the other runs' axes, so it is made as soon as run j is aligned.
 */
export function supersededRecords(per: RunRows[], j: number): SupersededRecords[] {
  const out: SupersededRecords[] = [];
  const { scan, axis, by, rollouts: ids } = per[j];
  const groups = new Map<number, { rollouts: Set<number>; steps: Set<number>; evals: number[]; rows: number }>();
  for (let i = 0; i < by.length; i++) {
    const k = by[i];
    if (k === LIVE) continue;
    let g = groups.get(k);
    if (g === undefined) {
      g = { rollouts: new Set(), steps: new Set(), evals: [], rows: 0 };
      groups.set(k, g);
    }
    g.rows++;
    const c = scan.codes[i];
    if (c === UPDATE) g.steps.add(scan.steps[i]);
    else if (c === MANAGER || c === TRAINER_ROLLOUT || c === TRAINER_PERF) g.rollouts.add(ids[i]);
    else if (c === EVAL) g.evals.push(ids[i]);
  }
  for (const k of [...groups.keys()].sort((a, b) => a - b)) {
    const g = groups.get(k)!;
    const byRun = per[k].axis;
    const rolloutIds = [...g.rollouts].sort((a, b) => a - b);
    const trainSteps = [...g.steps].sort((a, b) => a - b);
    const updates = trainSteps.map((t) => runUpdateNumber(axis, t));
    const how =
      k === j
        ? `re-logged by the same run after a restart (resumed in place)`
        : `replaced by round ${byRun.round} (run ${byRun.runId}), which starts at rollout ${byRun.firstRollout}`;
    out.push({
      runId: axis.runId,
      round: axis.round,
      byRunId: byRun.runId,
      byRound: byRun.round,
      rollouts: rolloutIds,
      updates,
      trainSteps,
      evals: g.evals.length,
      evalRollouts: g.evals.sort((a, b) => a - b),
      rows: g.rows,
      message:
        `run ${axis.runId} (round ${axis.round}): ${g.rows} row(s) superseded, ${how}: ` +
        `${rolloutIds.length > 0 ? namedRanges(rolloutIds, "rollout") : "no rollout rows"}, ` +
        `${updates.length > 0 ? namedRanges(updates, "update") : "no updates"}${g.evals.length > 0 ? `, ${g.evals.length} eval row(s)` : ""}; excluded from every record, mean and export`,
    });
  }
  return out;
}

/** Notes on the flag reading, N per run and superseded records. */
export function runNotes(per: RunRows[], superseded: SupersededRecords[], notes: AlignmentNote[]): void {
  const ns = new Set(per.map((p) => p.axis.n));
  for (const { axis } of per) {
    if (axis.alwaysUseTrainStep === true) {
      notes.push({
        runId: axis.runId,
        round: axis.round,
        kind: "always-use-train-step",
        step: null,
        message: `run ${axis.runId} (round ${axis.round}): rollout/step and eval/step were logged as rollout_id * ${axis.n} (slime's --wandb-always-use-train-step) and are read as rollout ids divided by ${axis.n}; evidence: ${axis.flagEvidence}`,
      });
    }
    if (ns.size > 1) {
      notes.push({
        runId: axis.runId,
        round: axis.round,
        kind: "n-per-run",
        step: null,
        message: `run ${axis.runId} (round ${axis.round}): N = ${axis.n} updates per rollout batch (N differs between runs); ${axis.formula}`,
      });
    }
  }
  for (const s of superseded)
    notes.push({ runId: s.runId, round: s.round, kind: "superseded", step: s.rollouts.length > 0 ? s.rollouts[0] : null, message: s.message });
}
