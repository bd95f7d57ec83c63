/**
 * `truncation_surge`: a rollout batch in which far more samples hit the length limit than usual for
 * its round: the truncated fraction exceeds an absolute floor and a multiple of the round's median.
 */
import type { FrameworkProfile } from "../registry/framework-profile";
import { absentReason, metricOf } from "../registry/framework-profile";
import { SLIME_PROFILE } from "../registry/profile-slime";
import { profileOfAligned } from "../registry/profiles";
import { defineCheck } from "./health-check";
import { consecutiveFlags, evidenceNumber, finiteMedian, type HealthHit } from "./flag-ranges";
import { notLoggedReason } from "./not-applicable";

/** The framework's truncated-fraction key (registry concept `truncated`), per rollout batch or training step. */
function keyOf(profile: FrameworkProfile): string | null {
  return metricOf(profile, "truncated")?.key ?? null;
}

/** The declared check. Consecutive surging batches of one round form one flag. */
export const truncationSurge = defineCheck({
  name: "truncation_surge",
  severity: "warning",
  unit: "rollout",
  params: [
    { name: "min_fraction", default: 0.5, min: 0, minInclusive: true, max: 1, doc: "truncated fraction a batch must exceed (fraction of samples)" },
    { name: "median_multiple", default: 3, min: 0, minInclusive: false, doc: "multiple of the round's median truncated fraction a batch must exceed" },
  ],
  rule: (p, profile = SLIME_PROFILE) =>
    `${keyOf(profile) ?? "truncated fraction"} > ${p.min_fraction} and > ${p.median_multiple} x the median of its round (consecutive batches form one flag)`,
  is: "rollout batches where most admitted samples hit the length limit, far more than the round's typical batch",
  isNot:
    "not an episode failure rate (aborted and filtered samples are excluded), and not proof of a generation bug: a batch of harder prompts, a changed length limit or a looping policy all raise it",
  run(aligned, p) {
    const profile = profileOfAligned(aligned);
    const KEY = keyOf(profile);
    if (KEY === null) return { applicable: false, reason: absentReason(profile, "truncated")! };
    if (!aligned.rollouts.some((r) => KEY in r.values)) return { applicable: false, reason: notLoggedReason("rollout batch", KEY) };
    const medians = new Map<string, number | null>();
    for (const round of aligned.rounds) medians.set(round, finiteMedian(aligned.rollouts.filter((r) => r.round === round).map((r) => r.values[KEY])));
    const hits: HealthHit[] = [];
    for (const r of aligned.rollouts) {
      const v = r.values[KEY];
      const median = medians.has(r.round) ? medians.get(r.round)! : null;
      if (v === undefined || median === null || !Number.isFinite(v)) continue;
      if (v > p.min_fraction && v > p.median_multiple * median) hits.push({ round: r.round, runId: r.runId, x: r.rollout, key: KEY, value: v });
    }
    const evidence = "round medians: " + aligned.rounds.map((round) => `${round} ${evidenceNumber(medians.get(round) ?? null)}`).join(", ");
    return { applicable: true, flags: consecutiveFlags(hits, aligned.rounds), evidence };
  },
});
