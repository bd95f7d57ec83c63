/**
 * `ppo_kl_first_update`: on the first update after a rollout the old and the current policy are the
 * same weights, so train/ppo_kl should be ~0 there (slime's own CI asserts |ppo_kl| < 1e-8).
 */
import { conceptKey, defineCheck } from "./health-check";
import { roundFlags, type HealthHit } from "./flag-ranges";
import { notLoggedReason } from "./not-applicable";
import { anyHasKey, forEachBlock } from "../values/key-column";
import { CheckInputs } from "./check-inputs";

/** The declared check. One flag per round: count, first and last offending update, largest |ppo_kl|. */
export const ppoKlFirstUpdate = defineCheck({
  name: "ppo_kl_first_update",
  severity: "warning",
  unit: "update",
  needs: { concepts: ["ppoKl"], updates: true },
  params: [{ name: "threshold", default: 1e-8, min: 0, minInclusive: true, doc: "largest |train/ppo_kl| accepted at position 0 (nats/token)" }],
  rule: (p, profile) => `|${conceptKey(profile, "ppoKl")}| > ${p.threshold} on an update at position 0 of its rollout batch (one flag per round)`,
  is: "updates that start a rollout batch with a policy ratio away from 1: old and new log-probs of the same weights differ",
  isNot:
    "not proof of a bug: it points at the metric code, at a weight sync between engine and trainer, or at non-deterministic kernels; the cause needs the run's config and code",
  run(aligned, p, profile, inputs = new CheckInputs(aligned, profile)) {
    const KEY = conceptKey(profile, "ppoKl");
    const seen = inputs.updates();
    if (seen.observed === false) return { applicable: false, reason: seen.reason };
    const updates = seen.updates;
    if (!anyHasKey(updates, KEY)) return { applicable: false, reason: notLoggedReason("optimizer update", KEY) };
    const hits: HealthHit[] = [];
    forEachBlock(updates, [KEY], (from, to, [col]) => {
      for (let i = from; i < to; i++) {
        const v = col.values[i - from];
        // NaN (and an absent key, NaN in the column) is the non_finite check's; |±Inf| > threshold holds and is kept.
        if (Math.abs(v) > p.threshold && updates[i].updateInRollout === 0) {
          const u = updates[i];
          hits.push({ round: u.round, runId: u.runId, x: u.update, key: KEY, value: v });
        }
      }
    });
    return { applicable: true, flags: roundFlags(hits, aligned.rounds) };
  },
});
