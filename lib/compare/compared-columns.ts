/**
 * What the comparison compares: the mean columns of summary.csv (lib/export/summary-table.ts), each
 * with its registry concept, the subset of updates it averages (per-position statistics average only
 * the first, or only the later, updates of a batch) and the framework's metric or why it has none.
 */
import { CONCEPTS, type Concept } from "../registry/concepts";
import type { FrameworkProfile } from "../registry/framework-profile";
import type { MetricSpec } from "../registry/metric-spec";
import { POLICY_SPECS } from "../diagnostics/policy-round-table";
import { ROLLOUT_SPECS } from "../diagnostics/rollout-round-table";
import { summaryColumnsFor, type SummaryMeanColumn } from "../export/summary-table";

/** One compared column of summary.csv under one framework profile. */
export interface ComparedColumn {
  /** The summary.csv column name, the `concept` of the comparison's CSVs (e.g. "entropy_mean"). */
  name: string;
  concept: Concept;
  /** What a page calls it: the metric's label with the subset ("ppo_kl (first update of batch)"), never an internal id. */
  label: string;
  /** "first" / "later": a per-position statistic (updates by position in their batch); "all" otherwise. */
  subset: "all" | "first" | "later";
  /** The profile's metric of the concept; null when it logs none (see `absent`). */
  metric: MetricSpec | null;
  absent: string | null;
}

/** The concept and subset of a summary mean column, from the diagnostics table specs it reads. */
function specOf(col: SummaryMeanColumn): { concept: Concept; subset: ComparedColumn["subset"] } {
  const spec = col.source.table === "policy" ? POLICY_SPECS.find((s) => s.field === col.source.field) : ROLLOUT_SPECS.find((s) => s.field === col.source.field);
  if (spec === undefined) throw new Error(`invalid summary column: ${col.name} (no diagnostics spec for ${col.source.table}.${col.source.field})`);
  return { concept: CONCEPTS[spec.concept], subset: spec.subset };
}

/**
 * The mean columns of summary.csv for one framework, in summary.csv's order.
 * @example comparedColumns(SLIME_PROFILE).map((c) => c.name) // ["entropy_mean", "clipfrac_mean", ...]
 */
export function comparedColumns(profile: FrameworkProfile): ComparedColumn[] {
  const out: ComparedColumn[] = [];
  for (const col of summaryColumnsFor(profile)) {
    if (col.kind !== "mean") continue;
    const { concept, subset } = specOf(col);
    // The diagnostics column as resolved for the profile: a per-position subset of a metric logged once
    // per step has no metric (positions are averaged away), so it is refused as not logged, with why.
    out.push({ name: col.name, concept, label: col.column.label, subset, metric: col.column.metric, absent: col.column.absent ?? null });
  }
  return out;
}
