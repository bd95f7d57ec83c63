/**
 * `truncation_saturation`: most responses hit the length limit, batch after batch: an absolute level,
 * beside truncation_surge (which compares a batch with its own round's median and so never fires when
 * every batch of a round is truncated).
 */
import { conceptKey } from "./health-check";
import { MIN_LENGTH_PARAM, defineStreakCheck } from "./streak-check";
import { grainText } from "./concept-trace";

/** The declared check. */
export const truncationSaturation = defineStreakCheck({
  name: "truncation_saturation",
  severity: "warning",
  concept: "truncated",
  params: [
    { name: "level", default: 0.8, min: 0, minInclusive: false, max: 1, doc: "truncated fraction a value must reach (fraction of samples)" },
    MIN_LENGTH_PARAM(2),
  ],
  rule: (p, profile) => `${conceptKey(profile, "truncated")} (${grainText(profile, "truncated")}) >= ${p.level}, ${p.min_length} or more values in a row`,
  is: "most responses were cut at the length limit in several logged values in a row: what the policy was scored and trained on is mostly unfinished",
  isNot: "not proof of a length runaway: a limit set too low for the task does the same from the first step; read the response length and the limit",
  detects: ["length_runaway"],
  streak: (p) => ({
    minLength: p.min_length,
    early: 0,
    side: "above",
    threshold: () => p.level,
    fires: (v, th) => v >= th,
    trailing: 0,
  }),
});
