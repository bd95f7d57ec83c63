/**
 * What each rule scored on the labelled corpus of real failures (test split), as
 * `npm run bench -- detectors` wrote it to measured-scores-data.ts: shown beside the rule's text so a
 * reader can judge a flag. A test recomputes the file from the committed corpus.
 */
import { MEASURED_SCORES } from "./measured-scores-data";

/** One rule's measured scores. */
export interface RuleScore {
  /** Fault classes it is meant for (HealthCheck.detects). */
  classes: string[];
  faultRuns: number;
  caught: number;
  /** Median logged values from the fault's step k to the flag; null when nothing was caught. */
  medianDelay: number | null;
  /** The same from the step the fault became visible in the framework's own record. */
  medianVisibleDelay: number | null;
  falseAlarms: number;
  /** Healthy logged values the false alarms are counted over. */
  healthyValues: number;
}

/** The file's shape. */
export interface MeasuredScores {
  corpus: string;
  rules: Record<string, RuleScore>;
}

/** The measured scores, typed (the generated file declares no type: it imports nothing). */
export const MEASURED: MeasuredScores = MEASURED_SCORES;

/**
 * The rule's measured scores in one line; null for a rule that was not measured.
 * @example measuredText("entropy_collapse") // "caught 6/6 entropy_collapse runs (median delay 1 logged value), 0 false alarms in 310 healthy logged values; test split of ..."
 */
export function measuredText(rule: string): string | null {
  const s = MEASURED.rules[rule];
  if (s === undefined) return null;
  if (s.faultRuns === 0)
    return `not yet measured: the corpus has no ${s.classes.join(" or ")} run it applies to; ${s.falseAlarms} false alarms in ${s.healthyValues} healthy logged values (${MEASURED.corpus})`;
  const delay =
    s.medianDelay === null
      ? ""
      : ` (median delay ${s.medianDelay} logged value${s.medianDelay === 1 ? "" : "s"} after the fault, ${s.medianVisibleDelay} after it showed in the framework's own record)`;
  return `caught ${s.caught}/${s.faultRuns} ${s.classes.join(" or ")} runs${delay}, ${s.falseAlarms} false alarm${s.falseAlarms === 1 ? "" : "s"} in ${s.healthyValues} healthy logged values (${MEASURED.corpus})`;
}
