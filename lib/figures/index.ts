/** Figure specs (plotly JSON) built from aligned records; display them with lib/display. */
export {
  baseLayout,
  describeKey,
  type Figure,
  FIGURE_HEIGHT,
  type FigureAnnotation,
  type FigureLayout,
  type FigureMeta,
  type FigureShape,
  integerAxisTicks,
  keyAxisTitle,
  plotValue,
  type Trace,
} from "./figure";
export { BAND_FILL, BOUNDARY_COLOR, CATEGORY_COLORS, categoryColor, HIGHLIGHT_COLOR, SERIES_COLOR } from "./palette";
export { roundMarks, type RoundSpan, roundSpans, roundSpansOf } from "./round-marks";
export {
  MARKER_LIMIT,
  requireKey,
  requirePerUpdateKey,
  updateCustomData,
  updateHoverTemplate,
  updateSeriesFigure,
  type UpdateSeriesOptions,
  updatesInOrder,
} from "./update-series";
export { updatesByPositionFigure, type UpdatesByPositionOptions } from "./updates-by-position";
export { rolloutSeriesFigure, type RolloutSeriesOptions, rolloutsInOrder } from "./rollout-series";
export { timeBreakdownFigure, type TimeBreakdownOptions, type TimeBreakdownRow, timeKeyLabel } from "./time-breakdown";
export { stepAxesFigure, type StepAxesOptions } from "./step-axes";
export { type ConceptSeries, conceptSeriesFigure, type ConceptSeriesOptions } from "./concept-series";
export { EARLY_FILL, FLAG_FILL, HEALTH_FIGURE_HEIGHT, healthFlagFigure } from "./health-flag-figure";
export {
  addReduction,
  noteReduction,
  pickAt,
  REDUCE_ABOVE,
  REDUCE_BUCKETS,
  reducedIndices,
  type ReduceOptions,
  type Reduction,
  REDUCTION_HOVER,
  reductionText,
} from "./reduce-points";
export { compareRoundsFigure } from "./compare-rounds";
export { mismatchFigure } from "./mismatch-figure";
export { compareForestFigure } from "./compare-forest";
