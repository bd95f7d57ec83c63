/**
 * A freeze thread (fetchAndFreeze with `threads`): runs freezeServerRun for the runs it is given, the
 * same code as on the calling thread, so that parsing and freezing several runs use several cores.
 * Progress and notes go back as messages; a failure goes back as its message and WandbError fields.
 */
import { parentPort } from "node:worker_threads";

import type { Reporter } from "../types";
import { connectWandb } from "../wandb/connection";
import type { ReaderLimits } from "../wandb/reader-limits";
import type { RetryPolicy } from "../wandb/retry-policy";
import { WandbError } from "../wandb/wandb-error";
import { freezeServerRun, type ServerRunFrozen, type ServerRunJob } from "./freeze-server-run";

/** The connection a thread rebuilds: resolved on the calling thread, data only (no functions). */
export interface ConnectionSpec {
  baseUrl: string;
  apiKey: string;
  retry: Partial<RetryPolicy>;
  limits: ReaderLimits;
}

/** A failure as it crosses threads. */
export interface ThreadError {
  message: string;
  name: string;
  code?: string;
  wandb?: { operation: string; runPath: string | null; status: number | null; attempt: number };
}

/** Messages to a freeze thread. */
export type ToFreezeThread = { type: "job"; id: number; conn: ConnectionSpec; job: ServerRunJob } | { type: "abort"; id: number };

/** Messages from a freeze thread. */
export type FromFreezeThread =
  | { type: "ready" }
  | { type: "report"; id: number; kind: "progress"; task: string; done: number; total: number | null }
  | { type: "report"; id: number; kind: "info" | "warn"; message: string }
  | { type: "done"; id: number; result: ServerRunFrozen }
  | { type: "failed"; id: number; error: ThreadError };

/** The fields of an error that survive the crossing (a WandbError keeps its class fields). */
export function threadError(e: unknown): ThreadError {
  const err = e instanceof Error ? e : new Error(String(e));
  const out: ThreadError = { message: err.message, name: err.name };
  const code = (err as NodeJS.ErrnoException).code;
  if (typeof code === "string") out.code = code;
  if (err instanceof WandbError) out.wandb = { operation: err.operation, runPath: err.runPath, status: err.status, attempt: err.attempt };
  return out;
}

// An if, not an expression statement: tslab's emit captures a module's last top-level expression.
if (parentPort !== null) {
  const port = parentPort;
  const running = new Map<number, AbortController>();
  const post = (m: FromFreezeThread) => port.postMessage(m);
  port.on("message", (m: ToFreezeThread) => {
    if (m.type === "abort") {
      running.get(m.id)?.abort(new Error("aborted"));
      return;
    }
    const controller = new AbortController();
    running.set(m.id, controller);
    const reporter: Reporter = {
      progress: (task, done, total) => post({ type: "report", id: m.id, kind: "progress", task, done, total }),
      info: (message) => post({ type: "report", id: m.id, kind: "info", message }),
      warn: (message) => post({ type: "report", id: m.id, kind: "warn", message }),
    };
    const conn = connectWandb({ ...m.conn, reporter, env: {} });
    freezeServerRun(conn, m.job, controller.signal)
      .then(
        (result) => post({ type: "done", id: m.id, result }),
        (e) => post({ type: "failed", id: m.id, error: threadError(e) }),
      )
      .finally(() => running.delete(m.id));
  });
  post({ type: "ready" });
}
