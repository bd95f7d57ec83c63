/**
 * `ppo_kl_stuck_zero`: the mirror of ppo_kl_first_update. With more than one update per rollout batch,
 * updates after the first run on weights the previous update changed, so their train/ppo_kl is
 * non-zero; a round where it stays ~0 at every later position looks like a metric that is not
 * tracked (users found exactly that: "most likely a bug with the metrics tracking").
 */
import { conceptKey, defineCheck } from "./health-check";
import { flagOf, type HealthHit } from "./flag-ranges";
import { notLoggedReason } from "./not-applicable";
import type { AlignedRuns } from "../types";
import { anyHasKey, forEachBlock } from "../values/key-column";
import { firstPositions, RoundSlot } from "../diagnostics/round-index";
import { singular } from "../registry/framework-profile";
import { CheckInputs } from "./check-inputs";

/** The declared check. One flag per round: first/last/count over its later-position updates, value the largest |ppo_kl|. */
export const ppoKlStuckZero = defineCheck({
  name: "ppo_kl_stuck_zero",
  severity: "warning",
  unit: "update",
  needs: { concepts: ["ppoKl"], updates: true },
  params: [
    { name: "threshold", default: 1e-8, min: 0, minInclusive: true, doc: "largest |train/ppo_kl| still read as 0 (nats/token)" },
    {
      name: "min_updates",
      default: 3,
      min: 1,
      minInclusive: true,
      integer: true,
      doc: "fewest later-position updates with a finite value a round needs to be judged",
    },
  ],
  rule: (p, profile) =>
    `every update at position 1 or later of a round has |${conceptKey(profile, "ppoKl")}| <= ${p.threshold} (rounds with at least ${p.min_updates} such updates with a finite value; one flag per round)`,
  is: "a round whose policy-ratio log never moves on the updates that follow a weight change",
  isNot:
    "not proof of a metrics bug: a learning rate of 0, frozen weights, or every later minibatch with zero advantage also keep it at 0; read it with the gradient norm and the learning rate",
  run(aligned, p, profile, inputs = new CheckInputs(aligned, profile)) {
    const KEY = conceptKey(profile, "ppoKl");
    const seen = inputs.updates();
    if (seen.observed === false) return { applicable: false, reason: seen.reason };
    if (seen.n < 2)
      return {
        applicable: false,
        reason: `one optimizer update per ${profile.updates.observable ? "rollout batch" : singular(profile.recordNoun)} (N = ${seen.n}): no update follows a weight change within a batch`,
      };
    const updates = seen.updates;
    if (!anyHasKey(updates, KEY)) return { applicable: false, reason: notLoggedReason("optimizer update", KEY) };
    const position = firstPositions(aligned.rounds);
    const slot = new RoundSlot(position);
    // Per round: later-position updates with a finite value, and whether one of them moved.
    const judged = new Int32Array(aligned.rounds.length);
    const moved = new Uint8Array(aligned.rounds.length);
    forEachBlock(updates, [KEY], (from, to, [col]) => {
      for (let i = from; i < to; i++) {
        const v = col.values[i - from];
        if (!(v - v === 0) || updates[i].updateInRollout < 1) continue;
        const s = slot.of(updates[i].round);
        if (s < 0) continue;
        judged[s]++;
        if (Math.abs(v) > p.threshold) moved[s] = 1;
      }
    });
    const flags = aligned.rounds
      .filter((round) => moved[position.get(round)!] === 0 && judged[position.get(round)!] >= p.min_updates)
      .map((round) => flagOf(roundHits(updates, round, KEY)));
    return { applicable: true, flags };
  },
});

/** Hits of one stuck round (its later-position updates with a finite value), in record order: only flagged rounds get objects. */
function roundHits(updates: AlignedRuns["updates"], round: string, KEY: string): HealthHit[] {
  const hits: HealthHit[] = [];
  forEachBlock(updates, [KEY], (from, to, [col]) => {
    for (let i = from; i < to; i++) {
      const v = col.values[i - from];
      if (!(v - v === 0) || updates[i].updateInRollout < 1 || updates[i].round !== round) continue;
      const u = updates[i];
      hits.push({ round: u.round, runId: u.runId, x: u.update, key: KEY, value: v });
    }
  });
  return hits;
}
