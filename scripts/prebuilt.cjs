#!/usr/bin/env node
/**
 * `node scripts/prebuilt.cjs <entry.ts> [args...]`: runs a TypeScript entry (`npm run fetch` runs
 * scripts/fetch.ts this way) from a prebuilt CommonJS bundle, so that it does not pay tsx's
 * TypeScript compile at every start (measured: fetch --help in 0.15 s instead of 0.6 s).
 * The bundle (our sources only; npm packages stay `require`d from node_modules) is built with
 * esbuild (installed with tsx) into node_modules/.cache and rebuilt whenever one of its source files
 * is newer than it, so an edited lib/ file is never run stale. Without esbuild it falls back to tsx.
 */
"use strict";
const fs = require("node:fs");
const path = require("node:path");

const ROOT = path.resolve(__dirname, "..");
const CACHE = path.join(ROOT, "node_modules", ".cache", "rl-run-diagnostics");
// The entry, relative to the repository; the script then sees its own arguments as process.argv[2...].
const ENTRY = path.relative(ROOT, path.resolve(process.argv[2] || ""));
if (!/^(scripts|bench|tools)\/[\w.-]+\.ts$/.test(ENTRY)) {
  process.stderr.write(`invalid entry: ${process.argv[2]} (a .ts file under scripts/, bench/ or tools/)\n`);
  process.exit(2);
}
process.argv.splice(2, 1);
// Keyed by the checkout too: git worktrees that share one node_modules (a symlink) must not run each
// other's bundles, whose input paths are relative.
const NAME = `${ENTRY.replace(/[\/.]/g, "_")}-${require("node:crypto").createHash("sha256").update(ROOT).digest("hex").slice(0, 8)}`;
const BUNDLE = path.join(CACHE, `${NAME}.cjs`);
const INPUTS = path.join(CACHE, `${NAME}.inputs.json`);

// Worker-thread entries of lib/ (lib/archive/worker-code.ts), bundled beside each entry's bundle so
// that its threads start without tsx too.
const WORKERS = { "load-worker": "lib/archive/load-worker.ts", "freeze-worker": "lib/archive/freeze-worker.ts", "csv-worker": "lib/export/csv-worker.ts", "experiment-worker": "lib/compare/experiment-worker.ts", "hash-worker": "lib/follow/hash-worker.ts" };
const workerBundle = (name) => path.join(CACHE, `${NAME}.${name}.cjs`);

/** True when a bundle is missing or older than any source file it was built from. */
function stale() {
  let built;
  let inputs;
  try {
    built = Math.min(...[BUNDLE, ...Object.keys(WORKERS).map(workerBundle)].map((f) => fs.statSync(f).mtimeMs));
    inputs = JSON.parse(fs.readFileSync(INPUTS, "utf8"));
  } catch {
    return true;
  }
  for (const file of inputs) {
    try {
      if (fs.statSync(path.join(ROOT, file)).mtimeMs > built) return true;
    } catch {
      return true; // a source file was removed or renamed
    }
  }
  return false;
}

/** Builds the bundles in a folder of their own, then renames them in (two first runs at once are fine). */
function build() {
  const esbuild = require("esbuild");
  fs.mkdirSync(CACHE, { recursive: true });
  const tmp = path.join(CACHE, `${NAME}.${process.pid}.tmp`);
  const entryPoints = { [NAME]: ENTRY };
  for (const [name, file] of Object.entries(WORKERS)) entryPoints[`${NAME}.${name}`] = file;
  const result = esbuild.buildSync({
    absWorkingDir: ROOT,
    entryPoints,
    bundle: true,
    platform: "node",
    format: "cjs",
    target: "node20",
    packages: "external",
    outdir: tmp,
    outExtension: { ".js": ".cjs" },
    metafile: true,
    logLevel: "error",
  });
  fs.writeFileSync(`${INPUTS}.${process.pid}.tmp`, JSON.stringify(Object.keys(result.metafile.inputs)));
  for (const name of Object.keys(entryPoints)) fs.renameSync(path.join(tmp, `${name}.cjs`), path.join(CACHE, `${name}.cjs`));
  fs.rmSync(tmp, { recursive: true, force: true });
  fs.renameSync(`${INPUTS}.${process.pid}.tmp`, INPUTS);
}

let entry = BUNDLE;
try {
  if (stale()) build();
} catch {
  entry = null;
}
if (entry) {
  globalThis[Symbol.for("rl-run-diagnostics.prebuilt-workers")] = Object.fromEntries(Object.keys(WORKERS).map((name) => [name, workerBundle(name)]));
  require(entry);
} else {
  require("tsx/cjs");
  require(path.join(ROOT, ENTRY));
}
