/**
 * The code that starts a worker thread on one of lib's modules (`new Worker(code, { eval: true })`).
 * Under tsx (TypeScript sources) the worker registers tsx's require hook first; under tslab's
 * prebuilt lib it is plain JavaScript. This module is built with the rest of lib, so its own file
 * name tells which.
 * @example new Worker(workerCode(path.join(__dirname, "load-worker")), { eval: true })
 */
export function workerCode(entry: string): string {
  const ts = __filename.endsWith(".ts");
  const register = ts ? `require(${JSON.stringify(require.resolve("tsx/cjs/api"))}).register();` : "";
  return `${register}require(${JSON.stringify(`${entry}${ts ? ".ts" : ".js"}`)});`;
}
