/**
 * Logs simulated framework runs through the real `@wandb/sdk` (init / log / finish) into a
 * W&B-compatible server, as tools/simulate-slime/log-with-sdk.ts does for slime: under the fake clock
 * (set to each row's time when the SDK's file stream stamps it), so `_runtime` and `_timestamp` are
 * the simulated ones. verl rows go with `step=` (its `logger.log(data, step=global_steps)`), so
 * `_step` is the global step; OpenRLHF and TRL rows go without, so `_step` counts calls.
 * Not reproduced: the Python SDK's `define_metric(..., step_sync=True)` (OpenRLHF, transformers)
 * may insert the last `train/global_step` into a row that lacks it (a samples-table row); the JS SDK
 * has no define_metric, so such a row stays bookkeeping-only here.
 */
import { logSessionWithSdk, type SdkTarget } from "../simulate-slime/log-with-sdk";
import type { FwRow, FwRun } from "./types";

/** The dict the framework passes to `wandb.log` for a row (key order kept; a table as its JSON form). */
export function frameworkLogDict(row: FwRow): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const v of row.values) out[v.key] = typeof v.value === "number" ? v.value : { ...v.value };
  return out;
}

/**
 * Logs one run; resolves when the SDK has finished it. A crashed run finishes with exit code 1 (the
 * test server then reports "failed": a W&B server marks "crashed" only when heartbeats stop).
 */
export async function logFrameworkRunWithSdk(run: FwRun, target: SdkTarget): Promise<void> {
  const rows = run.rows.map((row) => ({ dict: frameworkLogDict(row), step: row.explicitStep, timeMs: row.timeMs }));
  const session = {
    runId: run.runId,
    name: `${run.round}-${run.runId}`,
    config: run.config,
    initMs: run.initMs,
    rows,
    exitCode: run.state === "crashed" ? 1 : 0,
  };
  await logSessionWithSdk(session, target);
}

/** Logs runs one after another (the SDK holds one active run at a time). */
export async function logFrameworkRunsWithSdk(runs: readonly FwRun[], target: SdkTarget): Promise<void> {
  for (const run of runs) await logFrameworkRunWithSdk(run, target);
}
