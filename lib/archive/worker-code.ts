/**
 * Source of a worker thread that runs one of lib/archive's worker entries (`new Worker(code, { eval:
 * true })`). Three ways the library runs, three places the entry is found:
 * - under scripts/prebuilt.cjs (npm run fetch) each entry is bundled beside the main bundle, and the
 *   launcher names those bundles in a global before the main bundle runs;
 * - under tsx (tests, npm run export) the entry is TypeScript beside this file: the worker registers
 *   tsx's require hook first;
 * - under tslab's prebuilt lib it is JavaScript beside this file.
 */
import * as path from "node:path";

/** Worker entries of lib/archive. */
export type WorkerEntry = "load-worker" | "freeze-worker";

/** The global scripts/prebuilt.cjs fills: entry name -> bundle path. */
export const PREBUILT_WORKERS = Symbol.for("rl-run-diagnostics.prebuilt-workers");

/** Code for `new Worker(code, { eval: true })` that runs `entry`. */
export function workerCode(entry: WorkerEntry): string {
  const prebuilt = (globalThis as { [PREBUILT_WORKERS]?: Record<string, string> })[PREBUILT_WORKERS]?.[entry];
  if (typeof prebuilt === "string") return `require(${JSON.stringify(prebuilt)});`;
  const ts = __filename.endsWith(".ts");
  const file = path.join(__dirname, `${entry}${ts ? ".ts" : ".js"}`);
  const register = ts ? `require(${JSON.stringify(require.resolve("tsx/cjs/api"))}).register();` : "";
  return `${register}require(${JSON.stringify(file)});`;
}
