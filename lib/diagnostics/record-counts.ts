/**
 * How many records the aligned runs hold, in words the framework's profile gives: optimizer updates
 * and N only where single updates are observable, else what the records are and why updates are not
 * counted (a step-logged framework would otherwise read "0 optimizer updates, N = 0").
 */
import type { AlignedRuns } from "../types";
import { profileOfAligned, updatesUnobservable } from "../registry/profiles";

/**
 * E.g. "120 optimizer updates, 60 rollout batches, N = 2", or "6 logged steps (single optimizer
 * updates are not observable: TRL: ...)".
 */
export function recordCountsText(aligned: AlignedRuns): string {
  const noun = profileOfAligned(aligned).recordNoun;
  const why = updatesUnobservable(aligned);
  if (why !== null) return `${aligned.rollouts.length} ${noun} (single optimizer updates are not observable: ${why})`;
  return `${aligned.updates.length} optimizer updates, ${aligned.rollouts.length} ${noun}, N = ${aligned.mapping.n}`;
}
