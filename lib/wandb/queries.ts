/**
 * GraphQL documents of the reader, as the official public client sends them
 * (see docs/wandb-protocol.md). Only complete, unsampled history: no `history(samples:)`
 * without a step window, no keyed `sampledHistory`.
 */

/**
 * Run metadata. `config` and `summaryMetrics` are left out on purpose: the workspace never stores
 * them and a config can be megabytes (the config is read once, by RUN_CONFIG_QUERY).
 */
export const RUN_QUERY = `query Run($project: String!, $entity: String!, $name: String!) {
  project(name: $project, entityName: $entity) {
    run(name: $name) {
      id name displayName state createdAt heartbeatAt historyLineCount historyKeys
      tags group jobType sweepName
    }
  }
}`;

/**
 * A run's config (W&B: a JSON string of `{key: {value, desc}}`), as the official client's Run
 * fragment reads it. Held in memory only: the declared semantic flags and the recorded versions are
 * all the archive keeps of it (lib/archive/run-config-facts.ts).
 */
export const RUN_CONFIG_QUERY = `query RunConfig($project: String!, $entity: String!, $name: String!) {
  project(name: $project, entityName: $entity) {
    run(name: $name) {
      config
    }
  }
}`;

/** One step window `[minStep, maxStep)` of the complete history (what `scan_history()` sends). */
export const HISTORY_PAGE_QUERY = `query HistoryPage($entity: String!, $project: String!, $run: String!, $minStep: Int64!, $maxStep: Int64!, $pageSize: Int!) {
  project(name: $project, entityName: $entity) {
    run(name: $run) {
      history(minStep: $minStep, maxStep: $maxStep, samples: $pageSize)
    }
  }
}`;

/**
 * Exported history of a run (wandb-core's query, the official client's path since 0.27.1): signed
 * URLs of the exported parquet files, and for each row not exported yet its `liveKeys` (we ask for
 * `_step` only, as wandb-core does, then page the rows from there through `HistoryPage`). Unlike
 * wandb-core we also ask for `historyLineCount` and `historyKeys` in the same query: the listing and
 * the counts its completeness is checked against then describe one moment of a run that may be growing.
 */
export const PARQUET_HISTORY_QUERY = `query RunParquetHistory($entity: String!, $project: String!, $runName: String!, $liveKeys: [String!]!) {
  project(name: $project, entityName: $entity) {
    run(name: $runName) {
      historyLineCount historyKeys
      parquetHistory(liveKeys: $liveKeys) {
        parquetUrls
        liveData
      }
    }
  }
}`;
