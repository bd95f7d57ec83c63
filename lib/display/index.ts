/** Notebook display (figures, tables, metric notes) and the static-image pass; re-exports only. */
export { type DisplayTarget, PLOTLY_MIME, resolveDisplay, type ShowOptions, tslabDisplay } from "./display-target";
export { figureForDisplay, showFigure } from "./show-figure";
export {
  type DataFrameLike,
  escapeHtml,
  formatCell,
  isDataFrameLike,
  MISSING_CELL,
  precisionNote,
  type TableCell,
  tableHtml,
  type TableOptions,
  type TableRow,
  tableRows,
} from "./table-html";
export { showTable, type ShowTableOptions, tableCaptionMarkdown } from "./show-table";
export { escapeMarkdown, grainText, metricNoteMarkdown, resolveMetric, showNote, type ShowNoteOptions } from "./metric-note";
export {
  figureTitle,
  type Notebook,
  type NotebookCell,
  type NotebookOutput,
  parseNotebook,
  type PlotlyOutputRef,
  plotlyOutputs,
  serializeNotebook,
  splitLines,
  type StaticImage,
  withStaticImages,
} from "./notebook-static-images";
export {
  chromiumCandidates,
  CHROMIUM_FLAGS,
  DEFAULT_IMAGE_SIZE,
  findChromium,
  imageSize,
  openPlotlyRenderer,
  plotlyJsPath,
  type PlotlyRenderer,
  type PlotlyRendererOptions,
  type RenderedImage,
} from "./plotly-renderer";
export { showConcept } from "./show-concept";
export {
  HEALTH_SUMMARY_MARKER,
  healthFlagRows,
  healthFlagsCaption,
  healthIndexEntries,
  type HealthIndexEntry,
  healthParamRows,
  healthReadingMarkdown,
  healthResultRows,
  healthResultsHtml,
  healthSummaryFromNotebook,
  NOT_MEASURED,
  showHealthReading,
  showHealthResults,
} from "./show-health";
export { listText } from "./table-row-cap";
export {
  armRows,
  COMPARE_SIGNIFICANT,
  comparedLabel,
  compareReadingMarkdown,
  multipleComparisonsMarkdown,
  nothingComparedText,
  outsideRows,
  pairRows,
  refusalRows,
  showCompareReading,
  showMultipleComparisons,
} from "./show-compare";
export { mismatchRows, showMismatchPanel } from "./show-mismatch";
