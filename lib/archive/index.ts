/** Frozen archive: freeze fetched history, load and verify it offline. Re-exports only. */
export * from "./clock";
export * from "./fetch-and-freeze";
export * from "./freeze-wandb-file";
export * from "./frozen-file-writer";
export * from "../values/frozen-row";
export * from "./load-archive";
export * from "./manifest";
export * from "./replace-dir";
export * from "./runs-config";
