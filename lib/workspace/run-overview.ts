/**
 * What each frozen run holds, before any alignment: history events, the ranges of W&B's `_step`
 * and of the profile's step keys (its records' and, where observable, its updates'), and how many
 * distinct values of each it carries.
 */
import { detectProfile } from "../registry/detect-profile";
import type { FrameworkProfile } from "../registry/framework-profile";
import { recordStepKey, updateStepKey } from "../registry/profile-axis";
import type { Archive } from "../types";

/** One run of the overview table. */
export interface RunOverview {
  round: string;
  runId: string;
  state: string;
  historyEvents: number;
  /** Distinct values of the profile's record step key (slime: `rollout/step`). */
  rollouts: number;
  /** Distinct values of its update step key (slime: `train/step`); 0 where updates are not observable. */
  updates: number;
  firstStep: number | null;
  lastStep: number | null;
  firstRolloutStep: number | null;
  lastRolloutStep: number | null;
  firstTrainStep: number | null;
  lastTrainStep: number | null;
}

/** Per run overview of a loaded archive, in run (round) order; `profile` by default the runs' (detectProfile). */
export function runOverview(archive: Archive, profile: FrameworkProfile = detectProfile(archive.runs).profile): RunOverview[] {
  const recordKey = recordStepKey(profile);
  const updateKey = updateStepKey(profile);
  return archive.runs.map((run) => {
    const rollouts = new Set<number>();
    const trains = new Set<number>();
    let firstStep: number | null = null;
    let lastStep: number | null = null;
    for (const row of run.rows) {
      const s = row._step;
      if (s !== undefined) {
        if (firstStep === null || s < firstStep) firstStep = s;
        if (lastStep === null || s > lastStep) lastStep = s;
      }
      const r = row[recordKey];
      if (r !== undefined) rollouts.add(r);
      const t = updateKey === null ? undefined : row[updateKey];
      if (t !== undefined) trains.add(t);
    }
    // A loop, not Math.min(...set): spreading 10^6 values overflows the call stack.
    const range = (s: Set<number>): [number | null, number | null] => {
      let lo: number | null = null;
      let hi: number | null = null;
      for (const v of s) {
        if (lo === null || v < lo) lo = v;
        if (hi === null || v > hi) hi = v;
      }
      return [lo, hi];
    };
    const [firstRolloutStep, lastRolloutStep] = range(rollouts);
    const [firstTrainStep, lastTrainStep] = range(trains);
    return {
      round: run.round,
      runId: run.runId,
      state: run.state,
      historyEvents: run.rows.length,
      rollouts: rollouts.size,
      updates: trains.size,
      firstStep,
      lastStep,
      firstRolloutStep,
      lastRolloutStep,
      firstTrainStep,
      lastTrainStep,
    };
  });
}
