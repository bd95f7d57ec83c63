/** Offline health checks over aligned runs: declared rules, parameters, flags. Re-exports only. */
export * from "./health-check";
export * from "./flag-ranges";
export * from "./not-applicable";
export * from "./ppo-kl-first-update";
export * from "./zero-grad-norm-streak";
export * from "./non-finite";
export * from "./truncation-surge";
export * from "./logprob-gap-jump";
export * from "./ppo-kl-stuck-zero";
export * from "./missing-trainer-perf";
export * from "./step-time-mismatch";
export * from "./timer-parts-exceed-container";
export * from "./throughput-drop";
export * from "./health-checks";
export * from "./health-params";
export * from "./run-health-checks";
