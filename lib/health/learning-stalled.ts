/**
 * `learning_stalled`: every prompt group's responses got the same reward, logged value after logged
 * value: with group-relative advantages (GRPO, RLOO, DAPO...) no sample carries a learning signal, so
 * the policy gradient is zero whatever the loss says.
 */
import { conceptKey } from "./health-check";
import { MIN_LENGTH_PARAM, defineStreakCheck } from "./streak-check";
import { grainText } from "./concept-trace";

/** The declared check. */
export const learningStalled = defineStreakCheck({
  name: "learning_stalled",
  severity: "warning",
  concept: "zeroStdFrac",
  params: [
    { name: "min_fraction", default: 1, min: 0, minInclusive: false, max: 1, doc: "fraction of groups with zero reward spread a value must reach" },
    MIN_LENGTH_PARAM(2),
  ],
  rule: (p, profile) =>
    `${conceptKey(profile, "zeroStdFrac")} (${grainText(profile, "zeroStdFrac")}) >= ${p.min_fraction}, ${p.min_length} or more values in a row`,
  is: "no prompt group had any reward spread over several logged values: group-relative advantages are all zero, so those steps taught nothing (beyond a KL or entropy term)",
  isNot:
    "not proof of a broken reward: a policy that solves every prompt (or none) gets equal rewards too; read the reward's level: all correct, all wrong, or a reward function returning a constant",
  detects: ["learning_stopped"],
  streak: (p) => ({
    minLength: p.min_length,
    early: 0,
    side: "above",
    threshold: () => p.min_fraction,
    fires: (v, th) => v >= th,
    trailing: 0,
  }),
});
