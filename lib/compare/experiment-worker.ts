/**
 * The thread a comparison's heavy work runs on (compare-threads.ts): whole experiments loaded (each
 * archive read, verified, aligned and summarised exactly as on the main thread, loadExperimentData,
 * and sent back as plain data; warnings forwarded as they come), and bootstrap intervals computed
 * from their jobs (interval-jobs.ts: same values, same named streams, same numbers on any thread).
 */
import { parentPort } from "node:worker_threads";

import type { CompareAxis } from "./compare-axis";
import { loadExperimentData, type ExperimentData } from "./experiment";
import { runIntervalJob, type IntervalJob, type IntervalResult } from "./interval-jobs";

/** Work for the thread: an archive to load, or intervals to compute. */
export type CompareJob = { id: number; kind: "load"; dir: string; label: string; axis: CompareAxis } | { id: number; kind: "intervals"; jobs: IntervalJob[] };

/** What the thread sends back about a job: warnings (any number), then its result or its error. */
export type CompareReply =
  | { id: number; warn: string }
  | { id: number; data: ExperimentData }
  | { id: number; results: IntervalResult[] }
  | { id: number; error: string };

/** Runs one job; its warnings go to `warn`. */
async function run(job: CompareJob, warn: (message: string) => void): Promise<CompareReply> {
  if (job.kind === "intervals") return { id: job.id, results: job.jobs.map(runIntervalJob) };
  return { id: job.id, data: await loadExperimentData(job.dir, { warn }, job.label, job.axis) };
}

// An if, not an expression statement: tslab's emit captures a module's last top-level expression.
if (parentPort !== null) {
  const port = parentPort;
  port.on("message", (job: CompareJob) => {
    run(job, (message) => port.postMessage({ id: job.id, warn: message } satisfies CompareReply)).then(
      (reply) => port.postMessage(reply),
      (e: Error) => port.postMessage({ id: job.id, error: e.message } satisfies CompareReply),
    );
  });
}
