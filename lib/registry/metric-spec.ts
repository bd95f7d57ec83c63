/**
 * What a framework's metric is: the key it logs, what a per-round mean of it is taken over, and what
 * the number is and is not. Every profile (lib/registry/profile-*.ts) maps the registry's concepts to
 * such specs. A concept's label and unit are written once, in the concept (lib/registry/concepts.ts):
 * a profile declares a {@link ConceptMetric}, and metricOf adds them.
 */

/** What a per-round mean of this metric is taken over. */
export type MetricGrain = "update" | "rollout";

/** One metric of a framework. */
export interface MetricSpec {
  /** The W&B history key exactly as the framework logs it. */
  key: string;
  /** Short human label for tables and axes. */
  label: string;
  unit: string;
  grain: MetricGrain;
  /** What the number is. */
  is: string;
  /** What it is not: the reading rule that stops a common misreading. */
  isNot: string;
  /** Keys older versions of the framework logged for the same metric (read when `key` is absent), with what differs. */
  aliases?: readonly KeyAlias[];
}

/** A key an older version of the framework logged instead of the spec's key. */
export interface KeyAlias {
  key: string;
  /** Last version (slime: commit date) that logged it. */
  until: string;
  /** What differs from the current key; printed wherever the alias is read. */
  note: string;
}

/** A profile's metric of a concept: a MetricSpec without the label and unit, which are the concept's. */
export type ConceptMetric = Omit<MetricSpec, "label" | "unit">;

/** Keys by prefix and the step key they are plotted against (a framework that logs several step keys). */
export interface KeyFamily {
  prefix: string;
  stepKey: string;
  grain: MetricGrain;
}
