/**
 * Source of a worker thread that runs one of lib's worker entries (`new Worker(code, { eval: true })`).
 * Three ways the library runs, three places an entry is found:
 * - under scripts/prebuilt.cjs (npm run fetch) each entry is bundled beside the main bundle, and the
 *   launcher names those bundles in a global before the main bundle runs;
 * - under tsx (tests, npm run export) and under the kernels' prebuilt lib (scripts/tslab-prebuilt-lib.js
 *   serves lib/x.ts as prebuilt JavaScript under its own .ts path) the entry is lib/'s TypeScript
 *   file: the worker registers tsx's require hook first;
 * - under a JavaScript build of lib (this module is built with the rest of lib, so its own file name
 *   tells which) it is the .js file beside it.
 */
import * as path from "node:path";

/** Worker entries of lib, by name: their module path under lib/, without extension. */
export const WORKER_ENTRIES = {
  "load-worker": "archive/load-worker",
  "freeze-worker": "archive/freeze-worker",
  "csv-worker": "export/csv-worker",
  "experiment-worker": "compare/experiment-worker",
  "hash-worker": "follow/hash-worker",
} as const;

/** A worker entry's name. */
export type WorkerEntry = keyof typeof WORKER_ENTRIES;

/** The global scripts/prebuilt.cjs fills: entry name -> bundle path. */
export const PREBUILT_WORKERS = Symbol.for("rl-run-diagnostics.prebuilt-workers");

/** Code for `new Worker(code, { eval: true })` that runs `entry`. */
export function workerCode(entry: WorkerEntry): string {
  const prebuilt = (globalThis as { [PREBUILT_WORKERS]?: Record<string, string> })[PREBUILT_WORKERS]?.[entry];
  if (typeof prebuilt === "string") return `require(${JSON.stringify(prebuilt)});`;
  const ts = __filename.endsWith(".ts");
  const file = path.join(__dirname, "..", `${WORKER_ENTRIES[entry]}${ts ? ".ts" : ".js"}`);
  const register = ts ? `require(${JSON.stringify(require.resolve("tsx/cjs/api"))}).register();` : "";
  return `${register}require(${JSON.stringify(file)});`;
}
