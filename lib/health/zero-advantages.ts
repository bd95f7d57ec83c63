/**
 * `zero_advantages`: the batch's largest and smallest advantages are both exactly 0, logged value after
 * logged value: no sample carries a learning signal (every group's rewards were equal, or the
 * advantage computation zeroed them).
 */
import { conceptKey, defineCheck } from "./health-check";
import { conceptTraces, exactZeroRule, flagUnit, grainText, streakFlags, type ConceptTrace } from "./concept-trace";

/** The declared check. */
export const zeroAdvantages = defineCheck({
  name: "zero_advantages",
  severity: "warning",
  unit: "update or rollout",
  needs: { concepts: ["advantageMax", "advantageMin"] },
  params: [{ name: "min_length", default: 2, min: 1, minInclusive: true, integer: true, doc: "consecutive logged values with both extremes exactly 0" }],
  rule: (p, profile) =>
    `${conceptKey(profile, "advantageMax")} and ${conceptKey(profile, "advantageMin")} (${grainText(profile, "advantageMax")}) both exactly 0, ${p.min_length} or more values in a row`,
  is: "every advantage of those batches was 0: the policy-gradient term was zero, so the steps taught nothing (beyond a KL or entropy term)",
  isNot: "not proof of a broken reward: a policy that solves every prompt (or none) gets equal rewards in every group too; read the reward's level",
  detects: ["learning_stopped"],
  run(aligned, p, profile) {
    const max = conceptTraces(aligned, profile, "advantageMax");
    const min = new Map(conceptTraces(aligned, profile, "advantageMin").map((t) => [t.runId, t]));
    const traces: ConceptTrace[] = [];
    for (const t of max) {
      const lows = min.get(t.runId);
      if (lows === undefined) continue;
      const minAt = new Map<number, number>();
      for (let i = 0; i < lows.xs.length; i++) minAt.set(lows.xs[i], lows.values[i]);
      // 0 where both extremes are exactly 0 at that record, 1 (ending a streak) where either is not or the minimum is absent.
      const both = new Float64Array(t.xs.length);
      for (let i = 0; i < both.length; i++) both[i] = t.values[i] === 0 && minAt.get(t.xs[i]) === 0 ? 0 : 1;
      traces.push({ ...t, values: both });
    }
    const unit = flagUnit(profile, "advantageMax");
    return { applicable: true, flags: streakFlags(traces, exactZeroRule(p.min_length)).flags.map((f) => ({ ...f, unit })) };
  },
});
