/** Offline health checks over aligned runs: declared rules, parameters, flags. Re-exports only. */
export {
  type CheckNeeds,
  conceptKey,
  defineCheck,
  type FaultClass,
  type FlagWindow,
  type HealthCheck,
  type HealthCheckParams,
  type HealthFlag,
  type HealthOutcome,
  type HealthParamSpec,
  type HealthSeverity,
  type HealthUnit,
} from "./health-check";
export {
  blockPartSums,
  type CheckFlag,
  consecutiveFlags,
  evidenceNumber,
  finiteMedian,
  FiniteValues,
  flagOf,
  groupByRoundAndKey,
  type HealthHit,
  medianInPlace,
  mostExtreme,
  partSums,
  type PartSums,
  roundFlags,
  roundMedians,
} from "./flag-ranges";
export { notLoggedReason } from "./not-applicable";
export { ppoKlFirstUpdate } from "./ppo-kl-first-update";
export { zeroGradNormStreak } from "./zero-grad-norm-streak";
export { nonFinite } from "./non-finite";
export { truncationSurge } from "./truncation-surge";
export { logprobGapJump } from "./logprob-gap-jump";
export { ppoKlStuckZero } from "./ppo-kl-stuck-zero";
export { missingTrainerPerf } from "./missing-trainer-perf";
export { stepTimeMismatch } from "./step-time-mismatch";
export { nestedContainers, timerPartsExceedContainer } from "./timer-parts-exceed-container";
export { throughputDrop } from "./throughput-drop";
export { HEALTH_CHECKS } from "./health-checks";
export {
  allowedText,
  defaultHealthParams,
  healthEnvName,
  type HealthParamRow,
  type HealthParams,
  type HealthParamSource,
  healthSettings,
  type HealthSettings,
  isAllowed,
  readHealthConfig,
  type ResolveHealthOptions,
  resolveHealthParams,
} from "./health-params";
export { type HealthCheckResult, type HealthReport, healthSummaryLine, runHealthChecks } from "./run-health-checks";
