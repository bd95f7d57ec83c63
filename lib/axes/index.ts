/** Axis alignment of slime runs: row kinds, the N/r0 mapping, aligned records and coverage. */
export * from "./classify-row";
export * from "./axis-formulas";
export * from "./infer-axis-mapping";
export * from "./align-runs";
export * from "./coverage";
