/**
 * A comparison's heavy work on two worker threads, one per core (experiment-worker.ts): whole
 * archives loaded (each on one thread from start to end) and then the bootstrap intervals computed in
 * chunks. Worth it past a size only (worker start-up under tsx costs about as much as parsing 30 MB of
 * history), so a small comparison runs here. Same numbers either way (the threads run the same
 * functions); a thread that fails is not used again and its work is done here.
 */
import { readFileSync } from "node:fs";
import * as path from "node:path";
import { Worker } from "node:worker_threads";

import { workerCode } from "../archive/worker-code";
import { MANIFEST_FILE } from "../archive/manifest";
import type { Reporter } from "../types";
import { mapConcurrent } from "../wandb/map-concurrent";
import { compareArms, type Arm, type CompareOptions, type Comparison } from "./compare-arms";
import type { CompareAxis } from "./compare-axis";
import { experimentOf, loadExperiment, type Experiment, type ExperimentData } from "./experiment";
import type { CompareJob, CompareReply } from "./experiment-worker";
import { RecordedJobs, ReplayedJobs, runIntervalJob, type IntervalJob, type IntervalResult } from "./interval-jobs";

/** Worker threads (the machines this runs on have two cores). */
const THREADS = 2;

/** History bytes from which a comparison runs on worker threads. */
export const WORKER_MIN_BYTES = 64 * 2 ** 20;

/** Intervals per message to a thread: small enough to share the work evenly, large enough that messages cost nothing. */
const INTERVAL_CHUNK = 8;

/** An archive to load: its folder on disk and the label it goes by in outputs. */
export interface ArchiveToLoad {
  dir: string;
  label: string;
}

/** History bytes an archive's manifest lists; 0 when it cannot be read (loading then names the problem). */
function listedBytes(dir: string): number {
  try {
    const m = JSON.parse(readFileSync(path.join(dir, MANIFEST_FILE), "utf8")) as { runs?: { bytes?: number }[] };
    return (m.runs ?? []).reduce((s, r) => s + (typeof r.bytes === "number" ? r.bytes : 0), 0);
  } catch {
    return 0;
  }
}

/** The worker thread itself failed (not the job): the job is done here instead. */
class ThreadFailed extends Error {}

type Job = CompareJob extends infer J ? (J extends CompareJob ? Omit<J, "id"> : never) : never;

/** One worker thread, one job at a time. */
class CompareThread {
  private pending: { id: number; resolve: (m: CompareReply) => void; reject: (e: Error) => void } | null = null;
  private next = 0;

  private constructor(
    private readonly worker: Worker,
    private readonly reporter: Reporter,
  ) {
    worker.on("message", (m: CompareReply) => this.onMessage(m));
    worker.on("error", (e) => this.fail(new ThreadFailed(e.message)));
    worker.on("exit", (code) => this.fail(new ThreadFailed(`the comparison worker exited with code ${code}`)));
  }

  /** A started thread, or null when it cannot start. */
  static start(reporter: Reporter): CompareThread | null {
    try {
      return new CompareThread(new Worker(workerCode("experiment-worker"), { eval: true }), reporter);
    } catch {
      return null;
    }
  }

  private onMessage(m: CompareReply): void {
    const p = this.pending;
    if (p === null || m.id !== p.id) return;
    if ("warn" in m) {
      this.reporter.warn?.(m.warn);
      return;
    }
    this.pending = null;
    if ("error" in m) p.reject(new Error(m.error));
    else p.resolve(m);
  }

  private fail(e: Error): void {
    const p = this.pending;
    this.pending = null;
    p?.reject(e);
  }

  /** The job's reply (data or results); rejects with its error, or ThreadFailed. */
  run(job: Job): Promise<CompareReply> {
    const id = this.next++;
    return new Promise((resolve, reject) => {
      this.pending = { id, resolve, reject };
      this.worker.postMessage({ ...job, id } as CompareJob);
    });
  }

  close(): Promise<number> {
    return this.worker.terminate();
  }
}

/** Worker threads for one comparison (possibly none: then everything runs here). */
export class CompareThreads {
  private readonly idle: CompareThread[];

  private constructor(
    private readonly threads: readonly CompareThread[],
    private readonly reporter: Reporter,
  ) {
    this.idle = [...threads];
  }

  /** Threads when the archives hold at least `minBytes` of history (default {@link WORKER_MIN_BYTES}), else none. */
  static forArchives(archives: readonly ArchiveToLoad[], reporter: Reporter = {}, minBytes = WORKER_MIN_BYTES): CompareThreads {
    const bytes = archives.reduce((s, a) => s + listedBytes(a.dir), 0);
    const started = archives.length < 2 || bytes < minBytes ? [] : Array.from({ length: THREADS }, () => CompareThread.start(reporter));
    return new CompareThreads(
      started.filter((t): t is CompareThread => t !== null),
      reporter,
    );
  }

  /** Whether any thread runs (else all work is done here). */
  get active(): boolean {
    return this.threads.length > 0;
  }

  /** `job` on an idle thread, or `here()` when none is (a failed thread is dropped). */
  private async onThread<T>(job: Job, read: (m: CompareReply) => T, here: () => T | Promise<T>): Promise<T> {
    const thread = this.idle.pop();
    if (thread === undefined) return here();
    let reply: CompareReply;
    try {
      reply = await thread.run(job);
    } catch (e) {
      if (!(e instanceof ThreadFailed)) {
        this.idle.push(thread);
        throw e;
      }
      return here();
    }
    this.idle.push(thread);
    return read(reply);
  }

  /**
   * Every archive loaded on `axis`, in the order given; the first failure throws (naming its folder)
   * once the loads under way have settled. Progress as "load archives".
   */
  async loadExperiments(archives: readonly ArchiveToLoad[], axis: CompareAxis): Promise<Experiment[]> {
    let done = 0;
    // Without threads two at a time here: one archive's files are read while the other aligns.
    return mapConcurrent(archives, Math.max(this.threads.length, 2), async (a) => {
      const e = await this.onThread(
        { kind: "load", dir: a.dir, label: a.label, axis },
        (m) => experimentOf((m as { data: ExperimentData }).data),
        () => loadExperiment(a.dir, this.reporter, a.label, axis),
      );
      this.reporter.progress?.("load archives", ++done, archives.length);
      return e;
    });
  }

  /** The results of `jobs`, in order, computed in chunks on the threads. Progress as "bootstrap". */
  async intervals(jobs: readonly IntervalJob[]): Promise<IntervalResult[]> {
    const chunks: IntervalJob[][] = [];
    for (let i = 0; i < jobs.length; i += INTERVAL_CHUNK) chunks.push(jobs.slice(i, i + INTERVAL_CHUNK));
    let done = 0;
    const results = await mapConcurrent(chunks, Math.max(this.threads.length, 1), async (chunk) => {
      const r = await this.onThread(
        { kind: "intervals", jobs: chunk },
        (m) => (m as { results: IntervalResult[] }).results,
        () => chunk.map(runIntervalJob),
      );
      done += chunk.length;
      this.reporter.progress?.("bootstrap", done, jobs.length);
      return r;
    });
    return results.flat();
  }

  /**
   * compareArms with its intervals computed on the threads: one pass records the jobs (no bootstrap),
   * the threads compute them, a second pass replays the results in order. Without threads, compareArms.
   */
  async compareArms(arms: readonly Arm[], reference: Experiment | null, opts: CompareOptions): Promise<Comparison> {
    if (!this.active) return compareArms(arms, reference, opts);
    const recorded = new RecordedJobs();
    compareArms(arms, reference, { ...opts, reporter: {}, intervals: recorded });
    const results = await this.intervals(recorded.jobs);
    return compareArms(arms, reference, { ...opts, intervals: new ReplayedJobs(recorded.jobs, results) });
  }

  async close(): Promise<void> {
    await Promise.all(this.threads.map((t) => t.close()));
  }
}

/**
 * Every archive loaded on `axis` (on worker threads from `minBytes` of history), in the order given.
 * @example const experiments = await loadExperiments([{ dir: "data/compare/n8-s1", label: "n8-s1" }], ROUND_AXIS);
 */
export async function loadExperiments(
  archives: readonly ArchiveToLoad[],
  axis: CompareAxis,
  reporter: Reporter = {},
  opts: { minBytes?: number } = {},
): Promise<Experiment[]> {
  const threads = CompareThreads.forArchives(archives, reporter, opts.minBytes);
  try {
    return await threads.loadExperiments(archives, axis);
  } finally {
    await threads.close();
  }
}
