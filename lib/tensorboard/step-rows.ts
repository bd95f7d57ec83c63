/**
 * A TensorBoard run's rows as a step profile reads W&B rows. TensorBoard keeps one value per (tag,
 * step), so the frozen run has one row per step with every logging call of that step merged; W&B has
 * one row per call. The profile's `tensorboard` declaration (lib/registry/framework-profile.ts) says
 * which key the event step stands for and which calls are logged apart at a step; this gives each
 * training row the step key and splits those calls (and the run totals of `summaryKeys`) back into
 * rows of their own, placed by `_step`, so that rows get the roles they have in W&B (training step,
 * evaluation, run totals).
 */
import type { FrameworkProfile } from "../registry/framework-profile";
import { stepAxisOf } from "../registry/profile-axis";
import type { HistoryRow, RunHistory } from "../types";
import { keysOf } from "../values/compact-values";

/**
 * `run` as W&B-shaped rows for `profile` when it was read from TensorBoard (`sourceKind`), else `run`
 * itself. Throws for a profile whose TensorBoard runs cannot be aligned (no step key), with its reason.
 * @example tensorboardAsLogged(archive.runs[0], TRL_PROFILE).rows // train/global_step = _step; eval/* and totals in rows of their own
 */
export function tensorboardAsLogged(run: RunHistory, profile: FrameworkProfile): RunHistory {
  if (run.sourceKind !== "tensorboard") return run;
  const tb = profile.tensorboard;
  // One row per step reads only as records of a step axis; a batch axis needs the rows W&B has apart.
  const axis = stepAxisOf(profile);
  if (tb.stepKey === null || axis === null) {
    throw new Error(
      `run ${run.runId} (round ${run.round}) was read from TensorBoard, which ${profile.label} runs cannot be aligned from: the step is ${tb.step}`,
    );
  }
  const stepKey = tb.stepKey;
  const totals = new Set(axis.summaryKeys);
  const rows: HistoryRow[] = [];
  for (const row of run.rows) {
    const step: HistoryRow = {};
    const apart: HistoryRow[] = tb.separateCalls.map(() => ({}));
    const total: HistoryRow = {};
    for (const k of keysOf(row)) {
      const v = row[k];
      const call = tb.separateCalls.findIndex((p) => k.startsWith(p));
      if (call >= 0) apart[call][k] = v;
      else if (totals.has(k)) total[k] = v;
      else step[k] = v;
    }
    // Only a training row needs the step key (the record's step); an evaluation or totals row is placed by `_step`.
    if (step[stepKey] === undefined && hasTrainingKey(step, axis.evalPrefixes)) step[stepKey] = row._step;
    if (hasMetric(step)) rows.push(step);
    for (const r of apart) if (hasMetric(r)) rows.push(withStep(r, row));
    if (hasMetric(total)) rows.push(withStep(total, row));
  }
  return { ...run, rows };
}

/** True when the row holds a metric key outside the evaluation prefixes. */
function hasTrainingKey(row: HistoryRow, evalPrefixes: readonly string[]): boolean {
  for (const k in row) if (k.charCodeAt(0) !== 95 /* _ */ && !evalPrefixes.some((p) => k.startsWith(p))) return true;
  return false;
}

/** True when the row holds a key besides the bookkeeping ones. */
function hasMetric(row: HistoryRow): boolean {
  for (const k in row) if (k.charCodeAt(0) !== 95 /* _ */) return true;
  return false;
}

/** A split-off row with the merged row's `_step` and `_timestamp`. */
function withStep(part: HistoryRow, row: HistoryRow): HistoryRow {
  const out: HistoryRow = { _step: row._step };
  if (row._timestamp !== undefined) out._timestamp = row._timestamp;
  for (const k in part) out[k] = part[k];
  return out;
}
