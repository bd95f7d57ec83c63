/**
 * How diagnostics name one record in warnings and errors: run, step on its own axis, and the
 * source `_step`(s) so the row can be found in the frozen history file.
 */
import type { AxisRecord, UpdateRecord } from "../types";

/** E.g. `run abc train/step 12 (update 11, _step 30)`; `updateKey` the profile's (RoundIndex.updateKey). */
export function describeUpdate(u: UpdateRecord, updateKey: string | null): string {
  return `run ${u.runId} ${updateKey ?? "update step"} ${u.trainStep} (update ${u.update}, _step ${u.historyStep})`;
}

/** E.g. `run abc rollout 5 (_step 20, 21)`. */
export function describeRollout(r: AxisRecord): string {
  return `run ${r.runId} rollout ${r.rollout} (_step ${r.historySteps.join(", ")})`;
}
