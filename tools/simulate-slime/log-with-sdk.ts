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

/** What one `wandb.init` ... `wandb.finish` session logs, whatever simulator made it. */
export interface SdkSession {
  runId: string;
  name: string;
  config: Record<string, unknown>;
  /** `wandb.init` time, epoch ms (the SDK's `_runtime` counts from here). */
  initMs: number;
  /** The `wandb.log` calls in order: the dict, the explicit step (null: none) and the row's simulated time. */
  rows: readonly { dict: Record<string, unknown>; step: number | null; timeMs: number }[];
  exitCode: number;
}

/**
 * Logs one session with the SDK under a fake clock set to each row's time when the SDK's file stream
 * stamps it; resolves when the SDK has finished the run. Shared by the slime and framework simulators.
 */
export async function logSessionWithSdk(session: SdkSession, target: SdkTarget): Promise<void> {
  const clock = installFakeClock(session.initMs);
  try {
    const sdkRun = await wandb.init({
      id: session.runId,
      entity: target.entity,
      project: target.project,
      name: session.name,
      config: session.config,
      settings: { apiKey: target.apiKey, baseUrl: target.baseUrl, silent: true },
    });
    const fileStream = sdkRun._messenger.sender?.filestream as unknown as { logHistory: LogHistory } | undefined;
    if (!fileStream || typeof fileStream.logHistory !== "function") {
      throw new Error(`run ${session.runId}: @wandb/sdk internals changed (no sender.filestream.logHistory); cannot control its clock`);
    }
    const pendingTimes: number[] = [];
    let stamped = 0;
    const original = fileStream.logHistory.bind(fileStream);
    fileStream.logHistory = (data, step, commit) => {
      // The final flush calls logHistory({}) and stamps nothing.
      if (Object.keys(data).length > 0) {
        const t = pendingTimes.shift();
        if (t === undefined) throw new Error(`run ${session.runId}: the SDK stamped more rows than were logged`);
        clock.set(t);
        stamped++;
      }
      original(data, step, commit);
    };
    for (const row of session.rows) {
      pendingTimes.push(row.timeMs);
      if (row.step === null) wandb.log(row.dict);
      else wandb.log(row.dict, row.step);
    }
    await wandb.finish(session.exitCode);
    if (stamped !== session.rows.length) {
      throw new Error(`run ${session.runId}: the SDK processed ${stamped} of ${session.rows.length} logged rows`);
    }
  } finally {
    clock.restore();
  }
}

/** Logs one slime run with the SDK; resolves when the SDK has finished the run. */
export async function logRunWithSdk(run: SimRun, target: SdkTarget): Promise<void> {
  const rows = run.rows.map((row) => ({ dict: wandbLogDict(row), step: null, timeMs: row.timeMs }));
  await logSessionWithSdk({ runId: run.runId, name: run.displayName, config: run.config, initMs: run.initMs, rows, exitCode: 0 }, target);
}

/** Logs runs one after another (the SDK holds one active run at a time). */
export async function logRunsWithSdk(runs: readonly SimRun[], target: SdkTarget): Promise<void> {
  for (const run of runs) await logRunWithSdk(run, target);
}
