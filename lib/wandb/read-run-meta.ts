/** Run metadata from the W&B `Run` query: state, row count and last step of one run. */
import type { RunMeta } from "../types";
import type { WandbConnection } from "./connection";
import { graphqlRequest } from "./graphql-request";
import { RUN_QUERY } from "./queries";
import { WandbError } from "./wandb-error";

/** The run a reader call is about. */
export interface RunRef {
  entity: string;
  project: string;
  /** Short run id as in run URLs (W&B `name`). */
  runId: string;
}

/** `entity/project/runId`, the run path used in messages. */
export function runPath(ref: RunRef): string {
  return `${ref.entity}/${ref.project}/${ref.runId}`;
}

interface RunQueryData {
  project: {
    run: {
      name?: string;
      displayName?: string | null;
      state?: string | null;
      createdAt?: string | null;
      heartbeatAt?: string | null;
      historyLineCount?: number | null;
      historyKeys?: unknown;
    } | null;
  } | null;
}

/** `lastStep` from the `historyKeys` JSON (string or object); -1 when the run has no history. */
export function lastStepOf(historyKeys: unknown, path: string): number {
  let keys = historyKeys;
  if (typeof historyKeys === "string") {
    try {
      keys = JSON.parse(historyKeys);
    } catch (e) {
      throw new WandbError({ operation: "Run", runPath: path, detail: `historyKeys is not JSON: ${historyKeys.slice(0, 80)}`, cause: e });
    }
  }
  if (keys === null || keys === undefined) return -1;
  const last = (keys as { lastStep?: unknown }).lastStep;
  if (last === undefined || last === null) return -1;
  if (typeof last !== "number" || !Number.isInteger(last) || last < -1) {
    throw new WandbError({ operation: "Run", runPath: path, detail: `historyKeys.lastStep is not an integer: ${JSON.stringify(last)}` });
  }
  return last;
}

/** Reads one run's metadata; `WandbError` when the project or run does not exist. */
export async function readRunMeta(conn: WandbConnection, ref: RunRef, signal?: AbortSignal): Promise<RunMeta> {
  const path = runPath(ref);
  const data = await graphqlRequest<RunQueryData>(
    conn,
    { operationName: "Run", query: RUN_QUERY, variables: { project: ref.project, entity: ref.entity, name: ref.runId }, runPath: path },
    signal,
  );
  if (!data.project) throw new WandbError({ operation: "Run", runPath: path, detail: `project ${ref.entity}/${ref.project} not found` });
  const run = data.project.run;
  if (!run) throw new WandbError({ operation: "Run", runPath: path, detail: `run ${ref.runId} not found in ${ref.entity}/${ref.project}` });
  const count = run.historyLineCount ?? 0;
  if (!Number.isInteger(count) || count < 0) {
    throw new WandbError({ operation: "Run", runPath: path, detail: `historyLineCount is not a count: ${JSON.stringify(run.historyLineCount)}` });
  }
  return {
    entity: ref.entity,
    project: ref.project,
    runId: ref.runId,
    displayName: run.displayName ?? null,
    state: run.state ?? "unknown",
    createdAt: run.createdAt ?? null,
    heartbeatAt: run.heartbeatAt ?? null,
    historyLineCount: count,
    lastStep: lastStepOf(run.historyKeys, path),
  };
}
