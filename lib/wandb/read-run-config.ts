/** A run's config from the W&B `RunConfig` query, parsed, in memory only (see RUN_CONFIG_QUERY). */
import type { WandbConnection } from "./connection";
import { graphqlRequest } from "./graphql-request";
import { RUN_CONFIG_QUERY } from "./queries";
import { type RunRef, runPath } from "./read-run-meta";
import { WandbError } from "./wandb-error";

interface RunConfigData {
  project: { run: { config?: unknown } | null } | null;
}

/**
 * The run's config as an object (`{}` when the server has none); `WandbError` naming the run when the
 * run is gone or the config is not a JSON object. Its values never appear in an error.
 */
export async function readRunConfig(conn: WandbConnection, ref: RunRef, signal?: AbortSignal): Promise<Record<string, unknown>> {
  const path = runPath(ref);
  const data = await graphqlRequest<RunConfigData>(
    conn,
    { operationName: "RunConfig", query: RUN_CONFIG_QUERY, variables: { project: ref.project, entity: ref.entity, name: ref.runId }, runPath: path },
    signal,
  );
  const run = data.project?.run;
  if (!run) throw new WandbError({ operation: "RunConfig", runPath: path, detail: `run ${ref.runId} not found in ${ref.entity}/${ref.project}` });
  const raw = run.config ?? "{}";
  let config: unknown = raw;
  if (typeof raw === "string") {
    try {
      config = JSON.parse(raw);
    } catch {
      throw new WandbError({ operation: "RunConfig", runPath: path, detail: `config is not JSON (${raw.length} characters)` });
    }
  }
  if (config === null || typeof config !== "object" || Array.isArray(config)) {
    throw new WandbError({ operation: "RunConfig", runPath: path, detail: "config is not a JSON object" });
  }
  return config as Record<string, unknown>;
}
