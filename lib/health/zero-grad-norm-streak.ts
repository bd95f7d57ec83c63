/**
 * `zero_grad_norm_streak`: several consecutive gradient norms exactly 0. Single zeros are common (every
 * sample of the step had zero advantage) and stay in notebook 03's zero-gradient-norm list; a streak
 * means the optimizer did nothing for a while. Read at the grain the framework logs: single updates
 * (slime), or one value per logged step (verl, OpenRLHF; TRL's last step of each logging interval),
 * where a logged 0 is still a step with an exactly-zero gradient.
 */
import { conceptKey, defineCheck } from "./health-check";
import { consecutiveFlags, type HealthHit } from "./flag-ranges";
import { notLoggedReason } from "./not-applicable";
import { anyHasKey, forEachBlock } from "../values/key-column";
import { conceptTraces, exactZeroRule, grainText, streakFlags } from "./concept-trace";
import { metricOf, singular } from "../registry/framework-profile";

/** The declared check. Streaks stay inside one round; a missing update ends a streak. */
export const zeroGradNormStreak = defineCheck({
  name: "zero_grad_norm_streak",
  severity: "warning",
  unit: "update or rollout",
  needs: { concepts: ["gradNorm"] },
  params: [{ name: "min_length", default: 3, min: 2, minInclusive: true, integer: true, doc: "shortest streak of consecutive logged values flagged" }],
  rule: (p, profile) =>
    metricOf(profile, "gradNorm")?.grain === "update"
      ? `${p.min_length} or more consecutive display updates of one round with ${conceptKey(profile, "gradNorm")} exactly 0`
      : `${p.min_length} or more consecutive logged values of ${conceptKey(profile, "gradNorm")} (${grainText(profile, "gradNorm")}) exactly 0`,
  is: "a stretch of optimizer steps that changed no weight through the gradient (the recorded norm is exactly 0)",
  isNot:
    "not proof of a bug or of convergence: it follows when every sample of those steps had zero advantage (e.g. all groups with equal rewards) or when gradient clipping is off and Megatron reports 0; the cause needs the admitted minibatch advantages",
  detects: ["learning_stopped"],
  run(aligned, p, profile) {
    const KEY = conceptKey(profile, "gradNorm");
    const perUpdate = metricOf(profile, "gradNorm")?.grain === "update";
    const records = perUpdate ? aligned.updates : aligned.rollouts;
    if (!anyHasKey(records, KEY)) return { applicable: false, reason: notLoggedReason(perUpdate ? "optimizer update" : singular(profile.recordNoun), KEY) };
    // One value per logged step: streaks of consecutive logged values, whatever the step spacing.
    if (!perUpdate) {
      const logged = streakFlags(conceptTraces(aligned, profile, "gradNorm"), exactZeroRule(p.min_length)).flags;
      return { applicable: true, flags: logged.map((f) => ({ ...f, unit: "rollout" as const })) };
    }
    const updates = aligned.updates;
    const hits: HealthHit[] = [];
    forEachBlock(updates, [KEY], (from, to, [col]) => {
      for (let i = from; i < to; i++) {
        // An absent key is NaN in the column, never 0; -0 is 0.
        if (col.values[i - from] !== 0) continue;
        const u = updates[i];
        hits.push({ round: u.round, runId: u.runId, x: u.update, key: KEY, value: 0 });
      }
    });
    const flags = consecutiveFlags(hits, aligned.rounds)
      .filter((f) => f.count >= p.min_length)
      .map((f) => ({ ...f, raisedAt: f.at[p.min_length - 1], window: { threshold: 0, side: "equal" as const } }));
    return { applicable: true, flags };
  },
});
