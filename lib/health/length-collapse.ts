/**
 * `length_collapse`: the mean response length falls far below the run's own early level and stays
 * there: the policy found that saying (almost) nothing pays, or the generation stops early.
 */
import { conceptKey } from "./health-check";
import { EARLY_PARAM, MIN_LENGTH_PARAM, defineStreakCheck } from "./streak-check";
import { grainText } from "./concept-trace";

/** The declared check. */
export const lengthCollapse = defineStreakCheck({
  name: "length_collapse",
  severity: "warning",
  concept: "responseLen",
  params: [
    EARLY_PARAM(4),
    { name: "fraction", default: 0.4, min: 0, minInclusive: false, max: 1, doc: "fraction of the run's early median response length a value must fall below" },
    MIN_LENGTH_PARAM(2),
  ],
  rule: (p, profile) =>
    `${conceptKey(profile, "responseLen")} (${grainText(profile, "responseLen")}) below ${p.fraction} x the median of the run's first ${p.early} logged values, ${p.min_length} or more values in a row`,
  is: "responses became much shorter than this run's own early responses and stayed short",
  isNot:
    "not proof of reward hacking: a task whose answers are short, or a length penalty meant to shorten them, does the same; read the reward and a few samples",
  detects: ["length_collapse"],
  streak: (p) => ({
    minLength: p.min_length,
    early: p.early,
    side: "below",
    threshold: (base) => (base !== null && base > 0 ? p.fraction * base : null),
    fires: (v, th) => v < th,
    trailing: 0,
  }),
});
