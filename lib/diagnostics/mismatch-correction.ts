/**
 * What a train/inference correction did, where the run logs it: per round, the fraction of tokens
 * it clipped or masked, and the importance-ratio means before ("raw") and after ("applied") it. A
 * correction reweights, truncates or drops tokens in the loss; it changes neither log-prob, so the
 * gap a framework logs is the gap before the correction, and no "gap after" exists to compare.
 */
import { MISMATCH_QUANTITIES } from "../registry/mismatch";
import type { MismatchSeries } from "./mismatch-series";

/** One logged statistic of the correction, per round. */
export interface CorrectionRow {
  name: string;
  /** What the statistic is: "fraction clipped or masked", "ratio mean (raw)", "ratio mean (applied)". */
  what: string;
  /** Round means in round order (null: the round does not log it). */
  means: (number | null)[];
}

/** The correction's logged statistics and what they can and cannot say. */
export interface CorrectionEffect {
  rows: CorrectionRow[];
  text: string;
}

const CANNOT =
  "a correction reweights, truncates or drops tokens in the loss and changes neither log-prob: the logged gap is the gap before it, and there is no gap after it to compare";

/** The correction statistics among the series (fractions clipped or masked, ratio means by stage). */
export function correctionEffect(series: readonly MismatchSeries[]): CorrectionEffect {
  const rows: CorrectionRow[] = [];
  for (const s of series) {
    let what: string | null = null;
    if (s.quantity === "correctedFraction") what = MISMATCH_QUANTITIES.correctedFraction.label;
    else if (s.quantity === "isRatioMean" && s.metric.stage !== undefined) what = `${MISMATCH_QUANTITIES.isRatioMean.label} (${s.metric.stage})`;
    if (what !== null) rows.push({ name: s.name, what, means: s.rounds.map((r) => r.mean.mean) });
  }
  const text =
    rows.length === 0
      ? `no statistic of a correction is logged (no correction ran, or the framework logs none); ${CANNOT}`
      : `what the correction did: ${rows.map((r) => `${r.what} (${r.name})`).join("; ")}; ${CANNOT}`;
  return { rows, text };
}
