/** Alignment: the dispatcher, slime's rollout/update axes, and reading coverage and issues. */
export { classifyRow, isRolloutRowKind, ROW_KIND_RULES } from "./slime/classify-row";
export { makeAxisMapping, runUpdateNumber } from "./slime/axis-formulas";
export {
  buildRunAxes,
  decideRunAxes,
  firstRolloutOf,
  inferAxisMapping,
  type InferAxisMappingOptions,
  mappingFromRunAxes,
  type RunAxisDecision,
} from "./slime/infer-axis-mapping";
export { alignRuns, type AlignRunsOptions } from "./align-runs";
export { checkCoverage, type CoverageResult } from "./slime/coverage";
export {
  assertAligned,
  type AssertAlignedOptions,
  assertMappingHolds,
  type AssertMappingHoldsOptions,
  BLOCKING_ISSUE_KINDS,
  blockingIssues,
  coverageTable,
  type CoverageTableRow,
} from "./issues";
export { alignSteps, type AlignStepsOptions } from "./steps/align-steps";
export { mappingVerdict, runAxesTable, supersededRows } from "./axis-report";
export type { AlignedRuns, AxisMapping, AxisRecord, UpdateRecord } from "./aligned-types";
