/**
 * `entropy_collapse`: the policy's entropy falls suddenly (far below the values logged just before it)
 * or deeply (far below the run's own early level): the run is losing its exploration, as with a
 * learning rate too high or a reward that pays for one answer. A healthy run's entropy falls too, as
 * it learns, but step by step: on the corpus's healthy twins (entropy 3.0 -> 0.55 over 36 steps) no
 * value fell below 0.51 x the median of the 5 before it, while the injected collapses fell to 0.19-0.32x.
 */
import { conceptKey } from "./health-check";
import { EARLY_PARAM, MIN_LENGTH_PARAM, defineStreakCheck } from "./streak-check";
import { grainText, trailingMedianRule } from "./concept-trace";

/** The declared check. */
export const entropyCollapse = defineStreakCheck({
  name: "entropy_collapse",
  severity: "warning",
  concept: "entropy",
  params: [
    EARLY_PARAM(4),
    {
      name: "sudden",
      default: 0.4,
      min: 0,
      minInclusive: false,
      max: 1,
      doc: "fraction of the median of the previous `window` values a value must fall below (a sudden fall)",
    },
    { name: "window", default: 5, min: 1, minInclusive: true, integer: true, doc: "values logged before a value whose median it is compared with" },
    {
      name: "deep",
      default: 0.1,
      min: 0,
      minInclusive: false,
      max: 1,
      doc: "fraction of the run's early median a value must fall below (a deep fall, however gradual)",
    },
    MIN_LENGTH_PARAM(1),
  ],
  rule: (p, profile) =>
    `${conceptKey(profile, "entropy")} (${grainText(profile, "entropy")}) below ${p.sudden} x the median of the ${p.window} values logged before it, or below ${p.deep} x the median of the run's first ${p.early} logged values; ${p.min_length} or more values in a row`,
  is: "the policy's token entropy fell suddenly, or far below where this run started: sampling is becoming near-deterministic",
  isNot:
    "not proof of a failure: a task with one right answer lowers entropy as the policy learns it; read reward and response length beside it, and what changed at that step (learning rate, reward, data)",
  detects: ["entropy_collapse"],
  streak: (p) =>
    trailingMedianRule(p.window, {
      minLength: p.min_length,
      early: p.early,
      side: "below",
      threshold: (base, recent) => (base === null || base <= 0 || recent === null ? null : Math.max(p.deep * base, p.sudden * recent)),
      fires: (v, th) => v < th,
    }),
});
