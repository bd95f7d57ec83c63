/**
 * `kl_ref_drift`: the KL to the reference model rises far above the run's own early level and stays
 * there: the policy is moving away from the reference faster than the KL term holds it. A rise, not a
 * ratio: KL starts at 0 (the policy is the reference), so any growth is a large multiple of the start.
 */
import { conceptKey } from "./health-check";
import { EARLY_PARAM, MIN_LENGTH_PARAM, defineStreakCheck } from "./streak-check";
import { grainText } from "./concept-trace";

/** The declared check. */
export const klRefDrift = defineStreakCheck({
  name: "kl_ref_drift",
  severity: "warning",
  concept: "klToRef",
  params: [
    EARLY_PARAM(4),
    {
      name: "rise",
      default: 0.5,
      min: 0,
      minInclusive: false,
      doc: "rise over the run's early median a value must exceed (nats/token; a KL's scale follows the KL coefficient and learning rate: chosen on TRL runs at beta 0.1, whose healthy twins stayed under 0.8)",
    },
    MIN_LENGTH_PARAM(2),
  ],
  rule: (p, profile) =>
    `${conceptKey(profile, "klToRef")} (${grainText(profile, "klToRef")}) above the median of the run's first ${p.early} logged values + ${p.rise}, ${p.min_length} or more values in a row`,
  is: "the policy moved much further from the reference model than early in the run, and stayed there",
  isNot:
    "not proof of a bad run: KL to the reference grows as any policy learns; the rule marks a rise far beyond the run's own start, whose size depends on the KL coefficient and the learning rate",
  detects: ["kl_drift"],
  streak: (p) => ({
    minLength: p.min_length,
    early: p.early,
    side: "above",
    threshold: (base) => (base === null ? null : base + p.rise),
    fires: (v, th) => v > th,
  }),
});
