/** Diagnostics over aligned runs: per-round means of policy, rollout and timing metrics. Re-exports only. */
export * from "./round-mean";
export * from "./round-index";
export * from "./record-label";
export * from "./table-column";
export * from "./policy-round-table";
export * from "./entropy-change";
export * from "./ppo-kl-by-position";
export * from "./zero-grad-norm-updates";
export * from "./rollout-round-table";
export * from "./time-breakdown";
export * from "./mismatch-series";
export * from "./mismatch-drift";
export * from "./mismatch-resumes";
export * from "./mismatch-correction";
export * from "./mismatch-panel";
export * from "./record-counts";
