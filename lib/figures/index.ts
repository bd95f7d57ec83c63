/** Figure specs (plotly JSON) built from aligned records; display them with lib/display. */
export * from "./figure";
export * from "./palette";
export * from "./round-marks";
export * from "./update-series";
export * from "./updates-by-position";
export * from "./rollout-series";
export * from "./time-breakdown";
export * from "./step-axes";
export * from "./concept-series";
export * from "./health-flag-figure";
export * from "./reduce-points";
export * from "./compare-rounds";
export * from "./mismatch-figure";
export * from "./compare-forest";
