/**
 * `kl_ref_drift`: the KL to the reference model jumps far above the run's own early level and stays
 * there: the policy is moving away from the reference faster than the KL term holds it. A rise over the
 * early level, not a ratio to it (KL starts at 0, so any growth is a large multiple of the start), and a
 * jump against the values just before: healthy TRL twins at beta 0.1 crept past the early median + 0.5
 * by the end of 36 steps (round 2's test split), at 1.4-1.6x the five values before; injected drifts
 * jumped 3-23x.
 */
import { conceptKey } from "./health-check";
import { EARLY_PARAM, MIN_LENGTH_PARAM, defineStreakCheck } from "./streak-check";
import { grainText, trailingMedianRule } from "./concept-trace";

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
      doc: "rise over the run's early median a value must exceed (nats/token; a KL's scale follows the KL coefficient and learning rate: chosen on TRL runs at beta 0.1 and verl runs at kl_loss_coef 0.05; healthy twins crept past it late, which the jump condition leaves out)",
    },
    {
      name: "jump",
      default: 2,
      min: 1,
      minInclusive: true,
      doc: "multiple of the median of the `window` values before a streak its values must exceed (a sudden rise)",
    },
    { name: "window", default: 5, min: 1, minInclusive: true, integer: true, doc: "values logged before a streak whose median a jump is measured against" },
    MIN_LENGTH_PARAM(2),
  ],
  rule: (p, profile) =>
    `${conceptKey(profile, "klToRef")} (${grainText(profile, "klToRef")}) above the median of the run's first ${p.early} logged values + ${p.rise} and above ${p.jump} x the median of the ${p.window} values logged before the streak, ${p.min_length} or more values in a row`,
  is: "the policy moved much further from the reference model than early in the run, and stayed there",
  isNot:
    "not proof of a bad run: KL to the reference grows as any policy learns; the rule marks a sudden rise far beyond the run's own start, whose size depends on the KL coefficient and the learning rate (a slow creep past it is not flagged)",
  detects: ["kl_drift"],
  streak: (p) =>
    trailingMedianRule(p.window, {
      minLength: p.min_length,
      early: p.early,
      side: "above",
      threshold: (base, recent) => (base === null || recent === null ? null : Math.max(base + p.rise, p.jump * recent)),
      fires: (v, th) => v > th,
      holdThreshold: true,
    }),
});
