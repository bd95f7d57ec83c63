/**
 * lib/ compiled ONCE for every tslab kernel, instead of once per kernel.
 *
 * tslab type-checks and compiles every lib file a cell imports, in every kernel (about 2.5 s of CPU
 * per notebook on the sample). This file is preloaded into the kernel (`node --require`, see
 * scripts/setup.sh) and, when lib/ compiles cleanly, makes the kernel use a build of lib/ kept in
 * .cache/tslab-lib/<key>/ (key = sha256 of every lib file, this file and the compiler versions):
 *   - the kernel's TypeScript sees lib/x.d.ts (the prebuilt declaration) instead of lib/x.ts, so a
 *     cell is checked against lib's types without re-checking lib itself;
 *   - Node loads lib/x.ts as the prebuilt JavaScript, compiled with tslab's own options and its own
 *     ES-module-to-CommonJS step, under the file's real path (so __dirname is lib/...).
 * Notebooks keep importing "./lib/...". A kernel (re)start rebuilds when any lib file changed; when
 * lib does not compile, nothing is installed and tslab compiles lib itself (its errors show in the cell).
 * TSLAB_PREBUILT_LIB=0 turns it off. Plain JavaScript: it runs before any TypeScript loader.
 *
 * CLI (the main command runs it once before the notebooks, so parallel kernels find the build):
 *   node scripts/tslab-prebuilt-lib.js [--print-dir]   (--print-dir: the build's folder on stdout)
 */
"use strict";
const crypto = require("node:crypto");
const fs = require("node:fs");
const Module = require("node:module");
const path = require("node:path");
const { tslabCompilerOptions } = require("./tslab-options");

const ROOT = path.resolve(__dirname, "..");
const LIB = path.join(ROOT, "lib");
const CACHE = path.join(ROOT, ".cache", "tslab-lib");
/** Builds kept besides the current one (a running kernel may still read an older one). */
const KEEP = 4;
const NAME = "tslab-prebuilt-lib";

const requireFromTslab = Module.createRequire(require.resolve("tslab/package.json", { paths: [ROOT] }));
const tslabVersion = requireFromTslab("./package.json").version;
const tsVersion = requireFromTslab("@tslab/typescript-for-tslab/package.json").version;
/** tslab's TypeScript, loaded only to build or install (a cache check needs only its version). */
let tsModule = null;
const tsc = () => (tsModule ??= requireFromTslab("@tslab/typescript-for-tslab"));

/** Every .ts file under lib/ (no .d.ts), sorted, as absolute paths with forward slashes. */
function libFiles(dir = LIB) {
  const out = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...libFiles(p));
    else if (entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts")) out.push(p.split(path.sep).join("/"));
  }
  return out.sort();
}

/** Cache key: contents of lib/, this file and tslab-options.js, the compiler and tslab versions, Node's major (tslab's target depends on it). */
function cacheKey(files) {
  const h = crypto.createHash("sha256");
  h.update(`${tsVersion}\0${tslabVersion}\0${process.versions.node.split(".")[0]}\0`);
  h.update(fs.readFileSync(__filename));
  h.update(fs.readFileSync(path.join(__dirname, "tslab-options.js")));
  for (const f of files) h.update(`\0${path.relative(ROOT, f)}\0`).update(fs.readFileSync(f));
  return h.digest("hex").slice(0, 16);
}

/**
 * Compile lib/ into `dir` (lib/x.js + lib/x.d.ts). Returns the error diagnostics as text
 * (empty: built). JavaScript goes through tslab's own ES-module-to-CommonJS step.
 */
function compileLib(files, dir) {
  const ts = tsc();
  const { esModuleToCommonJSModule } = requireFromTslab("./dist/converter");
  const outDir = path.join(ROOT, "__tslab_prebuilt_out__").split(path.sep).join("/");
  const program = ts.createProgram(files, tslabCompilerOptions(ts, ROOT, outDir));
  // The diagnostics tslab would show for a cell importing these files: per file, inside the workspace
  // (it drops file-less ones, e.g. the deprecation notice its own option set draws).
  const sources = files.map((f) => program.getSourceFile(f));
  const errors = ts.getPreEmitDiagnosticsOfFiles(program, sources).filter((d) => d.file && !path.relative(ROOT, d.file.fileName).startsWith(".."));
  if (errors.length > 0) {
    return ts.formatDiagnostics(errors.slice(0, 10), { getCanonicalFileName: (f) => f, getCurrentDirectory: () => ROOT, getNewLine: () => "\n" });
  }
  const written = [];
  const result = program.emit(undefined, (fileName, data) => {
    const rel = path.relative(outDir, fileName);
    if (rel.startsWith("..") || !rel.startsWith(`lib${path.sep}`)) throw new Error(`unexpected emit path: ${fileName}`);
    const target = path.join(dir, rel);
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.writeFileSync(target, fileName.endsWith(".js") ? esModuleToCommonJSModule(data, ts.ScriptTarget.ES2022) : data);
    written.push(rel);
  });
  if (result.emitSkipped) return "emit skipped";
  const missing = files.filter((f) => !written.includes(path.relative(ROOT, f).replace(/\.ts$/, ".js")));
  return missing.length > 0 ? `no JavaScript emitted for ${missing.join(", ")}` : "";
}

/** Drop all but the newest KEEP builds (and stale temporary folders). */
function prune(current) {
  let entries;
  try {
    entries = fs.readdirSync(CACHE).filter((e) => e !== current).map((e) => ({ e, t: fs.statSync(path.join(CACHE, e)).mtimeMs }));
  } catch {
    return;
  }
  entries.sort((a, b) => b.t - a.t);
  const now = Date.now();
  entries.forEach(({ e, t }, i) => {
    const tmp = e.startsWith(".tmp-");
    if ((tmp && now - t > 10 * 60 * 1000) || (!tmp && i >= KEEP)) fs.rmSync(path.join(CACHE, e), { recursive: true, force: true });
  });
}

/**
 * The folder of the current build, building it when missing. null when lib does not compile (the
 * reason is printed on stderr). Concurrent builders each write a temporary folder and rename it into
 * place; the first rename wins.
 */
function ensureBuild(log = (line) => process.stderr.write(`[${NAME}] ${line}\n`)) {
  const files = libFiles();
  const key = cacheKey(files);
  const dir = path.join(CACHE, key);
  if (fs.existsSync(path.join(dir, ".complete"))) return { dir, key, built: false, ms: 0 };
  const t0 = Date.now();
  fs.mkdirSync(CACHE, { recursive: true });
  const tmp = fs.mkdtempSync(path.join(CACHE, ".tmp-"));
  try {
    const problem = compileLib(files, tmp);
    if (problem) {
      log(`lib/ does not compile as tslab compiles it; kernels compile lib themselves:\n${problem}`);
      return null;
    }
    fs.writeFileSync(path.join(tmp, ".complete"), `${files.length} files\n`);
    try {
      fs.renameSync(tmp, dir);
    } catch (err) {
      if (!fs.existsSync(path.join(dir, ".complete"))) throw err;
    }
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  prune(key);
  return { dir, key, built: true, ms: Date.now() - t0 };
}

/** Which lib file a path names: its path relative to ROOT ("lib/x/y"), without extension, or null. */
function libStem(file, ext) {
  const p = path.resolve(file);
  if (!p.startsWith(LIB + path.sep) || !p.endsWith(ext)) return null;
  return path.relative(ROOT, p).slice(0, -ext.length);
}

/** Install the two views of the build: declarations for the kernel's TypeScript, JavaScript for Node. */
function install(dir) {
  const built = (stem, ext) => path.join(dir, stem + ext);
  const sys = tsc().sys;
  const fileExists = sys.fileExists.bind(sys);
  const readFile = sys.readFile.bind(sys);
  // TypeScript resolves "./lib/x" as x.ts, then x.tsx, then x.d.ts: hide x.ts when its build exists.
  sys.fileExists = (file) => {
    const d = libStem(file, ".d.ts");
    if (d !== null) return fs.existsSync(built(d, ".d.ts"));
    const s = libStem(file, ".ts");
    if (s !== null && fs.existsSync(built(s, ".d.ts"))) return false;
    return fileExists(file);
  };
  sys.readFile = (file, encoding) => {
    const d = libStem(file, ".d.ts");
    if (d !== null && fs.existsSync(built(d, ".d.ts"))) return fs.readFileSync(built(d, ".d.ts"), "utf8");
    return readFile(file, encoding);
  };
  // Node: with a ".ts" loader registered, require("./lib/x") resolves to lib/x.ts, which runs as its build.
  const previous = Module._extensions[".ts"];
  Module._extensions[".ts"] = function loadPrebuilt(module, filename) {
    const s = libStem(filename, ".ts");
    if (s !== null && fs.existsSync(built(s, ".js"))) return module._compile(fs.readFileSync(built(s, ".js"), "utf8"), filename);
    if (previous) return previous(module, filename);
    throw new Error(`${filename}: not part of the prebuilt lib (${dir}); a TypeScript file outside lib/ must be imported from a notebook cell`);
  };
}

/** Kernel preload: build when needed and install; on any failure leave tslab as it is. */
function preload() {
  if (process.env.TSLAB_PREBUILT_LIB === "0") return;
  try {
    const build = ensureBuild();
    if (!build) return;
    if (build.built) process.stderr.write(`[${NAME}] lib/ compiled in ${(build.ms / 1000).toFixed(1)} s (${path.relative(ROOT, build.dir)})\n`);
    install(build.dir);
  } catch (err) {
    process.stderr.write(`[${NAME}] not used (${err && err.message}); tslab compiles lib itself\n`);
  }
}

if (require.main === module) {
  // --print-dir: the build's folder alone on stdout (nothing when lib does not compile), the rest on stderr.
  const printDir = process.argv.includes("--print-dir");
  const build = ensureBuild((line) => console.error(`${NAME}: ${line}`));
  if (!build) process.exit(0); // the kernels fall back to tslab's own compilation; the notebooks report real errors
  const line = `${NAME}: ${build.built ? `compiled lib/ in ${(build.ms / 1000).toFixed(1)} s` : "lib/ unchanged"} -> ${path.relative(ROOT, build.dir)}`;
  if (printDir) {
    console.error(line);
    console.log(build.dir);
  } else console.log(line);
} else {
  preload();
}

module.exports = { libFiles, cacheKey, ensureBuild, compileLib, CACHE };
