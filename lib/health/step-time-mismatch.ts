/**
 * `step_time_mismatch`: slime's trainer timers nest as `step_time = train_wait_time + train_time`
 * (the schema's PERF_TIME_CONTAINERS); a batch whose step time differs from that sum means the timers
 * were not what the breakdown figures assume (double-counted or missing time). The step time is read
 * under its older name too (perf/total_train_time, before 2025-10-30: the same container).
 */
import { keysFor, PERF_TIME_CONTAINERS } from "../schema/slime-metrics";
import { defineCheck } from "./health-check";
import { blockPartSums, consecutiveFlags, partSums, type HealthHit } from "./flag-ranges";
import { forEachBlock } from "../values/key-column";

/** The container timer this check reads; its parts come from the schema. */
export const STEP_TIME_KEY = "perf/step_time";

/** The step time's key and its older names. */
const STEP_TIME_KEYS = keysFor(STEP_TIME_KEY);

/** Parts of the step time as the schema declares them (train_wait + train). */
function stepTimeParts(): readonly string[] {
  const parts = PERF_TIME_CONTAINERS[STEP_TIME_KEY];
  if (!parts || parts.length === 0) throw new Error(`schema: PERF_TIME_CONTAINERS has no parts for ${STEP_TIME_KEY}`);
  return parts;
}

/** The declared check. Value = the signed difference step_time - sum of parts with the largest magnitude. */
export const stepTimeMismatch = defineCheck({
  name: "step_time_mismatch",
  severity: "notice",
  unit: "rollout",
  profiles: ["slime"],
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
  rule: (p) =>
    `|${STEP_TIME_KEY} - (${stepTimeParts().join(" + ")})| > max(${p.relative_tolerance} x ${STEP_TIME_KEY}, ${p.absolute_tolerance_s} s) (consecutive batches form one flag)`,
  is: "batches whose trainer step time is not the sum of its two phases, against slime's timer nesting",
  isNot:
    "not lost training time: it says the timers were nested differently (another slime version, a renamed timer) or that a part was not logged, so the time breakdown of notebook 04 may count time twice or miss it",
  run(aligned, p) {
    const parts = stepTimeParts();
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
