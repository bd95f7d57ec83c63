/**
 * Column descriptions of diagnostic tables, so captions and exports read the key, label and the
 * is / is-not texts from the metric schema instead of repeating them.
 */
import type { MetricSpec } from "../schema/slime-metrics";

/** One mean column of a diagnostic table. */
export interface TableColumn<F extends string = string> {
  /** Field of the row holding this column's MeanResult. */
  field: F;
  /** Display label (the schema label, plus the subset when the column is one). */
  label: string;
  /** Schema entry: key, unit, is, isNot. */
  metric: MetricSpec;
  /** What each round's mean is taken over, e.g. "optimizer updates". */
  over: string;
}
