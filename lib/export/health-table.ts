/** health.csv: one row per health flag, in check order, then round order, then first position. */
import type { HealthReport } from "../health/run-health-checks";
import type { ExportTable } from "./csv-text";

/** File name of the health export. */
export const HEALTH_FILE = "health.csv";

/** The health.csv header, in order (the export contract). */
export const HEALTH_COLUMNS = ["check", "severity", "round", "run_id", "unit", "first", "last", "count", "key", "value", "rule"] as const;

/**
 * The health.csv table of a report: `first`/`last` are display update numbers or rollout ids (see
 * `unit`), `value` the most extreme value of the range (empty when the flag is about an absence).
 * @example csvText(healthTable(runHealthChecks(aligned)))
 */
export function healthTable(report: HealthReport): ExportTable {
  return {
    name: HEALTH_FILE,
    columns: [...HEALTH_COLUMNS],
    rows: report.flags.map((f) => [f.check, f.severity, f.round, f.runId, f.unit, f.first, f.last, f.count, f.key, f.value, f.rule]),
  };
}
