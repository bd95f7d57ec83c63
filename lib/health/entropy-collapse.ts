/**
 * `entropy_collapse`: the policy's entropy falls far below the run's own early level and stays there:
 * the run is losing its exploration (a learning rate too high, a reward that pays for one answer).
 */
import { conceptKey } from "./health-check";
import { EARLY_PARAM, MIN_LENGTH_PARAM, defineStreakCheck } from "./streak-check";
import { grainText } from "./concept-trace";

/** The declared check. */
export const entropyCollapse = defineStreakCheck({
  name: "entropy_collapse",
  severity: "warning",
  concept: "entropy",
  params: [
    EARLY_PARAM(4),
    { name: "fraction", default: 0.6, min: 0, minInclusive: false, max: 1, doc: "fraction of the run's early median entropy a value must fall below" },
    MIN_LENGTH_PARAM(2),
  ],
  rule: (p, profile) =>
    `${conceptKey(profile, "entropy")} (${grainText(profile, "entropy")}) below ${p.fraction} x the median of the run's first ${p.early} logged values, ${p.min_length} or more values in a row`,
  is: "the policy's token entropy fell well below where this run started and stayed there: sampling is becoming near-deterministic",
  isNot:
    "not proof of a failure: a task with one right answer lowers entropy as the policy learns it; read reward and response length beside it, and whether the fall is sudden (a learning-rate or reward change) or gradual",
  detects: ["entropy_collapse"],
  streak: (p) => ({
    minLength: p.min_length,
    early: p.early,
    side: "below",
    threshold: (base) => (base !== null && base > 0 ? p.fraction * base : null),
    fires: (v, th) => v < th,
  }),
});
