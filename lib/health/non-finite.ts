/**
 * `non_finite`: NaN or ±Infinity logged in a numeric key of an optimizer update or a rollout batch.
 * The workspace keeps such values (never dropped, never 0); means leave them out, so this check says
 * where they are.
 */
import type { AlignedRuns } from "../types";
import { defineCheck } from "./health-check";
import { roundFlags, type CheckFlag, type HealthHit } from "./flag-ranges";
import { readValues, type Values, type ViewPlace } from "../values/compact-values";
import { localViewPlace } from "../values/key-column";
import { recordPhrase, singular } from "../registry/framework-profile";

/** The declared check. One flag per round and key, for updates and rollout batches alike. */
export const nonFinite = defineCheck({
  name: "non_finite",
  severity: "warning",
  unit: "update or rollout",
  params: [],
  rule: (_p, profile) =>
    `a NaN, Inf or -Inf value in a numeric key of ${recordPhrase(profile)} (one flag per key and round${profile.updates.criticPrefix === null ? "" : `; critic keys ${profile.updates.criticPrefix}* not read`})`,
  is: "values the logger received as NaN or ±Infinity: the workspace leaves them out of every mean, so they are easy to miss",
  isNot: "not proof of a diverged run: a NaN can be a mean over an empty set (e.g. no sample of that kind in the batch); read the key and its neighbours",
  detects: ["non_finite"],
  run(aligned, _p, profile) {
    if (aligned.updates.length === 0 && aligned.rollouts.length === 0) {
      const record = singular(profile.recordNoun);
      return { applicable: false, reason: profile.updates.observable ? `no optimizer update and no ${record} to read` : `no ${record} to read` };
    }
    return { applicable: true, flags: nonFiniteFlags(aligned, profile.updates.criticPrefix) };
  },
});

/** Update flags first (unit update), then rollout flags (unit rollout). */
function nonFiniteFlags(aligned: AlignedRuns, criticPrefix: string | null): CheckFlag[] {
  const updates = roundFlags(
    nonFiniteHits(aligned.updates, (u) => u.update, criticPrefix),
    aligned.rounds,
  );
  const rollouts = roundFlags(
    nonFiniteHits(aligned.rollouts, (r) => r.rollout, criticPrefix),
    aligned.rounds,
  );
  return [...updates.map((f) => ({ ...f, unit: "update" as const })), ...rollouts.map((f) => ({ ...f, unit: "rollout" as const }))];
}

/** Every non-finite value of every record (keys under `criticPrefix` left out), in record and key order; `x` is read for hits only. */
function nonFiniteHits<R extends { round: string; runId: string; values: Values }>(
  records: readonly R[],
  x: (r: R) => number,
  criticPrefix: string | null,
): HealthHit[] {
  const hits: HealthHit[] = [];
  const vals: number[] = [];
  const place: ViewPlace = { store: new Float64Array(0), at: 0, keys: [] };
  const isView = localViewPlace();
  for (let i = 0; i < records.length; i++) {
    const r = records[i];
    // A view's values straight from its store; a plain object's copied into `vals` (reused).
    const view = isView(r.values, place);
    const keys = view ? place.keys : readValues(r.values, vals);
    const store = view ? place.store : vals;
    const at = view ? place.at : 0;
    for (let j = 0; j < keys.length; j++) {
      const v = store[at + j];
      // v - v is NaN exactly for NaN and ±Infinity.
      if (v - v !== 0 && !(criticPrefix !== null && keys[j].startsWith(criticPrefix)))
        hits.push({ round: r.round, runId: r.runId, x: x(r), key: keys[j], value: v });
    }
  }
  return hits;
}
