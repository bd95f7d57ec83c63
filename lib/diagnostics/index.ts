/** Diagnostics over aligned runs: per-round means of policy, rollout and timing metrics. Re-exports only. */
export {
  AliasUse,
  collectNotes,
  MeanAccumulator,
  type MeanResult,
  nonFiniteMessage,
  type RoundMeanRow,
  roundMeans,
  type RoundMeans,
  type RoundMeansOptions,
} from "./round-mean";
export { firstPositions, rolloutRoundPosition, roundIndex, type RoundIndex, RoundSlot, updateRoundPosition } from "./round-index";
export { describeRollout, describeUpdate } from "./record-label";
export type { TableColumn } from "./table-column";
export {
  POLICY_SPECS,
  policyColumns,
  type PolicyMeanField,
  type PolicyRoundRow,
  policyRoundTable,
  type PolicyRoundTable,
  type PolicyRoundTableOptions,
} from "./policy-round-table";
export { type EntropyChange, entropyChangePercent } from "./entropy-change";
export { ppoKlByPosition, type PpoKlByPosition, type PpoKlByPositionOptions, type PpoKlPositionRow } from "./ppo-kl-by-position";
export { type ZeroGradNormRow, zeroGradNormUpdates, type ZeroGradNormUpdates } from "./zero-grad-norm-updates";
export {
  ROLLOUT_SPECS,
  rolloutColumns,
  type RolloutMeanField,
  type RolloutRoundRow,
  rolloutRoundTable,
  type RolloutRoundTable,
  type RolloutRoundTableOptions,
} from "./rollout-round-table";
export {
  type MissingPerfRollout,
  timeBreakdown,
  type TimeBreakdown,
  type TimeBreakdownOptions,
  type TimeBreakdownRow,
  type TimeEntry,
  type TimeTotal,
} from "./time-breakdown";
export {
  type MismatchNotLogged,
  type MismatchPoint,
  type MismatchRoundMean,
  mismatchSeries,
  type MismatchSeries,
  type MismatchSeriesSet,
} from "./mismatch-series";
export {
  driftOverRounds,
  type DriftOverRounds,
  type DriftWithinRound,
  driftWithinRounds,
  formatSlope,
  leastSquares,
  type LeastSquaresLine,
} from "./mismatch-drift";
export { type ResumeJump, resumeJumps, type ResumePoint, resumePoints } from "./mismatch-resumes";
export { correctionEffect, type CorrectionEffect, type CorrectionRow } from "./mismatch-correction";
export { MISMATCH_RESUME_WINDOW, mismatchPanel, type MismatchPanel, type MismatchPanelEntry } from "./mismatch-panel";
export { recordCountsText } from "./record-counts";
