/**
 * The `health` tool: every health check's result on the archive (the same report health.csv is
 * written from, with the same thresholds), each with its rule, what a flag is and is not, and what the
 * rule scored on the labelled corpus of real failures (lib/health/measured-scores-data.ts).
 */
import { MEASURED, measuredText, type RuleScore } from "../health/measured-scores";
import type { HealthCheckResult } from "../health/run-health-checks";
import { type JsonCell, jsonCell } from "./json-cell";
import type { ArchiveSet } from "./served-archive";

/** Input of the `health` tool. */
export interface HealthInput {
  archive?: string;
  /** Only this check (default: every check). */
  check?: string;
  /** Only flags of this round. */
  round?: string;
  /** Only checks that flagged something. */
  flaggedOnly?: boolean;
}

/** One flag: health.csv's row. */
export interface FlagEntry {
  round: string;
  runId: string;
  /** What first/last count: display update numbers or rollout ids. */
  unit: string;
  first: number;
  last: number;
  count: number;
  key: string;
  /** The most extreme value of the range; null when the flag is about an absence. */
  value: JsonCell;
}

/** One check of a `health` answer. */
export interface CheckEntry {
  check: string;
  severity: string;
  status: string;
  /** The rule with the thresholds used, and where each threshold came from. */
  rule: string;
  params: { name: string; value: number; source: string }[];
  is: string;
  isNot: string;
  /** Why not applicable; null otherwise. */
  reason: string | null;
  evidence: string | null;
  /** What the rule scored on real runs with injected failures (null: not measured), and in words. */
  measured: (RuleScore & { recall: number | null; falseAlarmRate: number | null }) | null;
  measuredText: string | null;
  flags: FlagEntry[];
}

/** The `health` answer. */
export interface HealthAnswer {
  archive: string;
  manifestSha256: string;
  /** What a flag of unit "rollout" counts on these runs. */
  recordNoun: string;
  /** The corpus the scores were measured on. */
  corpus: string;
  flagCount: number;
  checks: CheckEntry[];
}

/** The measured scores of a rule with recall (caught / fault runs) and false-alarm rate (per healthy logged value). */
function measuredOf(check: string): CheckEntry["measured"] {
  const s = MEASURED.rules[check];
  if (s === undefined) return null;
  return {
    ...s,
    classes: [...s.classes],
    recall: s.faultRuns === 0 ? null : s.caught / s.faultRuns,
    falseAlarmRate: s.healthyValues === 0 ? null : s.falseAlarms / s.healthyValues,
  };
}

function checkEntry(r: HealthCheckResult, sources: Map<string, string>, round: string | undefined): CheckEntry {
  return {
    check: r.check,
    severity: r.severity,
    status: r.status,
    rule: r.rule,
    params: Object.keys(r.params).map((name) => ({ name, value: r.params[name], source: sources.get(`${r.check}.${name}`) ?? "default" })),
    is: r.is,
    isNot: r.isNot,
    reason: r.reason,
    evidence: r.evidence,
    measured: measuredOf(r.check),
    measuredText: measuredText(r.check),
    flags: r.flags
      .filter((f) => round === undefined || f.round === round)
      .map((f) => ({ round: f.round, runId: f.runId, unit: f.unit, first: f.first, last: f.last, count: f.count, key: f.key, value: jsonCell(f.value) })),
  };
}

/** The `health` answer. */
export function healthAnswer(set: ArchiveSet, input: HealthInput): HealthAnswer {
  const a = set.get(input.archive);
  const { report, settings } = a.health();
  const names = report.results.map((r) => r.check);
  if (input.check !== undefined && !names.includes(input.check)) throw a.refuse("unknown_check", `no check ${input.check}: the checks are ${names.join(", ")}`);
  if (input.round !== undefined && !a.opened.aligned.rounds.includes(input.round))
    throw a.refuse("unknown_round", `no round ${input.round}: the archive has ${a.opened.aligned.rounds.join(", ")}`);
  const sources = new Map(settings.rows.map((r) => [`${r.check}.${r.param}`, r.source]));
  const checks = report.results
    .filter((r) => input.check === undefined || r.check === input.check)
    .map((r) => checkEntry(r, sources, input.round))
    .filter((c) => !input.flaggedOnly || c.flags.length > 0);
  return {
    archive: a.name,
    manifestSha256: a.manifestSha256,
    recordNoun: report.recordNoun,
    corpus: MEASURED.corpus,
    flagCount: checks.reduce((n, c) => n + c.flags.length, 0),
    checks,
  };
}
