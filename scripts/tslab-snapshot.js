/**
 * A startup snapshot for the main command's tslab kernels: TypeScript already loaded, and the
 * declaration files the notebooks' kernels read (TypeScript's lib.*.d.ts, @types/*, what the notebooks
 * import from lib/, as its prebuilt declarations, and the packages behind them) parsed and bound.
 *
 * Why: a kernel spends most of its start loading TypeScript (8 MB of JavaScript) and parsing and
 * binding ~3 MB of declarations (2.3 MB of them @types/node) before it checks the first cell, in
 * every notebook, the same work each time. A V8 startup snapshot (`node --build-snapshot`, Node's
 * own mechanism) keeps that heap; a kernel started from it deserializes it instead.
 *
 * Only the main command uses it (it exports TSLAB_SNAPSHOT, which the kernelspec written by
 * scripts/setup.sh reads); a kernel started by JupyterLab starts as before. A parsed file is used only
 * when the file on disk still has the same text and the kernel asks for it with the same language
 * options; anything else is parsed as usual, so a stale snapshot is slower, never different.
 *
 * CLI (scripts/main.sh, after the lib build): node scripts/tslab-snapshot.js [--lib-build DIR]
 *   builds .cache/tslab-snapshot/<key>.blob when missing (key: Node, NODE_OPTIONS, TypeScript and
 *   tslab versions, package-lock.json, this file, the prebuilt lib's build DIR whose declarations it
 *   holds too), checks a kernel started from it compiles a cell, and prints
 *   the blob's path on stdout; prints nothing and exits 1 (with the reason on stderr) when it cannot.
 * Plain JavaScript: it runs before any TypeScript loader, and inside the snapshot builder.
 */
"use strict";
const crypto = require("node:crypto");
const fs = require("node:fs");
const path = require("node:path");
const v8 = require("node:v8");

const ROOT = path.resolve(__dirname, "..");
const CACHE = path.join(ROOT, ".cache", "tslab-snapshot");
const TSLAB = path.join(ROOT, "node_modules", "tslab");
const TS_FILE = path.join(ROOT, "node_modules", "@tslab", "typescript-for-tslab", "lib", "typescript.js");
const PRELOAD = path.join(__dirname, "tslab-prebuilt-lib.js");
const OPTIONS_FILE = path.join(__dirname, "tslab-options.js");
/** Snapshots kept besides the current one (56 MB each; a kernel reads its blob only as it starts). */
const KEEP = 1;
const NAME = "tslab-snapshot";

/**
 * Cache key: what the snapshot's heap is made of, what makes it (this file, the options), and NODE_OPTIONS: V8
 * refuses a blob built under other V8 flags (even --max-old-space-size), and the builder and the
 * kernels both run under the NODE_OPTIONS of the main command.
 */
function snapshotKey(libBuild) {
  const h = crypto.createHash("sha256");
  h.update(`${libBuild ? path.basename(libBuild) : "no lib build"}\0${notebookImports().join("\0")}\0`);
  const version = (p) => JSON.parse(fs.readFileSync(p, "utf8")).version;
  h.update(`${process.version}\0${process.arch}\0${process.env.NODE_OPTIONS ?? ""}\0${version(path.join(TSLAB, "package.json"))}\0`);
  h.update(`${version(path.join(path.dirname(TS_FILE), "..", "package.json"))}\0`);
  h.update(fs.readFileSync(path.join(ROOT, "package-lock.json")));
  h.update(fs.readFileSync(__filename));
  h.update(fs.readFileSync(OPTIONS_FILE));
  return h.digest("hex").slice(0, 16);
}

// ---------------------------------------------------------------------------------------------
// Inside the snapshot builder (`node --snapshot-blob B --build-snapshot this-file`)

/** A CommonJS file loaded as Node would load it (the builder's require serves built-in modules only). */
function loadCommonJs(file) {
  const vm = require("node:vm");
  const wrapped = `(function (exports, require, module, __filename, __dirname) { ${fs.readFileSync(file, "utf8")}\n})`;
  const fn = vm.runInThisContext(wrapped, { filename: file });
  const mod = { exports: {} };
  fn.call(mod.exports, mod.exports, require, mod, file, path.dirname(file));
  return mod.exports;
}

/** The compiler options of a kernel's program (scripts/tslab-options.js, shared with the prebuilt lib). */
function kernelOptions(ts) {
  return loadCommonJs(OPTIONS_FILE).tslabCompilerOptions(ts, ROOT, path.join(ROOT, "outDir"));
}

/**
 * What the notebooks' code cells import (`from "..."`), sorted: the snapshot holds what those imports
 * reach, not all of lib/ (every megabyte of parsed declarations costs each kernel time to deserialize).
 */
function notebookImports() {
  const dir = path.join(ROOT, "notebooks");
  const specs = new Set();
  const files = fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => f.endsWith(".ipynb")) : [];
  for (const f of files) {
    let cells = [];
    try {
      cells = JSON.parse(fs.readFileSync(path.join(dir, f), "utf8")).cells ?? [];
    } catch {}
    for (const cell of cells) {
      if (cell.cell_type !== "code") continue;
      const src = Array.isArray(cell.source) ? cell.source.join("") : String(cell.source ?? "");
      for (const m of src.matchAll(/\bfrom\s+"([^"]+)"/g)) specs.add(m[1]);
    }
  }
  return [...specs].sort();
}

/**
 * lib/'s declarations as a kernel sees them with the prebuilt lib (scripts/tslab-prebuilt-lib.js):
 * lib/x.d.ts is the build's, lib/x.ts is hidden behind it. Null without a build.
 */
function libView(libBuild) {
  if (!libBuild) return null;
  const lib = path.join(ROOT, "lib");
  const stem = (file, ext) => {
    const p = path.resolve(file);
    return p.startsWith(lib + path.sep) && p.endsWith(ext) ? path.relative(ROOT, p).slice(0, -ext.length) : null;
  };
  const built = (s) => path.join(libBuild, `${s}.d.ts`);
  return {
    fileExists: (file, otherwise) => {
      const d = stem(file, ".d.ts");
      if (d !== null) return fs.existsSync(built(d));
      const t = stem(file, ".ts");
      if (t !== null && fs.existsSync(built(t))) return false;
      return otherwise(file);
    },
    readFile: (file, otherwise) => {
      const d = stem(file, ".d.ts");
      return d !== null && fs.existsSync(built(d)) ? fs.readFileSync(built(d), "utf8") : otherwise(file);
    },
  };
}

/**
 * Every declaration file a notebook's kernel reads, parsed and bound as a kernel's program would: one
 * program with tslab's options over a file importing what the notebooks import, lib/ seen as the
 * kernels see it (its prebuilt declarations).
 */
function parseDeclarations(ts, libBuild) {
  const probe = path.join(ROOT, "__tslab_snapshot__.ts");
  const text = notebookImports()
    .map((m, i) => `import * as m${i} from ${JSON.stringify(m)};`)
    .join("\n");
  const view = libView(libBuild);
  const options = kernelOptions(ts);
  const host = ts.createCompilerHost(options);
  const getSourceFile = host.getSourceFile;
  host.getSourceFile = (fileName, ...rest) => (fileName === probe ? ts.createSourceFile(fileName, text, ts.ScriptTarget.ES2022) : getSourceFile(fileName, ...rest));
  if (view) {
    const fileExists = host.fileExists.bind(host);
    const readFile = host.readFile.bind(host);
    host.fileExists = (f) => view.fileExists(f, fileExists);
    host.readFile = (f) => view.readFile(f, readFile);
  }
  const program = ts.createProgram([probe], options, host);
  program.getTypeChecker(); // binds every file
  const files = new Map();
  for (const sf of program.getSourceFiles()) {
    if (sf.fileName === probe || !sf.isDeclarationFile) continue;
    sf.version = crypto.createHash("sha256").update(sf.text).digest("hex");
    files.set(sf.fileName, sf);
  }
  return files;
}

// ---------------------------------------------------------------------------------------------
// In a kernel started from the snapshot

/** tslab's require("@tslab/typescript-for-tslab") gets the snapshot's TypeScript. */
function registerTypeScript(ts) {
  const Module = require("node:module");
  // Node caches a module under its real path (node_modules may be a link).
  const file = fs.realpathSync(TS_FILE);
  const mod = new Module(file, null);
  mod.filename = file;
  mod.paths = Module._nodeModulePaths(path.dirname(file));
  mod.exports = ts;
  mod.loaded = true;
  Module._cache[file] = mod;
}

/**
 * A parsed file from the snapshot, when the file still holds that text as the kernel reads it
 * (`readFile`: lib/x.d.ts is the prebuilt lib's) and the options match.
 */
function snapshotFileFor(files, checked, fileName, options, readFile) {
  const sf = files.get(fileName);
  if (sf === undefined) return undefined;
  const opts = typeof options === "object" ? options : { languageVersion: options };
  if (sf.languageVersion !== opts.languageVersion || sf.impliedNodeFormat !== opts.impliedNodeFormat) return undefined;
  if (!checked.has(fileName)) {
    let now;
    try {
      now = readFile(fileName);
    } catch {}
    if (now !== sf.text) {
      files.delete(fileName);
      return undefined;
    }
    checked.add(fileName);
  }
  return sf;
}

/**
 * TypeScript's exports, except that every program tslab's watch creates asks the snapshot first for a
 * file: ts.createWatchCompilerHost returns the host whose createProgram receives the compiler host the
 * watch made. (TypeScript's exports are getters, so the kernel gets a copy with that one changed.)
 */
function servingParsedFiles(ts, files) {
  const checked = new Set();
  const patched = new WeakSet();
  const served = new Set();
  const parsed = new Set();
  const parsedHere = (fileName, sf) => {
    if (sf !== undefined) parsed.add(fileName);
    return sf;
  };
  const fromSnapshot = (fileName, options) => {
    const sf = snapshotFileFor(files, checked, fileName, options, (f) => ts.sys.readFile(f));
    if (sf !== undefined) served.add(fileName);
    return sf;
  };
  const patch = (host) => {
    if (!host || patched.has(host)) return;
    patched.add(host);
    const get = host.getSourceFile;
    const getByPath = host.getSourceFileByPath;
    host.getSourceFile = (fileName, options, ...rest) => fromSnapshot(fileName, options) ?? parsedHere(fileName, get(fileName, options, ...rest));
    if (getByPath) {
      host.getSourceFileByPath = (fileName, p, options, ...rest) => fromSnapshot(fileName, options) ?? parsedHere(fileName, getByPath(fileName, p, options, ...rest));
    }
  };
  // TSLAB_SNAPSHOT_REPORT=FILE: how many files the snapshot served so far, and which were parsed here,
  // after each program (the tests read it; a kernel is often killed, so not at exit).
  const report = process.env.TSLAB_SNAPSHOT_REPORT;
  const tell = () => report && fs.writeFileSync(report, JSON.stringify({ served: served.size, inSnapshot: files.size, parsedHere: [...parsed].sort() }));
  const createWatchCompilerHost = (...args) => {
    const host = ts.createWatchCompilerHost(...args);
    // No directory watches: a main-command kernel runs one notebook over files that do not change,
    // and TypeScript's recursive watches read whole folder trees at start (~0.1 s of CPU a kernel).
    host.watchDirectory = () => ({ close() {} });
    const createProgram = host.createProgram;
    host.createProgram = (roots, options, compilerHost, ...rest) => {
      patch(compilerHost);
      const program = createProgram(roots, options, compilerHost, ...rest);
      tell();
      return program;
    };
    return host;
  };
  const descriptors = Object.getOwnPropertyDescriptors(ts);
  descriptors.createWatchCompilerHost = { value: createWatchCompilerHost, enumerable: true };
  return { ts: Object.defineProperties({}, descriptors), served };
}

/** The kernel: as `node --require tslab-prebuilt-lib.js tslab kernel ARGS`, from the snapshot's heap. */
function kernelMain(ts, files) {
  const serving = servingParsedFiles(ts, files);
  registerTypeScript(serving.ts);
  const { createRequire } = require("node:module");
  const req = createRequire(path.join(ROOT, "package.json"));
  // `node --snapshot-blob B MODE ARGS`: the first word after the options takes a script's place.
  const [mode, ...args] = process.argv.slice(1);
  if (mode === "self-test") return selfTest(req, serving.served);
  if (mode !== "kernel") throw new Error(`${NAME}: unknown mode ${mode} (kernel or self-test)`);
  req(PRELOAD);
  const bin = path.join(TSLAB, "bin", "tslab");
  process.argv = [process.argv[0], bin, "kernel", ...args];
  req(path.join(TSLAB, "dist", "main.js")).main();
}

/** A cell compiled by tslab's converter in a kernel started from the snapshot: the blob works here. */
function selfTest(req, served) {
  const { createConverter } = req(path.join(TSLAB, "dist", "converter.js"));
  const converter = createConverter();
  const out = converter.convert("", 'const x: number = 1;\nconst y: string = x.toFixed(0);\nprocess.env.HOME;\n');
  const bad = converter.convert("", "const z: number = 'no';\n");
  converter.close();
  // Served: tslab got the snapshot's TypeScript and its parsed files (else the blob only costs time).
  const ok = out.diagnostics.length === 0 && /toFixed/.test(out.output || "") && bad.diagnostics.length === 1 && served.size > 0;
  console.log(ok ? "ok" : `failed: ${JSON.stringify({ out: out.diagnostics, bad: bad.diagnostics, served: served.size })}`);
  process.exitCode = ok ? 0 : 1;
}

// ---------------------------------------------------------------------------------------------
// CLI: build when missing, check, print the path

function prune(current) {
  const blobs = fs
    .readdirSync(CACHE)
    .filter((f) => (f.endsWith(".blob") || f.endsWith(".failed")) && f !== path.basename(current))
    .map((f) => ({ f, t: fs.statSync(path.join(CACHE, f)).mtimeMs }))
    .sort((a, b) => b.t - a.t);
  for (const { f } of blobs.slice(KEEP)) fs.rmSync(path.join(CACHE, f), { force: true });
}

/** The line of a failed build or check that says why: its error's message, else its last line. */
function failureOf(output) {
  const lines = output
    .split("\n")
    .map((l) => l.replace(/^[#\s]+/, "").trim())
    .filter((l) => l !== "");
  return lines.find((l) => /^\w*Error\b|^failed:|^Fatal\b/.test(l)) ?? lines[lines.length - 1] ?? "no output";
}

/** Builds (when missing) and checks the snapshot; its path, or null with the reason printed. */
function ensureSnapshot(libBuild, log) {
  const { spawnSync } = require("node:child_process");
  const blob = path.join(CACHE, `${snapshotKey(libBuild)}.blob`);
  if (fs.existsSync(blob)) return { blob, built: false };
  // A build that failed is not retried at every start (it costs seconds): its reason is kept.
  const failed = blob.replace(/\.blob$/, ".failed");
  if (fs.existsSync(failed)) {
    log(`not used (kernels start without it): ${fs.readFileSync(failed, "utf8").trim()} (delete ${path.relative(ROOT, failed)} to try again)`);
    return null;
  }
  fs.mkdirSync(CACHE, { recursive: true });
  const tmp = `${blob}.tmp-${process.pid}`;
  const t0 = Date.now();
  const build = spawnSync(process.execPath, ["--no-warnings", "--snapshot-blob", tmp, "--build-snapshot", __filename], {
    cwd: ROOT,
    encoding: "utf8",
    env: { ...process.env, TSLAB_SNAPSHOT_LIB_BUILD: libBuild ?? "" },
  });
  const check = build.status === 0 ? spawnSync(process.execPath, ["--snapshot-blob", tmp, "self-test"], { cwd: ROOT, encoding: "utf8" }) : null;
  if (build.status !== 0 || check === null || check.status !== 0 || check.stdout.trim() !== "ok") {
    fs.rmSync(tmp, { force: true });
    const why = failureOf(build.status !== 0 ? build.stderr : `${check?.stdout ?? ""}${check?.stderr ?? ""}`);
    fs.writeFileSync(failed, `${why}\n`);
    log(`not used (kernels start without it): ${why}`);
    return null;
  }
  fs.renameSync(tmp, blob);
  prune(blob);
  return { blob, built: true, ms: Date.now() - t0 };
}

if (v8.startupSnapshot?.isBuildingSnapshot()) {
  const ts = loadCommonJs(TS_FILE);
  const files = parseDeclarations(ts, process.env.TSLAB_SNAPSHOT_LIB_BUILD || null);
  v8.startupSnapshot.setDeserializeMainFunction(() => kernelMain(ts, files));
} else if (require.main === module) {
  const at = process.argv.indexOf("--lib-build");
  const libBuild = at > 0 && process.argv[at + 1] ? path.resolve(process.argv[at + 1]) : null;
  if (libBuild !== null && !fs.existsSync(path.join(libBuild, "lib"))) {
    console.error(`${NAME}: invalid lib-build: ${libBuild} (no lib/ in it; scripts/tslab-prebuilt-lib.js --print-dir names one)`);
    process.exit(2);
  }
  const got = ensureSnapshot(libBuild, (line) => console.error(`${NAME}: ${line}`));
  if (got === null) process.exit(1);
  if (got.built) console.error(`${NAME}: built in ${(got.ms / 1000).toFixed(1)} s -> ${path.relative(ROOT, got.blob)}`);
  console.log(got.blob);
}

// The snapshot builder has no `module`.
if (typeof module !== "undefined") module.exports = { snapshotKey, snapshotFileFor, CACHE };
