/**
 * Loading a comparison's archives: each one read, verified, aligned and summarised once. Past a size
 * where it pays (worker start-up under tsx costs about as much as parsing 30 MB), whole archives load
 * on two worker threads, one per core, each archive on one thread from start to end; smaller sets, or
 * when a worker cannot start, load here. Same data either way (the worker runs the same function).
 */
import { readFileSync } from "node:fs";
import * as path from "node:path";
import { Worker } from "node:worker_threads";

import { workerCode } from "../archive/worker-code";
import { MANIFEST_FILE } from "../archive/manifest";
import type { Reporter } from "../types";
import { mapConcurrent } from "../wandb/map-concurrent";
import type { CompareAxis } from "./compare-axis";
import { experimentOf, loadExperiment, type Experiment, type ExperimentData } from "./experiment";
import type { ExperimentJob, ExperimentReply } from "./experiment-worker";

/** Worker threads loading archives (the machines this runs on have two cores). */
const THREADS = 2;

/** History bytes from which archives load on worker threads. */
export const WORKER_MIN_BYTES = 64 * 2 ** 20;

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

/** The worker thread itself failed (not the archive): its job is loaded here instead. */
class ThreadFailed extends Error {}

/** One worker thread, one job at a time; null when it cannot start. */
class ExperimentThread {
  private readonly worker: Worker;
  private pending: { id: number; resolve: (d: ExperimentData) => void; reject: (e: Error) => void } | null = null;
  private next = 0;

  private constructor(
    worker: Worker,
    private readonly reporter: Reporter,
  ) {
    this.worker = worker;
    worker.on("message", (m: ExperimentReply) => this.onMessage(m));
    worker.on("error", (e) => this.fail(new ThreadFailed(e.message)));
    worker.on("exit", (code) => this.fail(new ThreadFailed(`the experiment worker exited with code ${code}`)));
  }

  static start(reporter: Reporter): ExperimentThread | null {
    try {
      return new ExperimentThread(new Worker(workerCode("experiment-worker"), { eval: true }), reporter);
    } catch {
      return null;
    }
  }

  private onMessage(m: ExperimentReply): void {
    const p = this.pending;
    if (p === null || m.id !== p.id) return;
    if ("warn" in m) {
      this.reporter.warn?.(m.warn);
      return;
    }
    this.pending = null;
    if ("data" in m) p.resolve(m.data);
    else p.reject(new Error(m.error));
  }

  private fail(e: Error): void {
    const p = this.pending;
    this.pending = null;
    p?.reject(e);
  }

  load(job: Omit<ExperimentJob, "id">): Promise<ExperimentData> {
    const id = this.next++;
    return new Promise((resolve, reject) => {
      this.pending = { id, resolve, reject };
      this.worker.postMessage({ ...job, id } satisfies ExperimentJob);
    });
  }

  close(): Promise<number> {
    return this.worker.terminate();
  }
}

/**
 * Every archive loaded on `axis`, in the order given; the first failure throws (naming its folder)
 * once the loads under way have settled. Progress as "load archives". `minBytes`: history bytes from
 * which worker threads load (default {@link WORKER_MIN_BYTES}).
 */
export async function loadExperiments(
  archives: readonly ArchiveToLoad[],
  axis: CompareAxis,
  reporter: Reporter = {},
  opts: { minBytes?: number } = {},
): Promise<Experiment[]> {
  let done = 0;
  const step = (e: Experiment) => {
    reporter.progress?.("load archives", ++done, archives.length);
    return e;
  };
  const bytes = archives.reduce((s, a) => s + listedBytes(a.dir), 0);
  const threads =
    archives.length < 2 || bytes < (opts.minBytes ?? WORKER_MIN_BYTES) ? [] : Array.from({ length: THREADS }, () => ExperimentThread.start(reporter));
  const idle = threads.filter((t): t is ExperimentThread => t !== null);
  try {
    // Without threads two at a time here: one archive's files are read while the other aligns.
    return await mapConcurrent(archives, Math.max(idle.length, 2), async (a) => {
      const thread = idle.pop();
      if (thread === undefined) return step(await loadExperiment(a.dir, reporter, a.label, axis));
      let data: ExperimentData;
      try {
        data = await thread.load({ dir: a.dir, label: a.label, axis });
      } catch (e) {
        if (!(e instanceof ThreadFailed)) {
          idle.push(thread);
          throw e;
        }
        // A thread that failed is not used again; this lane loads here from now on.
        return step(await loadExperiment(a.dir, reporter, a.label, axis));
      }
      idle.push(thread);
      return step(experimentOf(data));
    });
  } finally {
    await Promise.all(threads.map((t) => t?.close()));
  }
}
