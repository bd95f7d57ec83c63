// The kernels' startup snapshot (scripts/tslab-snapshot.js): a parsed declaration file is served only
// while the file on disk has the same text and the options match; built in a workspace, a kernel
// started from it runs cells against lib's prebuilt types and @types/node, still refuses a cell that
// does not type-check, parses only tslab's own files of the cells, and a lib edited since is parsed
// afresh; a second call reuses the blob, other V8 flags (NODE_OPTIONS) get their own, a failed build
// is said and not retried.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DRIVER } from "./kernel-driver";

const ROOT = join(__dirname, "..", "..");
const PY = join(ROOT, ".venv", "bin", "python");
const SNAPSHOT = join(ROOT, "scripts", "tslab-snapshot.js");
const skip = existsSync(PY) ? false : `no ${PY} (run scripts/setup.sh)`;

type ParsedFile = { text: string; languageVersion: number; impliedNodeFormat?: number };
const { snapshotFileFor } = require(SNAPSHOT) as {
  snapshotFileFor(
    files: Map<string, ParsedFile>,
    checked: Set<string>,
    fileName: string,
    options: unknown,
    readFile: (f: string) => string | undefined,
  ): ParsedFile | undefined;
};

test("a parsed file is served only for the same text on disk and the same language options", (t) => {
  const dir = mkdtempSync(join(tmpdir(), "tslab-snapshot-unit-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, "a.d.ts");
  writeFileSync(file, "declare const a: number;\n");
  const parsed: ParsedFile = { text: "declare const a: number;\n", languageVersion: 9 };
  const files = new Map([[file, parsed]]);
  const checked = new Set<string>();
  // The kernel's view of a file (the prebuilt lib serves lib/x.d.ts from its build).
  const read = (f: string) => readFileSync(f, "utf8");
  assert.equal(snapshotFileFor(files, checked, join(dir, "other.d.ts"), { languageVersion: 9 }, read), undefined, "not in the snapshot");
  assert.equal(snapshotFileFor(files, checked, file, { languageVersion: 99 }, read), undefined, "another language version");
  assert.equal(snapshotFileFor(files, checked, file, { languageVersion: 9, impliedNodeFormat: 99 }, read), undefined, "another module format");
  assert.equal(snapshotFileFor(files, checked, file, { languageVersion: 9 }, read), parsed, "same text, same options");
  assert.equal(snapshotFileFor(files, checked, file, 9, read), parsed, "options as a bare language version");

  const stale = join(dir, "b.d.ts");
  writeFileSync(stale, "declare const b: string;\n");
  files.set(stale, { text: "declare const b: number;\n", languageVersion: 9 });
  assert.equal(snapshotFileFor(files, new Set(), stale, { languageVersion: 9 }, read), undefined, "the file changed since the snapshot");
  assert.equal(files.has(stale), false, "and is parsed afresh from then on");
  files.set(stale, { text: "declare const b: string;\n", languageVersion: 9 });
  assert.equal(
    snapshotFileFor(files, new Set(), stale, { languageVersion: 9 }, () => "declare const b: boolean;\n"),
    undefined,
    "read as the kernel reads it",
  );
});

test("built in a workspace: a kernel from the snapshot checks cells against lib and @types/node; the blob is reused", { skip }, (t) => {
  const ws = mkdtempSync(join(tmpdir(), "tslab-snapshot-"));
  t.after(() => rmSync(ws, { recursive: true, force: true }));
  mkdirSync(join(ws, "scripts"));
  for (const f of ["tslab-snapshot.js", "tslab-prebuilt-lib.js", "tslab-options.js"]) cpSync(join(ROOT, "scripts", f), join(ws, "scripts", f));
  cpSync(join(ROOT, "package-lock.json"), join(ws, "package-lock.json"));
  symlinkSync(join(ROOT, "node_modules"), join(ws, "node_modules"));
  mkdirSync(join(ws, "lib"));
  writeFileSync(join(ws, "lib", "a.ts"), '/** a. */\nexport function a(): string {\n  return "a1";\n}\n');
  // The snapshot holds what the notebooks import.
  mkdirSync(join(ws, "notebooks"));
  const cell = { cell_type: "code", metadata: {}, outputs: [], execution_count: null, source: 'import { a } from "./lib/a";\n' };
  writeFileSync(join(ws, "notebooks", "01-a.ipynb"), JSON.stringify({ cells: [cell], metadata: {}, nbformat: 4, nbformat_minor: 5 }));

  const libBuild = () => {
    const r = spawnSync(process.execPath, [join(ws, "scripts", "tslab-prebuilt-lib.js"), "--print-dir"], { cwd: ws, encoding: "utf8" });
    assert.equal(r.status, 0, r.stderr);
    return r.stdout.trim();
  };
  const lib1 = libBuild();
  const build = (nodeOptions = "", lib = lib1) =>
    spawnSync(process.execPath, [join(ws, "scripts", "tslab-snapshot.js"), "--lib-build", lib], {
      cwd: ws,
      encoding: "utf8",
      env: { ...process.env, NODE_OPTIONS: nodeOptions },
    });
  const first = build();
  assert.equal(first.status, 0, first.stderr);
  const blob = first.stdout.trim();
  assert.match(first.stderr, /built in [\d.]+ s/);
  assert.ok(existsSync(blob) && blob.startsWith(join(ws, ".cache", "tslab-snapshot")), blob);
  const again = build();
  assert.equal(again.stdout.trim(), blob, "the same blob");
  assert.doesNotMatch(again.stderr, /built/, "not built again");
  // V8 refuses a blob built under other V8 flags: another NODE_OPTIONS, another blob, that loads.
  const heap = build("--max-old-space-size=3000");
  assert.equal(heap.status, 0, heap.stderr);
  assert.notEqual(heap.stdout.trim(), blob);
  assert.match(heap.stderr, /built in/);
  const noLib = build("", join(ws, "no-such-lib-build"));
  assert.equal(noLib.status, 2);
  assert.match(noLib.stderr, /invalid lib-build: .*no-such-lib-build \(no lib\/ in it/);
  // A build that fails (here: a heap too small for it): no blob, the reason said, and not tried
  // again at the next start.
  const broken = build("--max-old-space-size=40");
  assert.equal(broken.status, 1);
  assert.equal(broken.stdout, "");
  assert.match(broken.stderr, /not used \(kernels start without it\): Fatal javascript OOM/);
  const brokenAgain = build("--max-old-space-size=40");
  assert.equal(brokenAgain.status, 1);
  assert.match(brokenAgain.stderr, /delete \.cache\/tslab-snapshot\/\w+\.failed to try again/);
  assert.deepEqual(
    readdirSync(join(ws, ".cache", "tslab-snapshot")).filter((f) => f.includes(".tmp")),
    [],
    "no partial blob left",
  );

  const kdir = join(ws, "jupyter", "kernels", "prebuilt-test");
  mkdirSync(kdir, { recursive: true });
  const argv = ["/bin/sh", "-c", `cd '${ws}' && exec '${process.execPath}' --snapshot-blob '${blob}' kernel --config-path "$0"`, "{connection_file}"];
  writeFileSync(join(kdir, "kernel.json"), JSON.stringify({ argv, display_name: "snapshot test", language: "typescript" }));
  const report = join(ws, "served.json");
  const kernel = (cells: string[]) => {
    const r = spawnSync(PY, ["-c", DRIVER, ws, JSON.stringify(cells)], {
      encoding: "utf8",
      env: { ...process.env, NODE_OPTIONS: "", JUPYTER_PATH: join(ws, "jupyter"), TSLAB_SNAPSHOT_REPORT: report },
    });
    assert.equal(r.status, 0, r.stderr);
    const replies = r.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { status: string; text: string });
    return { replies, ...(JSON.parse(readFileSync(report, "utf8")) as { served: number; inSnapshot: number; parsedHere: string[] }) };
  };
  const cells = [
    'import { a } from "./lib/a";\nconst home: string | undefined = process.env.HOME;\nconsole.log(a(), typeof home);',
    'import { createHash } from "node:crypto";\nconsole.log(createHash("sha256").update("x").digest("hex").slice(0, 8));',
    // Last: tslab aborts the cells sent right after a failing one.
    "const n: number = a();",
  ];
  const run = kernel(cells);
  const [lib, node, typed] = run.replies;
  assert.equal(lib.status, "ok", lib.text);
  assert.equal(lib.text.trim(), "a1 string");
  assert.equal(typed.status, "error", "a cell that does not type-check is refused");
  assert.match(typed.text, /not assignable to type 'number'/);
  assert.equal(node.status, "ok", node.text);
  assert.equal(node.text.trim(), "2d711642", "Node's own modules, typed by the snapshot's @types/node");
  // Parsed in the snapshot, not again: TypeScript's lib files, @types (node alone has ~60 files) and
  // lib/'s prebuilt declarations; only tslab's own two files of the cells are parsed in the kernel.
  assert.ok(run.served >= 80 && run.served <= run.inSnapshot, `served ${run.served} of ${run.inSnapshot}`);
  assert.deepEqual(run.parsedHere, [join(ws, "__prev__.d.ts"), join(ws, "__tslab__.ts")]);

  // lib/ edited, the old snapshot kept: lib/a.d.ts is parsed afresh from the new build, never stale.
  writeFileSync(join(ws, "lib", "a.ts"), "/** a. */\nexport function a(): number {\n  return 2;\n}\n");
  assert.notEqual(libBuild(), lib1);
  const edited = kernel(['import { a } from "./lib/a";\nconst two: number = a();\nconsole.log(two + 1);']);
  assert.equal(edited.replies[0].status, "ok", edited.replies[0].text);
  assert.equal(edited.replies[0].text.trim(), "3");
  assert.ok(edited.parsedHere.includes(join(ws, "lib", "a.d.ts")), edited.parsedHere.join(", "));
});
