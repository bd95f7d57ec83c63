/**
 * Logs simulated runs through the real `@wandb/sdk@0.5.1` (init / log / finish) into a
 * W&B-compatible server, exactly as a JS training script would. The SDK overwrites `_timestamp`
 * and `_runtime` with wall-clock values when it processes a row, so the logging runs under a fake
 * clock (fake-clock.ts) that is set to each row's simulated time at the moment the SDK's file
 * stream stamps that row (a wrapper around the run's own `FileStream.logHistory`, which calls the
 * SDK's code unchanged). Rows, their order and their values are exactly what the SDK sends.
 */
import wandb from "@wandb/sdk";

import { installFakeClock } from "./fake-clock";
import type { SimRow, SimRun } from "./simulate";

/** Where and as whom to log. */
export interface SdkTarget {
  baseUrl: string;
  apiKey: string;
  entity: string;
  project: string;
}

/** The dict slime passes to `wandb.log` for a row (key order kept). */
export function wandbLogDict(row: SimRow): Record<string, number> {
  const out: Record<string, number> = {};
  for (const v of row.values) out[v.key] = v.value;
  return out;
}

type LogHistory = (data: Record<string, unknown>, step?: number, commit?: boolean) => void;

/** Logs one run with the SDK under a fake clock; resolves when the SDK has finished the run. */
export async function logRunWithSdk(run: SimRun, target: SdkTarget): Promise<void> {
  const clock = installFakeClock(run.initMs);
  try {
    const sdkRun = await wandb.init({
      id: run.runId,
      entity: target.entity,
      project: target.project,
      name: run.displayName,
      config: run.config,
      settings: { apiKey: target.apiKey, baseUrl: target.baseUrl, silent: true },
    });
    const fileStream = sdkRun._messenger.sender?.filestream as unknown as { logHistory: LogHistory } | undefined;
    if (!fileStream || typeof fileStream.logHistory !== "function") {
      throw new Error(`run ${run.runId}: @wandb/sdk internals changed (no sender.filestream.logHistory); cannot control its clock`);
    }
    const pendingTimes: number[] = [];
    let stamped = 0;
    const original = fileStream.logHistory.bind(fileStream);
    fileStream.logHistory = (data, step, commit) => {
      // The final flush calls logHistory({}) and stamps nothing.
      if (Object.keys(data).length > 0) {
        const t = pendingTimes.shift();
        if (t === undefined) throw new Error(`run ${run.runId}: the SDK stamped more rows than were logged`);
        clock.set(t);
        stamped++;
      }
      original(data, step, commit);
    };
    for (const row of run.rows) {
      pendingTimes.push(row.timeMs);
      wandb.log(wandbLogDict(row));
    }
    await wandb.finish(0);
    if (stamped !== run.rows.length) {
      throw new Error(`run ${run.runId}: the SDK processed ${stamped} of ${run.rows.length} logged rows`);
    }
  } finally {
    clock.restore();
  }
}

/** Logs runs one after another (the SDK holds one active run at a time). */
export async function logRunsWithSdk(runs: readonly SimRun[], target: SdkTarget): Promise<void> {
  for (const run of runs) await logRunWithSdk(run, target);
}
