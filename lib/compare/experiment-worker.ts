/**
 * The thread that loads whole experiments for a comparison (experiment-pool.ts): each archive read,
 * verified, aligned and summarised exactly as on the main thread (loadExperimentData), and sent back
 * as plain data; warnings go to the main thread's reporter as they come.
 */
import { parentPort } from "node:worker_threads";

import type { CompareAxis } from "./compare-axis";
import { loadExperimentData, type ExperimentData } from "./experiment";

/** An archive to load. */
export interface ExperimentJob {
  id: number;
  dir: string;
  label: string;
  axis: CompareAxis;
}

/** What the worker sends back about a job: a warning (any number), then its data or its error. */
export type ExperimentReply = { id: number; warn: string } | { id: number; data: ExperimentData } | { id: number; error: string };

// An if, not an expression statement: tslab's emit captures a module's last top-level expression.
if (parentPort !== null) {
  const port = parentPort;
  port.on("message", (job: ExperimentJob) => {
    const reporter = { warn: (message: string) => port.postMessage({ id: job.id, warn: message } satisfies ExperimentReply) };
    loadExperimentData(job.dir, reporter, job.label, job.axis).then(
      (data) => port.postMessage({ id: job.id, data } satisfies ExperimentReply),
      (e: Error) => port.postMessage({ id: job.id, error: e.message } satisfies ExperimentReply),
    );
  });
}
