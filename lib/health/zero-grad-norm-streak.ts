/**
 * `zero_grad_norm_streak`: several consecutive optimizer updates whose gradient norm is exactly 0.
 * Single zeros are common (every sample of the step had zero advantage) and stay in notebook 03's
 * zero-gradient-norm list; a streak means the optimizer did nothing for a while.
 */
import { conceptKey, defineCheck } from "./health-check";
import { consecutiveFlags, type HealthHit } from "./flag-ranges";
import { notLoggedReason } from "./not-applicable";
import { anyHasKey, forEachBlock } from "../values/key-column";

/** The declared check. Streaks stay inside one round; a missing update ends a streak. */
export const zeroGradNormStreak = defineCheck({
  name: "zero_grad_norm_streak",
  severity: "warning",
  unit: "update",
  needs: { concepts: ["gradNorm"], updates: true },
  params: [{ name: "min_length", default: 3, min: 2, minInclusive: true, integer: true, doc: "shortest streak of consecutive display updates flagged" }],
  rule: (p, profile) => `${p.min_length} or more consecutive display updates of one round with ${conceptKey(profile, "gradNorm")} exactly 0`,
  is: "a stretch of optimizer steps that changed no weight through the gradient (the recorded norm is exactly 0)",
  isNot:
    "not proof of a bug or of convergence: it follows when every sample of those steps had zero advantage (e.g. all groups with equal rewards) or when gradient clipping is off and Megatron reports 0; the cause needs the admitted minibatch advantages",
  run(aligned, p, profile) {
    const KEY = conceptKey(profile, "gradNorm");
    const updates = aligned.updates;
    if (!anyHasKey(updates, KEY)) return { applicable: false, reason: notLoggedReason("optimizer update", KEY) };
    const hits: HealthHit[] = [];
    forEachBlock(updates, [KEY], (from, to, [col]) => {
      for (let i = from; i < to; i++) {
        // An absent key is NaN in the column, never 0; -0 is 0.
        if (col.values[i - from] !== 0) continue;
        const u = updates[i];
        hits.push({ round: u.round, runId: u.runId, x: u.update, key: KEY, value: 0 });
      }
    });
    const flags = consecutiveFlags(hits, aligned.rounds).filter((f) => f.count >= p.min_length);
    return { applicable: true, flags };
  },
});
