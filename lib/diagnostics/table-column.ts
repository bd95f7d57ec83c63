/**
 * Column descriptions of diagnostic tables, so captions and exports read the key, label and the
 * is / is-not texts from the metric schema instead of repeating them.
 */
import type { ConceptId } from "../registry/concepts";
import type { MetricSpec } from "../registry/metric-spec";

/** One mean column of a diagnostic table. */
export interface TableColumn<F extends string = string> {
  /** Field of the row holding this column's MeanResult. */
  field: F;
  /** Display label (the schema label, plus the subset when the column is one). */
  label: string;
  /** Schema entry of the framework's key for the column: key, unit, is, isNot; null when the framework does not log it (see `absent`). */
  metric: MetricSpec | null;
  /** Why the column is empty for this framework; absent when it has a metric. */
  absent?: string;
  /** What each round's mean is taken over, e.g. "optimizer updates". */
  over: string;
  /** Updates by position in their rollout batch the column averages; absent = all records. */
  subset?: "all" | "first" | "later";
  /** The registry concept the column reads, when it reads one (its rule can depend on the runs' flags). */
  concept?: ConceptId;
}
