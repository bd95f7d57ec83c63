/**
 * `timer_parts_exceed_container`: a framework's phase timers nest (its profile's timer containers;
 * slime: train_time holds log_probs and actor_train; train_wait_time holds data_preprocess,
 * save_model, update_weights, ...). Parts nested in a container cannot take longer than the
 * container; a batch where they do means the nesting the time breakdown stacks by is not the one
 * these runs used. The step timer is left out (slime's equality is step_time_mismatch's).
 */
import { metricOf, type FrameworkProfile } from "../registry/framework-profile";
import { blockPartSums, consecutiveFlags, partSums, type HealthHit } from "./flag-ranges";
import { forEachBlock } from "../values/key-column";
import { defineCheck } from "./health-check";

/** Containers read here, with their parts: every container of the profile except the step timer and its old names. */
export function nestedContainers(profile: FrameworkProfile): [string, readonly string[]][] {
  const step = metricOf(profile, "stepTime");
  const stepKeys = step === null ? [] : [step.key, ...(step.aliases ?? []).map((a) => a.key)];
  if (profile.timers.stepSum !== null) stepKeys.push(profile.timers.stepSum.total);
  return Object.entries(profile.timers.containers).filter(([c]) => !stepKeys.includes(c));
}

/** The declared check. Value = the largest excess (sum of logged parts - container, seconds); one flag per container key and run of batches. */
export const timerPartsExceedContainer = defineCheck({
  name: "timer_parts_exceed_container",
  severity: "notice",
  unit: "rollout",
  needs: { nestedTimers: true },
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
  rule: (p, profile) =>
    `sum of the logged parts of ${containerNames(profile)} (schema nesting) > the container + max(${p.relative_tolerance} x the container, ${p.absolute_tolerance_s} s) (consecutive batches form one flag)`,
  is: "batches where timers nested in a container add up to more than the container, against slime's timer nesting",
  isNot:
    "not lost or extra training time: the timers were nested differently (another slime version, a timer moved between phases), so notebook 04's stacked breakdown counts some time twice for these batches",
  run(aligned, p, profile) {
    const containers = nestedContainers(profile);
    const hits: HealthHit[] = [];
    const rollouts = aligned.rollouts;
    let judged = 0;
    const sums = blockPartSums();
    for (const [container, parts] of containers) {
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
      const names = containers.map(([c]) => c).join(", ");
      return {
        applicable: false,
        reason: `no rollout batch logs a container timer (${names}) with any of its parts (the framework or these runs do not time nested phases)`,
      };
    }
    return { applicable: true, flags: consecutiveFlags(hits, aligned.rounds) };
  },
});

/** The containers a rule names; a profile that nests none says so rather than leaving a blank. */
function containerNames(profile: FrameworkProfile): string {
  const names = nestedContainers(profile).map(([c]) => c);
  return names.length > 0 ? names.join(" or ") : `a container timer (${profile.label} declares none)`;
}
