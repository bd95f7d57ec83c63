/**
 * The calling thread's side of the freeze threads (freeze-worker.ts): runs are handed to the least
 * busy thread; progress and notes reach the reporter; a failure comes back as the same message and,
 * for a WandbError, the same class and fields. A thread that cannot start leaves its runs to the
 * calling thread (`onCaller`), so a fetch never fails for want of a thread.
 */
import { Worker } from "node:worker_threads";

import type { Reporter } from "../types";
import { WandbError } from "../wandb/wandb-error";
import type { ServerRunFrozen, ServerRunJob } from "./freeze-server-run";
import type { ConnectionSpec, FromFreezeThread, ThreadError, ToFreezeThread } from "./freeze-worker";
import { workerCode } from "./worker-code";

/** Freeze threads started by `startFreezeThreads`. */
export interface FreezeThreads {
  /** Freezes one run on a thread; rejects with the run's error, or the signal's reason once aborted. */
  run(job: ServerRunJob, signal: AbortSignal): Promise<ServerRunFrozen>;
  /** Stops every thread (call once all runs settled). */
  close(): Promise<void>;
}

/** The error a thread reported, rebuilt on this side. */
export function restoreThreadError(t: ThreadError): Error {
  let e: Error;
  if (t.wandb) {
    e = new WandbError({ ...t.wandb, detail: "" });
    e.message = t.message; // the message the thread formatted, byte for byte
  } else {
    e = new Error(t.message);
    if (t.name !== "Error") e.name = t.name;
  }
  if (t.code !== undefined) (e as NodeJS.ErrnoException).code = t.code;
  return e;
}

interface Pending {
  job: ServerRunJob;
  signal: AbortSignal;
  resolve: (r: ServerRunFrozen) => void;
  reject: (e: unknown) => void;
  onAbort: () => void;
}

/** One thread: jobs wait until it says ready; if it stops before that, they run on the caller. */
class FreezeThread {
  readonly pending = new Map<number, Pending>();
  private ready = false;
  private queued: number[] = [];
  private stopped: string | null = null;
  private readonly worker: Worker | null;

  constructor(
    private readonly conn: ConnectionSpec,
    private readonly reporter: Reporter,
    private readonly onCaller: (job: ServerRunJob, signal: AbortSignal) => Promise<ServerRunFrozen>,
  ) {
    let worker: Worker | null = null;
    try {
      worker = new Worker(workerCode("freeze-worker"), { eval: true });
      worker.on("message", (m: FromFreezeThread) => this.onMessage(m));
      worker.on("error", (e) => this.stop(e.message));
      worker.on("exit", (code) => this.stop(`exited with code ${code}`));
    } catch (e) {
      this.stopped = (e as Error).message;
      reporter.info?.(`freeze thread could not start (${this.stopped}): its runs are read on the calling thread`);
    }
    this.worker = worker;
  }

  run(id: number, job: ServerRunJob, signal: AbortSignal): Promise<ServerRunFrozen> {
    if (this.worker === null || (this.stopped !== null && !this.ready)) return this.onCaller(job, signal);
    if (this.stopped !== null) return Promise.reject(new Error(`freeze thread stopped (${this.stopped}) before run ${job.meta.runId}`));
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        const waiting = this.queued.indexOf(id);
        if (waiting < 0) return this.post({ type: "abort", id });
        // Not sent yet (the thread is starting): it never will be.
        this.queued.splice(waiting, 1);
        this.settle(id)?.reject(signal.reason);
      };
      signal.addEventListener("abort", onAbort, { once: true });
      this.pending.set(id, { job, signal, resolve, reject, onAbort });
      if (this.ready) this.post({ type: "job", id, conn: this.conn, job });
      else this.queued.push(id);
    });
  }

  private post(m: ToFreezeThread): void {
    this.worker?.postMessage(m);
  }

  private settle(id: number): Pending | undefined {
    const p = this.pending.get(id);
    if (p === undefined) return undefined;
    this.pending.delete(id);
    p.signal.removeEventListener("abort", p.onAbort);
    return p;
  }

  private onMessage(m: FromFreezeThread): void {
    if (m.type === "ready") {
      this.ready = true;
      for (const id of this.queued) this.post({ type: "job", id, conn: this.conn, job: this.pending.get(id)!.job });
      this.queued = [];
    } else if (m.type === "report") {
      if (m.kind === "progress") this.reporter.progress?.(m.task, m.done, m.total);
      else this.reporter[m.kind]?.(m.message);
    } else if (m.type === "done") {
      this.settle(m.id)?.resolve(m.result);
    } else {
      const p = this.settle(m.id);
      p?.reject(p.signal.aborted ? p.signal.reason : restoreThreadError(m.error));
    }
  }

  /** The thread stopped: before ready, its jobs run on the caller (said once); after, they fail. */
  private stop(why: string): void {
    if (this.stopped !== null) return;
    this.stopped = why;
    if (!this.ready) this.reporter.info?.(`freeze thread could not start (${why}): its runs are read on the calling thread`);
    for (const id of Array.from(this.pending.keys())) {
      const p = this.settle(id)!;
      if (!this.ready) this.onCaller(p.job, p.signal).then(p.resolve, p.reject);
      else p.reject(p.signal.aborted ? p.signal.reason : new Error(`freeze thread stopped (${why}) while reading run ${p.job.meta.runId}`));
    }
    this.queued = [];
  }

  async close(): Promise<void> {
    this.stopped ??= "closed";
    await this.worker?.terminate();
  }
}

/**
 * Starts `count` freeze threads reading with `conn`; `onCaller` freezes a run on the calling thread
 * (used when a thread cannot start).
 */
export function startFreezeThreads(
  count: number,
  conn: ConnectionSpec,
  reporter: Reporter,
  onCaller: (job: ServerRunJob, signal: AbortSignal) => Promise<ServerRunFrozen>,
): FreezeThreads {
  const threads = Array.from({ length: count }, () => new FreezeThread(conn, reporter, onCaller));
  let next = 0;
  return {
    run(job, signal) {
      if (signal.aborted) return Promise.reject(signal.reason);
      const idle = threads.reduce((a, b) => (b.pending.size < a.pending.size ? b : a));
      return idle.run(next++, job, signal);
    },
    async close() {
      await Promise.all(threads.map((t) => t.close()));
    },
  };
}
