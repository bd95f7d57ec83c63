/**
 * Runs the declared health checks over aligned runs: each check's flags with the check's name,
 * severity, unit and rule (with the parameter values used), or why it is not applicable.
 */
import { profileOfAligned } from "../registry/profiles";
import type { AlignedRuns } from "../types";
import type { HealthCheck, HealthCheckParams, HealthFlag, HealthOutcome, HealthSeverity } from "./health-check";
import { HEALTH_CHECKS } from "./health-checks";
import { allowedText, defaultHealthParams, isAllowed, type HealthParams } from "./health-params";

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
  const results = checks.map((c) => runOne(aligned, c, checkParams(c, params)));
  return { results, flags: ([] as HealthFlag[]).concat(...results.map((r) => r.flags)) };
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

function runOne(aligned: AlignedRuns, c: HealthCheck, p: HealthCheckParams): HealthCheckResult {
  const rule = c.rule(p, profileOfAligned(aligned));
  const base = { check: c.name, severity: c.severity, unit: c.unit, params: p, rule, is: c.is, isNot: c.isNot };
  const outcome = c.profiles === undefined ? c.run(aligned, p) : (profileGate(aligned, c) ?? c.run(aligned, p));
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
  }));
  return { ...base, status: flags.length > 0 ? "flagged" : "no flags", reason: null, evidence: outcome.evidence ?? null, flags };
}

/** Not applicable when the runs were read with a profile the check does not read; null otherwise. */
function profileGate(aligned: AlignedRuns, c: HealthCheck): HealthOutcome | null {
  const profile = profileOfAligned(aligned);
  if (c.profiles === undefined || c.profiles.includes(profile.name)) return null;
  const updates = c.unit === "update" && !profile.updates.observable ? `; ${profile.updates.note}` : "";
  return { applicable: false, reason: `the rule reads ${c.profiles.join(", ")} keys; these runs were read with the ${profile.label} profile${updates}` };
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
