/** Offline health checks over aligned runs: declared rules, parameters, flags. Re-exports only. */
export {
  defineCheck,
  type HealthCheck,
  type HealthCheckParams,
  type HealthFlag,
  type HealthOutcome,
  type HealthParamSpec,
  type HealthSeverity,
  type HealthUnit,
} from "./health-check";
export {
  consecutiveFlags,
  evidenceNumber,
  finiteMedian,
  flagOf,
  groupByRoundAndKey,
  mostExtreme,
  roundFlags,
  type CheckFlag,
  type HealthHit,
} from "./flag-ranges";
export { HEALTH_CHECKS, healthCheckByName } from "./health-checks";
export {
  allowedText,
  defaultHealthParams,
  healthEnvName,
  healthSettings,
  isAllowed,
  readHealthConfig,
  resolveHealthParams,
  type HealthParamRow,
  type HealthParams,
  type HealthParamSource,
  type HealthSettings,
  type ResolveHealthOptions,
} from "./health-params";
export { healthSummaryLine, runHealthChecks, type HealthCheckResult, type HealthReport } from "./run-health-checks";
export { ppoKlFirstUpdate } from "./ppo-kl-first-update";
export { zeroGradNormStreak } from "./zero-grad-norm-streak";
export { nonFinite } from "./non-finite";
export { truncationSurge } from "./truncation-surge";
export { logprobGapJump } from "./logprob-gap-jump";
export { ppoKlStuckZero } from "./ppo-kl-stuck-zero";
export { missingTrainerPerf } from "./missing-trainer-perf";
export { STEP_TIME_KEY, stepTimeMismatch } from "./step-time-mismatch";
export { timerPartsExceedContainer } from "./timer-parts-exceed-container";
export { throughputDrop } from "./throughput-drop";
