/**
 * What a health check is: a small declared rule over the aligned, surviving records, with its
 * parameters (and their defaults), its reading rule (what a flag is, and what it is not) and the
 * function that computes its flags with their evidence. A flag is an observable diagnostic, never
 * proof of a bug.
 */
import type { CheckInputs } from "./check-inputs";
import type { AlignedRuns } from "../types";
import { CONCEPTS, type ConceptId } from "../registry/concepts";
import { metricOf, type FrameworkProfile } from "../registry/framework-profile";

/** How loudly a flag asks to be read: `warning` = look before citing the run; `notice` = worth a look. */
export type HealthSeverity = "warning" | "notice";

/** What a flag's first/last count: display update numbers, or rollout ids. */
export type HealthUnit = "update" | "rollout";

/** One numeric parameter of a check. */
export interface HealthParamSpec {
  /** snake_case name, as in data/runs.json `health.<check>.<name>`. */
  name: string;
  default: number;
  /** Smallest allowed value, and whether it is allowed itself. */
  min: number;
  minInclusive: boolean;
  /** Largest allowed value (inclusive); absent = no upper bound. */
  max?: number;
  integer?: boolean;
  /** What the parameter means, with its unit. */
  doc: string;
}

/** Parameter values of one check, by parameter name. */
export type HealthCheckParams = Record<string, number>;

/** One flag: a range of records of one round that fired a check. */
export interface HealthFlag {
  check: string;
  severity: HealthSeverity;
  round: string;
  runId: string;
  unit: HealthUnit;
  /** First and last display update number (unit update) or rollout id (unit rollout) of the range. */
  first: number;
  last: number;
  /** Records in the range that fired the rule. */
  count: number;
  /** The W&B key the flag is about. */
  key: string;
  /** The most extreme value of the range (NaN / ±Infinity allowed); null when the flag is about an absence. */
  value: number | null;
  /** The rule with its parameter values. */
  rule: string;
  /** Display update numbers or rollout ids that fired (for figures; not exported). */
  at: number[];
  /** Where the rule's condition was first complete (e.g. the 2nd value of a streak of 2); absent = `first`. */
  raisedAt?: number;
  /** What the values were compared with (for the flag's figure); absent for rules without a threshold line. */
  window?: FlagWindow;
}

/** The comparison behind a flag: the threshold, and the run's own early level it came from, if any. */
export interface FlagWindow {
  threshold: number;
  /** Which side of the threshold fires: "above", "below", or "equal" (exactly the threshold). */
  side: "above" | "below" | "equal";
  /** The run's early window: its median, over the values logged at positions first..last. */
  baseline?: { value: number; first: number; last: number };
}

/** What a check's function returns: flags, or why the check cannot say anything on these runs. */
export type HealthOutcome =
  | {
      applicable: true;
      /** Flags without the check's own fields; `unit` only where it differs per flag (non_finite). */
      flags: (Omit<HealthFlag, "check" | "severity" | "unit" | "rule"> & { unit?: HealthUnit })[];
      /** The thresholds as computed on these runs (e.g. the medians), printed beside the rule. */
      evidence?: string;
    }
  | { applicable: false; reason: string };

/** The failure classes of the labelled corpus of real runs (test/fixtures/real-runs/faults/), which checks are measured on. */
export type FaultClass = "entropy_collapse" | "learning_stopped" | "length_runaway" | "length_collapse" | "non_finite" | "grad_spike" | "kl_drift" | "mismatch";

/** A declared health check. */
export interface HealthCheck {
  /** snake_case name (the `check` column of health.csv). */
  name: string;
  severity: HealthSeverity;
  /** Unit of its flags; "update or rollout" when each flag says (non_finite). */
  unit: HealthUnit | "update or rollout";
  params: readonly HealthParamSpec[];
  /**
   * What the rule reads through the runs' profile (lib/registry); a profile that lacks any of it
   * makes the check not applicable, with the profile's own reason. Absent = nothing beyond the records.
   */
  needs?: CheckNeeds;
  /** The rule, with parameter values and the framework's keys filled in. */
  rule(p: HealthCheckParams, profile: FrameworkProfile): string;
  /** What a flag is. */
  is: string;
  /** What a flag is not: an observable diagnostic, never proof of a bug. */
  isNot: string;
  /** The corpus's failure classes this check is meant to catch: its recall is measured on their runs (bench/detectors). */
  detects?: readonly FaultClass[];
  /**
   * Computes the flags (without the check's own fields, which runHealthChecks adds; a flag's unit
   * defaults to the check's). `inputs`: what the report's checks share (absent when a check runs alone).
   */
  run(aligned: AlignedRuns, p: HealthCheckParams, profile: FrameworkProfile, inputs?: CheckInputs): HealthOutcome;
}

/** What a check reads, declared so that applicability follows from the profile, never from its name. */
export interface CheckNeeds {
  /** Concepts whose keys the rule reads: each must be mapped by the profile. */
  concepts?: readonly ConceptId[];
  /** Single optimizer updates and their position in the rollout batch. */
  updates?: boolean;
  /** A timer another process logs in rows of its own (TimerSpec.separateTimer). */
  separateTimer?: boolean;
  /** A step timer that is exactly the sum of its parts (TimerSpec.stepSum). */
  stepSum?: boolean;
  /** Timers nested inside containers other than the step timer. */
  nestedTimers?: boolean;
}

/**
 * The key of a concept the check declared in `needs`. A check runs only when the profile maps it; a
 * rule printed for a profile that does not (the check then says not applicable) names the concept.
 */
export function conceptKey(profile: FrameworkProfile, concept: ConceptId): string {
  return metricOf(profile, concept)?.key ?? CONCEPTS[concept].label;
}

/** Declares a check (identity; gives the object literal its type). */
export function defineCheck(check: HealthCheck): HealthCheck {
  return check;
}
