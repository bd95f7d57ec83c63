/**
 * `logprob_gap_jump`: updates whose train/rollout log-prob gap jumps far above its usual level, as
 * users report after a resume (trainer and inference engine no longer hold the same weights).
 */
import { conceptKey, defineCheck } from "./health-check";
import { consecutiveFlags, evidenceNumber, FiniteValues, type HealthHit } from "./flag-ranges";
import { notLoggedReason } from "./not-applicable";
import { anyHasKey, forEachBlock } from "../values/key-column";
import { CheckInputs } from "./check-inputs";

/** The declared check. The median is over every update of every round; consecutive flagged updates form one flag. */
export const logprobGapJump = defineCheck({
  name: "logprob_gap_jump",
  severity: "warning",
  unit: "update",
  needs: { concepts: ["logprobGap"], updates: true },
  params: [{ name: "median_multiple", default: 5, min: 0, minInclusive: false, doc: "multiple of the median gap over all updates an update must exceed" }],
  rule: (p, profile) =>
    `${conceptKey(profile, "logprobGap")} > ${p.median_multiple} x its median over all updates (consecutive updates of one round form one flag)`,
  is: "updates where trainer and inference engine disagree on the sampled tokens' log-probs far more than usual",
  isNot:
    "not proof of a weight-sync bug, and not a quality measure of the policy: precision changes, a different engine version or off-policy replay also widen the gap",
  detects: ["mismatch"],
  run(aligned, p, profile, inputs = new CheckInputs(aligned, profile)) {
    const KEY = conceptKey(profile, "logprobGap");
    const seen = inputs.updates();
    if (seen.observed === false) return { applicable: false, reason: seen.reason };
    const updates = seen.updates;
    if (!anyHasKey(updates, KEY)) return { applicable: false, reason: notLoggedReason("optimizer update", KEY) };
    const finite = new FiniteValues(updates.length);
    // Absent keys are NaN in the column: left out like NaN.
    forEachBlock(updates, [KEY], (from, to, [col]) => {
      for (let j = 0; j < to - from; j++) finite.add(col.values[j]);
    });
    const median = finite.median();
    if (median === null) return { applicable: false, reason: `no optimizer update has a finite ${conceptKey(profile, "logprobGap")}` };
    if (median <= 0)
      return { applicable: false, reason: `the median ${conceptKey(profile, "logprobGap")} over all updates is ${median}: a multiple of it is no threshold` };
    const hits: HealthHit[] = [];
    const threshold = p.median_multiple * median;
    forEachBlock(updates, [KEY], (from, to, [col]) => {
      for (let i = from; i < to; i++) {
        const v = col.values[i - from];
        if (v - v === 0 && v > threshold) {
          const u = updates[i];
          hits.push({ round: u.round, runId: u.runId, x: u.update, key: KEY, value: v });
        }
      }
    });
    return {
      applicable: true,
      flags: consecutiveFlags(hits, aligned.rounds),
      evidence: `median over all updates ${evidenceNumber(median)}, threshold ${evidenceNumber(p.median_multiple * median)}`,
    };
  },
});
