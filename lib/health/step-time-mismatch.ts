/**
 * `step_time_mismatch`: a framework whose step timer is exactly the sum of its parts (its profile's
 * `stepSum`; slime: `step_time = train_wait_time + train_time`); a batch whose step time differs from
 * that sum means the timers were not what the breakdown figures assume (double-counted or missing
 * time). The step time is read under its older names too (slime: perf/total_train_time, before
 * 2025-10-30: the same container).
 */
import { metricOf, type FrameworkProfile } from "../registry/framework-profile";
import { defineCheck } from "./health-check";
import { blockPartSums, consecutiveFlags, partSums, type HealthHit } from "./flag-ranges";
import { forEachBlock } from "../values/key-column";

/** The step timer the profile declares as a sum, its older names, and its parts. */
function stepSum(profile: FrameworkProfile): { total: string; keys: string[]; parts: readonly string[] } {
  // Without one (the check then says not applicable), the rule names the step time alone.
  const sum = profile.timers.stepSum ?? { total: metricOf(profile, "stepTime")?.key ?? "step time", parts: [] };
  const step = metricOf(profile, "stepTime");
  const aliases = step !== null && step.key === sum.total ? (step.aliases ?? []).map((a) => a.key) : [];
  return { total: sum.total, keys: [sum.total, ...aliases], parts: sum.parts };
}

/** The declared check. Value = the signed difference step_time - sum of parts with the largest magnitude. */
export const stepTimeMismatch = defineCheck({
  name: "step_time_mismatch",
  severity: "notice",
  unit: "rollout",
  needs: { stepSum: true },
  params: [
    { name: "relative_tolerance", default: 0.01, min: 0, minInclusive: true, doc: "accepted |difference| as a fraction of the step time" },
    {
      name: "absolute_tolerance_s",
      default: 0.05,
      min: 0,
      minInclusive: true,
      doc: "accepted |difference| in seconds whatever the step time (rounding of logged timers)",
    },
  ],
  rule: (p, profile) => {
    const { total, parts } = stepSum(profile);
    // A profile without a step sum gets a rule that says so, never an empty "()".
    const sum = parts.length > 0 ? `(${parts.join(" + ")})` : `the sum of its parts (${profile.label} declares none)`;
    return `|${total} - ${sum}| > max(${p.relative_tolerance} x ${total}, ${p.absolute_tolerance_s} s) (consecutive batches form one flag)`;
  },
  is: "batches whose trainer step time is not the sum of its two phases, against slime's timer nesting",
  isNot:
    "not lost training time: it says the timers were nested differently (another slime version, a renamed timer) or that a part was not logged, so the time breakdown of notebook 04 may count time twice or miss it",
  run(aligned, p, profile) {
    const { total: STEP_TIME_KEY, keys: STEP_TIME_KEYS, parts } = stepSum(profile);
    const rollouts = aligned.rollouts;
    const hits: HealthHit[] = [];
    let complete = 0;
    const sums = blockPartSums();
    forEachBlock(rollouts, [STEP_TIME_KEYS, ...parts], (from, to, [step, ...partCols]) => {
      partSums(partCols, to - from, sums);
      for (let j = 0; j < to - from; j++) {
        // Only batches with the step time and every part are judged.
        if (step.found[j] === 0 || sums.logged[j] !== parts.length) continue;
        complete++;
        const diff = step.values[j] - sums.sum[j];
        // Non-finite timers are the non_finite check's.
        if (!(diff - diff === 0)) continue;
        if (Math.abs(diff) > Math.max(p.relative_tolerance * Math.abs(step.values[j]), p.absolute_tolerance_s)) {
          const r = rollouts[from + j];
          hits.push({ round: r.round, runId: r.runId, x: r.rollout, key: STEP_TIME_KEY, value: diff });
        }
      }
    });
    if (complete === 0) {
      const keys = [STEP_TIME_KEYS.join(" or "), ...parts].join(", ");
      return { applicable: false, reason: `no rollout batch logs all of ${keys} (the framework or these runs do not time these phases)` };
    }
    return { applicable: true, flags: consecutiveFlags(hits, aligned.rounds) };
  },
});
