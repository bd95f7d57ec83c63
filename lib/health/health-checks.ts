/** The declared health checks, in report order (the order of health.csv and of the notebook). */
import type { HealthCheck } from "./health-check";
import { logprobGapJump } from "./logprob-gap-jump";
import { mismatchDrift } from "./mismatch-drift";
import { mismatchResumeSpike } from "./mismatch-resume-spike";
import { missingTrainerPerf } from "./missing-trainer-perf";
import { nonFinite } from "./non-finite";
import { ppoKlFirstUpdate } from "./ppo-kl-first-update";
import { ppoKlStuckZero } from "./ppo-kl-stuck-zero";
import { stepTimeMismatch } from "./step-time-mismatch";
import { timerPartsExceedContainer } from "./timer-parts-exceed-container";
import { throughputDrop } from "./throughput-drop";
import { truncationSurge } from "./truncation-surge";
import { zeroGradNormStreak } from "./zero-grad-norm-streak";
import { entropyCollapse } from "./entropy-collapse";
import { gradNormSpike } from "./grad-norm-spike";
import { learningStalled } from "./learning-stalled";
import { zeroAdvantages } from "./zero-advantages";
import { truncationSaturation } from "./truncation-saturation";
import { lengthCollapse } from "./length-collapse";
import { klRefDrift } from "./kl-ref-drift";
import { mismatchGrowth } from "./mismatch-growth";

/** Every check the report runs, in order. */
export const HEALTH_CHECKS: readonly HealthCheck[] = [
  ppoKlFirstUpdate,
  zeroGradNormStreak,
  nonFinite,
  truncationSurge,
  logprobGapJump,
  mismatchDrift,
  mismatchResumeSpike,
  ppoKlStuckZero,
  missingTrainerPerf,
  stepTimeMismatch,
  timerPartsExceedContainer,
  throughputDrop,
  // Concept rules measured on the labelled corpus of real failures (bench/detectors).
  entropyCollapse,
  learningStalled,
  zeroAdvantages,
  gradNormSpike,
  truncationSaturation,
  lengthCollapse,
  klRefDrift,
  mismatchGrowth,
];
