/** Notebook display (figures, tables, metric notes) and the static-image pass; re-exports only. */
export * from "./display-target";
export * from "./show-figure";
export * from "./table-html";
export * from "./show-table";
export * from "./metric-note";
export * from "./notebook-static-images";
export * from "./plotly-renderer";
export * from "./show-concept";
export * from "./show-health";
export { listText } from "./table-row-cap";
export * from "./show-compare";
export * from "./show-mismatch";
