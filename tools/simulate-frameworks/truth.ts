/**
 * Ground truth of a framework simulation, computed from the generated `wandb.log` calls (never from
 * the frozen rows): per run the training steps it logged, the ones it owns in the surviving lineage
 * (a later run supersedes an earlier run's rows from its first training step on), the superseded
 * ones, and plain means of a few keys over the owned training rows (NaN excluded and counted).
 */
import { recordStepKey } from "../../lib/registry/profile-axis";
import { profileByName } from "../../lib/registry/profiles";
import type { Framework, FrameworkTruth, FwRun, KeyMean, RunTruth } from "./types";

/** The key that carries the framework step on training rows: the profile's record step key. */
function stepKeyOf(framework: Framework): string {
  return recordStepKey(profileByName(framework));
}

/** Keys whose per-run means the truth holds. */
export const MEAN_KEYS: Record<Framework, string[]> = {
  verl: ["actor/entropy", "actor/pg_clipfrac", "actor/grad_norm", "response_length/mean", "response_length/clip_ratio", "timing_s/gen"],
  openrlhf: [
    "train/actor_grad_norm",
    "train/ppo_clip_ratio",
    "train/ppo_kl",
    "train/rollout/response_length_mean",
    "train/response_length",
    "train/rollout/truncated_rate",
    "train/timing/generation",
  ],
  trl: ["train/entropy", "train/clip_ratio/region_mean", "train/grad_norm", "train/completions/mean_length", "train/completions/clipped_ratio"],
};

/** Plain mean of a key over rows' values (NaN excluded and counted; an absent key is not counted). */
export function keyMean(rows: ReadonlyArray<Record<string, number>>, key: string): KeyMean {
  let sum = 0;
  let n = 0;
  let nan = 0;
  for (const r of rows) {
    if (!(key in r)) continue;
    if (Number.isNaN(r[key])) nan++;
    else {
      sum += r[key];
      n++;
    }
  }
  return { mean: n > 0 ? sum / n : null, n, nan };
}

/** The numeric values of a generated row as a plain object. */
function numericValues(run: FwRun, i: number): Record<string, number> {
  const out: Record<string, number> = {};
  for (const v of run.rows[i].values) if (typeof v.value === "number") out[v.key] = v.value;
  return out;
}

/** Computes the truth from the generated runs. */
export function computeFrameworkTruth(framework: Framework, runs: readonly FwRun[]): FrameworkTruth {
  const meanKeys = MEAN_KEYS[framework];
  const out: RunTruth[] = runs.map((run, i) => {
    let cutoff = Infinity;
    for (let j = i + 1; j < runs.length; j++) cutoff = Math.min(cutoff, runs[j].firstStep);
    const trainIdx = run.rows.map((r, k) => (r.kind === "train" ? k : -1)).filter((k) => k >= 0);
    const trainingSteps = trainIdx.map((k) => run.rows[k].step);
    const ownedIdx = trainIdx.filter((k) => run.rows[k].step < cutoff);
    const owned = ownedIdx.map((k) => numericValues(run, k));
    const means: Record<string, KeyMean> = {};
    for (const key of meanKeys) means[key] = keyMean(owned, key);
    return {
      runId: run.runId,
      round: run.round,
      state: run.state,
      checkpointStep: run.checkpointStep,
      firstStep: run.firstStep,
      lastStep: run.lastStep,
      trainingSteps,
      ownedSteps: ownedIdx.map((k) => run.rows[k].step),
      supersededSteps: trainingSteps.filter((s) => s >= cutoff),
      historyRows: run.rows.length,
      trainingRows: trainIdx.length,
      ownedRows: ownedIdx.length,
      means,
    };
  });
  const lineageSteps: number[] = [];
  for (const r of out) lineageSteps.push(...r.ownedSteps);
  return { framework, stepKey: stepKeyOf(framework), meanKeys: meanKeys.slice(), runs: out, lineageSteps };
}
