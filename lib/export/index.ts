/** CSV exports of aligned runs (rollouts, updates, summary) and their manifest. Re-exports only. */
export * from "./export-cell";
export * from "./csv-text";
export * from "./read-export-csv";
export * from "./record-tables";
export * from "./summary-table";
export * from "./health-table";
export * from "./export-manifest";
export * from "./workspace-version";
export * from "./build-exports";
export * from "./write-files-atomically";
export * from "./write-exports";
