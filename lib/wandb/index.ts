/** W&B history reader: complete, unsampled history over the public GraphQL API. Re-exports only. */
export * from "./connection";
export * from "./credentials";
export * from "./download-export";
export * from "./fetch-runs";
export * from "./graphql-request";
export * from "./map-concurrent";
export * from "./parse-history-row";
export * from "./parquet-rows";
export * from "./queries";
export * from "./read-history";
export * from "./read-run-config";
export * from "./read-run-meta";
export * from "./reader-limits";
export * from "./retry-policy";
export * from "./scan-history";
export * from "./version";
export * from "./wandb-error";
