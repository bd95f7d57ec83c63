/**
 * A check over one registry concept: a declared streak rule ({@link StreakRule}) read at the grain the
 * framework logs the concept. One rule serves every framework whose profile maps the concept; the
 * others get "not applicable" with the profile's reason (needs.concepts).
 */
import type { ConceptId } from "../registry/concepts";
import { metricOf, singular, type FrameworkProfile } from "../registry/framework-profile";
import { conceptTraces, flagUnit, streakEvidence, streakFlags, type StreakRule } from "./concept-trace";
import { conceptKey, defineCheck, type HealthCheck, type HealthCheckParams, type HealthParamSpec, type HealthSeverity } from "./health-check";
import { notLoggedReason } from "./not-applicable";

/** What a concept streak check declares. */
export interface StreakCheckSpec {
  name: string;
  severity: HealthSeverity;
  concept: ConceptId;
  params: readonly HealthParamSpec[];
  rule(p: HealthCheckParams, profile: FrameworkProfile): string;
  is: string;
  isNot: string;
  detects: HealthCheck["detects"];
  streak(p: HealthCheckParams): StreakRule;
}

/** Declares a concept streak check; flags are per rollout-grain record or per update, as the concept is logged. */
export function defineStreakCheck(spec: StreakCheckSpec): HealthCheck {
  return defineCheck({
    name: spec.name,
    severity: spec.severity,
    unit: "update or rollout",
    needs: { concepts: [spec.concept] },
    params: spec.params,
    rule: spec.rule,
    is: spec.is,
    isNot: spec.isNot,
    detects: spec.detects,
    run(aligned, p, profile) {
      const traces = conceptTraces(aligned, profile, spec.concept);
      const metric = metricOf(profile, spec.concept);
      if (metric === null || traces.length === 0)
        return {
          applicable: false,
          reason: notLoggedReason(metric?.grain === "update" ? "optimizer update" : singular(profile.recordNoun), conceptKey(profile, spec.concept)),
        };
      const rule = spec.streak(p);
      const o = streakFlags(traces, rule);
      const unit = flagUnit(profile, spec.concept);
      return { applicable: true, flags: o.flags.map((f) => ({ ...f, unit })), evidence: streakEvidence(o, rule.early) };
    },
  });
}

/** The shared parameter specs: early window, streak length. */
export const EARLY_PARAM = (dflt: number): HealthParamSpec => ({
  name: "early",
  default: dflt,
  min: 1,
  minInclusive: true,
  integer: true,
  doc: "logged values of each run's early window, whose median is the run's own level (they are never flagged themselves)",
});
export const MIN_LENGTH_PARAM = (dflt: number): HealthParamSpec => ({
  name: "min_length",
  default: dflt,
  min: 1,
  minInclusive: true,
  integer: true,
  doc: "consecutive logged values that must cross the threshold before a flag is raised",
});
