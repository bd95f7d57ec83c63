/**
 * `mismatch_growth`: the mean |train - inference log-prob| (the absDiff mismatch quantity) rises far
 * above the run's own early level and stays there, within one run: the sampler's copy of the weights
 * is no longer the trainer's (a weight sync that stopped or went wrong), where mismatch_drift needs
 * several rounds and mismatch_resume_spike a restart. Other mismatch quantities are left out: on the
 * corpus's healthy verl twins the k3 KL and the probability difference grew 10-28x as the policy
 * sharpened, the absolute log-prob difference at most 2.3x.
 */
import { defineCheck } from "./health-check";
import { singular } from "../registry/framework-profile";
import { streakEvidence, streakFlags, type ConceptTrace } from "./concept-trace";
import { CheckInputs } from "./check-inputs";
import { mismatchNotLoggedReason } from "./mismatch-common";
import { EARLY_PARAM, MIN_LENGTH_PARAM } from "./streak-check";
import type { MismatchSeries } from "../diagnostics/mismatch-series";

/** The declared check. */
export const mismatchGrowth = defineCheck({
  name: "mismatch_growth",
  severity: "warning",
  unit: "rollout",
  params: [
    EARLY_PARAM(4),
    { name: "multiple", default: 4, min: 1, minInclusive: false, doc: "multiple of the run's early median a value must exceed" },
    MIN_LENGTH_PARAM(2),
  ],
  rule: (p, profile) =>
    `a mean |train - inference log-prob| (the profile's absDiff mismatch keys, per ${singular(profile.recordNoun)}) above ${p.multiple} x the median of the run's first ${p.early} logged values, ${p.min_length} or more values in a row`,
  is: "the trainer and the inference engine disagree far more about the sampled tokens than they did early in this run, and keep disagreeing",
  isNot:
    "not proof of a weight-sync bug: a precision change, a new kind of prompt or a policy that moved into low-probability regions raise it too; read it beside the correction's statistics and the restarts",
  detects: ["mismatch"],
  run(aligned, p, profile, inputs = new CheckInputs(aligned, profile)) {
    const { series, notLogged } = inputs.mismatchSeries();
    const absDiff = series.filter((s) => s.quantity === "absDiff");
    if (absDiff.length === 0)
      return {
        applicable: false,
        reason:
          series.length === 0
            ? mismatchNotLoggedReason(profile, notLogged)
            : `these runs log no mean |train - inference log-prob| (they log ${series.map((s) => s.name).join(", ")})`,
      };
    const rule = {
      minLength: p.min_length,
      early: p.early,
      side: "above" as const,
      threshold: (base: number | null) => (base !== null && base > 0 ? p.multiple * base : null),
      fires: (v: number, th: number) => v > th,
      trailing: 0,
    };
    const outcomes = absDiff.map((s) => streakFlags(tracesOf(s), rule));
    return {
      applicable: true,
      flags: outcomes.flatMap((o) => o.flags),
      evidence: outcomes.map((o, i) => `${absDiff[i].name}: ${streakEvidence(o, p.early)}`).join("; "),
    };
  },
});

/** A mismatch series as one trace per run (its points are finite, in round order then by x). */
function tracesOf(s: MismatchSeries): ConceptTrace[] {
  const byRun = new Map<string, ConceptTrace & { xs: number[]; values: number[] }>();
  for (const pt of s.points) {
    let t = byRun.get(pt.runId);
    if (t === undefined) {
      t = { runId: pt.runId, round: pt.round, key: s.name, xs: [], values: [] };
      byRun.set(pt.runId, t);
    }
    t.xs.push(pt.x);
    t.values.push(pt.value);
  }
  return [...byRun.values()];
}
