/** What the two mismatch checks share: the reason when no mismatch key is logged, and "how much worse". */
import type { MismatchNotLogged } from "../diagnostics/mismatch-series";
import type { FrameworkProfile } from "../registry/framework-profile";
import type { MismatchWorse } from "../registry/mismatch";

/** Not applicable: the runs log none of the profile's declared mismatch keys, each named with when it is logged. */
export function mismatchNotLoggedReason(profile: FrameworkProfile, notLogged: readonly MismatchNotLogged[]): string {
  if (notLogged.length === 0) return `${profile.label} declares no train/inference mismatch key`;
  return `these runs log none of ${profile.label}'s mismatch keys (${notLogged.map((n) => `${n.name}: ${n.when}`).join("; ")})`;
}

/** How far a change goes in the worse direction (negative: it got better). */
export function worseBy(worse: MismatchWorse, change: number): number {
  return worse === "higher" ? change : worse === "lower" ? -change : Math.abs(change);
}
