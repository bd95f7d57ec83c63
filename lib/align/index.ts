/** Alignment: the dispatcher, slime's rollout/update axes, and reading coverage and issues. */
export * from "./slime/classify-row";
export * from "./slime/axis-formulas";
export * from "./slime/infer-axis-mapping";
export * from "./align-runs";
export * from "./slime/coverage";
export * from "./issues";
