/**
 * Runs the declared health checks over aligned runs: each check's flags with the check's name,
 * severity, unit and rule (with the parameter values used), or why it is not applicable.
 */
import { absentReason, singular, type FrameworkProfile } from "../registry/framework-profile";
import { profileOfAligned } from "../registry/profiles";
import { conditionText, runsWhereHolds } from "../registry/semantic-flags";
import { CheckInputs } from "./check-inputs";
import { nestedContainers } from "./timer-parts-exceed-container";
import type { AlignedRuns } from "../types";
import type { HealthCheck, HealthCheckParams, HealthFlag, HealthOutcome, HealthSeverity } from "./health-check";
import { HEALTH_CHECKS } from "./health-checks";
import { allowedText, defaultHealthParams, isAllowed, type HealthParams } from "./health-params";
import { withScanIndex } from "../values/key-column";

/** What one check found. */
export interface HealthCheckResult {
  check: string;
  severity: HealthSeverity;
  unit: HealthCheck["unit"];
  params: HealthCheckParams;
  /** The rule with the parameter values used. */
  rule: string;
  is: string;
  isNot: string;
  status: "flagged" | "no flags" | "not applicable";
  /** Why the check is not applicable; null otherwise. */
  reason: string | null;
  /** Thresholds as computed on these runs (e.g. medians); null when the check has none. */
  evidence: string | null;
  flags: HealthFlag[];
}

/** The health report: one result per check, in check order, and all flags in that order. */
export interface HealthReport {
  results: HealthCheckResult[];
  flags: HealthFlag[];
  /** What a flag of unit "rollout" counts on these runs, from their profile: "rollout batch", "training step", "logged step". */
  recordNoun: string;
}

/**
 * Runs every check with `params` (default: the declared defaults). Throws
 * `invalid <check>.<param>: <value>` when a parameter is missing or out of bounds.
 * @example runHealthChecks(aligned).results.map((r) => `${r.check}: ${r.flags.length}`)
 */
export function runHealthChecks(
  aligned: AlignedRuns,
  params: HealthParams = defaultHealthParams(),
  checks: readonly HealthCheck[] = HEALTH_CHECKS,
): HealthReport {
  const inputs = new CheckInputs(aligned, profileOfAligned(aligned));
  // Two dozen scans of the same records: through an index of where their values are.
  const results = withScanIndex([aligned.updates, aligned.rollouts], () => checks.map((c) => runOne(inputs, c, checkParams(c, params))));
  return { results, flags: ([] as HealthFlag[]).concat(...results.map((r) => r.flags)), recordNoun: singular(inputs.profile.recordNoun) };
}

function checkParams(c: HealthCheck, params: HealthParams): HealthCheckParams {
  const out: HealthCheckParams = {};
  for (const s of c.params) {
    const v = params[c.name]?.[s.name];
    if (typeof v !== "number" || !isAllowed(s, v)) throw new Error(`invalid ${c.name}.${s.name}: ${String(v)} (${allowedText(s)})`);
    out[s.name] = v;
  }
  return out;
}

function runOne(inputs: CheckInputs, c: HealthCheck, p: HealthCheckParams): HealthCheckResult {
  const { aligned, profile } = inputs;
  const rule = c.rule(p, profile);
  const base = { check: c.name, severity: c.severity, unit: c.unit, params: p, rule, is: c.is, isNot: c.isNot };
  const outcome = needsGate(inputs, c) ?? flagGate(aligned, profile, c) ?? c.run(aligned, p, profile, inputs);
  if (outcome.applicable === false) return { ...base, status: "not applicable", reason: outcome.reason, evidence: null, flags: [] };
  const flags: HealthFlag[] = outcome.flags.map((f) => ({
    check: c.name,
    severity: c.severity,
    round: f.round,
    runId: f.runId,
    unit: f.unit ?? (c.unit === "rollout" ? "rollout" : "update"),
    first: f.first,
    last: f.last,
    count: f.count,
    key: f.key,
    value: f.value,
    rule,
    at: f.at,
    ...(f.raisedAt === undefined ? {} : { raisedAt: f.raisedAt }),
    ...(f.window === undefined ? {} : { window: f.window }),
  }));
  return { ...base, status: flags.length > 0 ? "flagged" : "no flags", reason: null, evidence: outcome.evidence ?? null, flags };
}

/** Not applicable, with the profile's reason, when the profile (or, for updates, the runs' settings) lacks something the check reads; null otherwise. */
function needsGate(inputs: CheckInputs, c: HealthCheck): HealthOutcome | null {
  const profile = inputs.profile;
  const needs = c.needs ?? {};
  for (const concept of needs.concepts ?? []) {
    const reason = absentReason(profile, concept);
    if (reason !== null) return { applicable: false, reason };
  }
  if (needs.updates) {
    const seen = inputs.updates();
    if (seen.observed === false) return { applicable: false, reason: seen.reason };
  }
  const t = profile.timers;
  const lacking: [boolean | undefined, boolean, string][] = [
    [needs.separateTimer, t.separateTimer === null, `${profile.label} logs every timer in the step's own row: no record can lack its trainer row`],
    [needs.stepSum, t.stepSum === null, `${profile.label} declares no step timer that is exactly the sum of its parts`],
    [needs.nestedTimers, nestedContainers(profile).length === 0, `${profile.label} declares no timers nested inside another besides the step timer`],
  ];
  for (const [needed, lacks, reason] of lacking) if (needed && lacks) return { applicable: false, reason };
  return null;
}

/**
 * Not applicable when a run's semantic flags give the check another meaning (a ConditionalMeaning of
 * the profile): a check read under a meaning it was not written for would raise false flags. Names
 * the runs; a set where only some runs have the flag is refused whole, never half-read.
 */
function flagGate(aligned: AlignedRuns, profile: FrameworkProfile, c: HealthCheck): HealthOutcome | null {
  for (const m of profile.meanings) {
    if (m.check?.name !== c.name) continue;
    const runs = runsWhereHolds(m, aligned.runs);
    if (runs.length === 0) continue;
    const which = runs.map((r) => `${r.runId} (round ${r.round})`).join(", ");
    return { applicable: false, reason: `${m.check.notApplicable} (${conditionText(m.when)} in run${runs.length === 1 ? "" : "s"} ${which})` };
  }
  return null;
}

/**
 * One line per check, e.g. `zero_grad_norm_streak: 0 flags (rule: ...)` or
 * `truncation_surge: not applicable (no rollout batch logs rollout/truncated_ratio ...)`.
 */
export function healthSummaryLine(r: HealthCheckResult): string {
  if (r.status === "not applicable") return `${r.check}: not applicable (${r.reason})`;
  const n = r.flags.length;
  return `${r.check}: ${n} flag${n === 1 ? "" : "s"} [${r.severity}] (rule: ${r.rule})`;
}
