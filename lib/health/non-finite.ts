/**
 * `non_finite`: NaN or ±Infinity logged in a numeric key of an optimizer update or a rollout batch.
 * The workspace keeps such values (never dropped, never 0); means leave them out, so this check says
 * where they are.
 */
import type { AlignedRuns } from "../types";
import { defineCheck } from "./health-check";
import { roundFlags, type CheckFlag, type HealthHit } from "./flag-ranges";
import { readValues } from "../values/compact-values";

/** Keys of critic updates merged into update records: the critic is not the actor this report reads. */
const CRITIC_KEY_PREFIX = "train/critic-";

/** The declared check. One flag per round and key, for updates and rollout batches alike. */
export const nonFinite = defineCheck({
  name: "non_finite",
  severity: "warning",
  unit: "update or rollout",
  params: [],
  rule: () =>
    "a NaN, Inf or -Inf value in a numeric key of an optimizer update or rollout batch (one flag per key and round; critic keys train/critic-* not read)",
  is: "values the logger received as NaN or ±Infinity: the workspace leaves them out of every mean, so they are easy to miss",
  isNot: "not proof of a diverged run: a NaN can be a mean over an empty set (e.g. no sample of that kind in the batch); read the key and its neighbours",
  run(aligned) {
    if (aligned.updates.length === 0 && aligned.rollouts.length === 0) {
      return { applicable: false, reason: "no optimizer update and no rollout batch to read" };
    }
    return { applicable: true, flags: nonFiniteFlags(aligned) };
  },
});

/** Update flags first (unit update), then rollout flags (unit rollout). */
function nonFiniteFlags(aligned: AlignedRuns): CheckFlag[] {
  const hitsOf = (records: readonly { round: string; runId: string; values: Record<string, number> }[], x: (i: number) => number) => {
    const hits: HealthHit[] = [];
    const vals: number[] = [];
    records.forEach((r, i) => {
      // Every value of every record: read from the store at once (no getter call per key of a view).
      const keys = readValues(r.values, vals);
      for (let j = 0; j < keys.length; j++) {
        const v = vals[j];
        if (!Number.isFinite(v) && !keys[j].startsWith(CRITIC_KEY_PREFIX)) hits.push({ round: r.round, runId: r.runId, x: x(i), key: keys[j], value: v });
      }
    });
    return hits;
  };
  const updates = roundFlags(
    hitsOf(aligned.updates, (i) => aligned.updates[i].update),
    aligned.rounds,
  );
  const rollouts = roundFlags(
    hitsOf(aligned.rollouts, (i) => aligned.rollouts[i].rollout),
    aligned.rounds,
  );
  return [...updates.map((f) => ({ ...f, unit: "update" as const })), ...rollouts.map((f) => ({ ...f, unit: "rollout" as const }))];
}
