/**
 * `timer_parts_exceed_container`: slime's phase timers nest (the schema's PERF_TIME_CONTAINERS, e.g.
 * train_time holds log_probs and actor_train; train_wait_time holds data_preprocess, save_model,
 * update_weights, ...). Parts nested in a container cannot take longer than the container; a batch
 * where they do means the nesting the time breakdown stacks by is not the one these runs used.
 * The step time (= train_wait + train, an equality) is step_time_mismatch's.
 */
import { keysFor, PERF_TIME_CONTAINERS } from "../schema/slime-metrics";
import { blockPartSums, consecutiveFlags, partSums, type HealthHit } from "./flag-ranges";
import { forEachBlock } from "../values/key-column";
import { defineCheck } from "./health-check";
import { STEP_TIME_KEY } from "./step-time-mismatch";

/** Containers read here, with their parts: every schema container except the step time and its old names. */
function containers(): [string, readonly string[]][] {
  const stepKeys = keysFor(STEP_TIME_KEY);
  return Object.entries(PERF_TIME_CONTAINERS).filter(([c]) => !stepKeys.includes(c));
}

/** The declared check. Value = the largest excess (sum of logged parts - container, seconds); one flag per container key and run of batches. */
export const timerPartsExceedContainer = defineCheck({
  name: "timer_parts_exceed_container",
  severity: "notice",
  unit: "rollout",
  profiles: ["slime"],
  params: [
    { name: "relative_tolerance", default: 0.01, min: 0, minInclusive: true, doc: "accepted excess as a fraction of the container time" },
    {
      name: "absolute_tolerance_s",
      default: 0.05,
      min: 0,
      minInclusive: true,
      doc: "accepted excess in seconds whatever the container time (rounding of logged timers)",
    },
  ],
  rule: (p) =>
    `sum of the logged parts of ${containers()
      .map(([c]) => c)
      .join(
        " or ",
      )} (schema nesting) > the container + max(${p.relative_tolerance} x the container, ${p.absolute_tolerance_s} s) (consecutive batches form one flag)`,
  is: "batches where timers nested in a container add up to more than the container, against slime's timer nesting",
  isNot:
    "not lost or extra training time: the timers were nested differently (another slime version, a timer moved between phases), so notebook 04's stacked breakdown counts some time twice for these batches",
  run(aligned, p) {
    const hits: HealthHit[] = [];
    const rollouts = aligned.rollouts;
    let judged = 0;
    const sums = blockPartSums();
    for (const [container, parts] of containers()) {
      forEachBlock(rollouts, [container, ...parts], (from, to, [total, ...partCols]) => {
        partSums(partCols, to - from, sums);
        for (let j = 0; j < to - from; j++) {
          // A container with none of its parts logged says nothing about nesting.
          if (total.found[j] === 0 || sums.logged[j] === 0) continue;
          judged++;
          const excess = sums.sum[j] - total.values[j];
          // Non-finite timers are the non_finite check's.
          if (!(excess - excess === 0)) continue;
          if (excess > Math.max(p.relative_tolerance * Math.abs(total.values[j]), p.absolute_tolerance_s)) {
            const r = rollouts[from + j];
            hits.push({ round: r.round, runId: r.runId, x: r.rollout, key: container, value: excess });
          }
        }
      });
    }
    if (judged === 0) {
      const names = containers()
        .map(([c]) => c)
        .join(", ");
      return {
        applicable: false,
        reason: `no rollout batch logs a container timer (${names}) with any of its parts (the framework or these runs do not time nested phases)`,
      };
    }
    return { applicable: true, flags: consecutiveFlags(hits, aligned.rounds) };
  },
});
