// The kernels' prebuilt lib (scripts/tslab-prebuilt-lib.js): the JavaScript is exactly what tslab
// itself emits for every lib file, and in a real kernel an edited lib file (also one imported only
// indirectly) is picked up after a restart, lib types still check cells, a lib that does not compile
// falls back to tslab's own compilation (its error shows in the cell), TSLAB_PREBUILT_LIB=0 turns it off.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DRIVER } from "./kernel-driver";

const ROOT = join(__dirname, "..", "..");
const PY = join(ROOT, ".venv", "bin", "python");
const HOOK = join(ROOT, "scripts", "tslab-prebuilt-lib.js");
const skip = existsSync(PY) ? false : `no ${PY} (run scripts/setup.sh)`;

test("prebuilt lib JavaScript is byte-identical to tslab's own emit of every lib file", () => {
  const code = `
    const path = require("path"), fs = require("fs");
    const pre = require(${JSON.stringify(HOOK)});
    const { createConverter } = require(path.join(process.cwd(), "node_modules/tslab/dist/converter"));
    const files = pre.libFiles();
    const build = pre.ensureBuild();
    if (!build) throw new Error("lib did not build");
    const conv = createConverter();
    const rel = (f) => path.relative(process.cwd(), f);
    const src = files.map((f, i) => 'import * as m' + i + ' from "./' + rel(f).replace(/\\.ts$/, "") + '";').join("\\n") + "\\n" + files.map((_, i) => "m" + i + ";").join("\\n");
    const out = conv.convert("", src);
    const differ = (out.sideOutputs || []).filter((o) => fs.readFileSync(path.join(build.dir, rel(o.path)), "utf8") !== o.data).map((o) => rel(o.path));
    console.log(JSON.stringify({ files: files.length, emitted: (out.sideOutputs || []).length, diagnostics: out.diagnostics.length, differ }));
    conv.close();
  `;
  // The hook is loaded as a module here, not preloaded: tslab compiles lib itself for the comparison.
  const r = spawnSync(process.execPath, ["-e", code], { cwd: ROOT, encoding: "utf8", env: { ...process.env, TSLAB_PREBUILT_LIB: "0" } });
  assert.equal(r.status, 0, r.stderr);
  const res = JSON.parse(r.stdout.trim().split("\n").pop()!);
  assert.equal(res.diagnostics, 0);
  assert.ok(res.files > 50, `lib files: ${res.files}`);
  assert.equal(res.emitted, res.files, "tslab emitted every lib file");
  assert.deepEqual(res.differ, []);
});

test("in a kernel: edits picked up on restart, types checked, fallback on a broken lib, opt-out", { skip }, async (t) => {
  const ws = mkdtempSync(join(tmpdir(), "prebuilt-lib-"));
  t.after(() => rmSync(ws, { recursive: true, force: true }));
  mkdirSync(join(ws, "scripts"));
  for (const f of ["tslab-prebuilt-lib.js", "tslab-options.js"]) cpSync(join(ROOT, "scripts", f), join(ws, "scripts", f));
  symlinkSync(join(ROOT, "node_modules"), join(ws, "node_modules"));
  mkdirSync(join(ws, "lib", "sub"), { recursive: true });
  const writeB = (body: string) => writeFileSync(join(ws, "lib", "sub", "b.ts"), body);
  writeFileSync(
    join(ws, "lib", "a.ts"),
    'import { b } from "./sub/b";\n/** a. */\nexport function a(): string {\n  return "a1" + b();\n}\n/** Where this file runs from. */\nexport const where: string = __dirname;\n',
  );
  writeB('/** b. */\nexport function b(): string {\n  return "-b1";\n}\n');
  const kdir = join(ws, "jupyter", "kernels", "prebuilt-test");
  mkdirSync(kdir, { recursive: true });
  const argv = [
    "/bin/sh",
    "-c",
    `cd '${ws}' && exec '${process.execPath}' --require '${join(ws, "scripts", "tslab-prebuilt-lib.js")}' '${join(ROOT, "node_modules", "tslab", "bin", "tslab")}' kernel --config-path "$0"`,
    "{connection_file}",
  ];
  writeFileSync(join(kdir, "kernel.json"), JSON.stringify({ argv, display_name: "prebuilt test", language: "typescript" }));

  const cells = ['import { a, where } from "./lib/a";\nconsole.log(a(), where);', "const n: number = a();"];
  const run = (env: Record<string, string> = {}) => {
    const r = spawnSync(PY, ["-c", DRIVER, ws, JSON.stringify(cells)], {
      encoding: "utf8",
      env: { ...process.env, JUPYTER_PATH: join(ws, "jupyter"), ...env },
    });
    assert.equal(r.status, 0, r.stderr);
    return r.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { status: string; text: string });
  };
  const builds = () => (existsSync(join(ws, ".cache", "tslab-lib")) ? readdirSync(join(ws, ".cache", "tslab-lib")).filter((e) => !e.startsWith(".")) : []);

  let [first, typed] = run({ TSLAB_PREBUILT_LIB: "0" });
  assert.equal(first.text.trim(), `a1-b1 ${join(ws, "lib")}`);
  assert.deepEqual(builds(), [], "TSLAB_PREBUILT_LIB=0: nothing built");

  [first, typed] = run();
  assert.equal(first.status, "ok");
  assert.equal(first.text.trim(), `a1-b1 ${join(ws, "lib")}`, "prebuilt lib runs under lib/'s own path");
  assert.equal(builds().length, 1, "one build");
  assert.equal(typed.status, "error", "a cell is still checked against lib's types");
  assert.match(typed.text, /not assignable to type 'number'/);

  writeB('/** b. */\nexport function b(): string {\n  return "-b2";\n}\n');
  [first] = run();
  assert.equal(first.text.trim(), `a1-b2 ${join(ws, "lib")}`, "an edit of an indirectly imported file is picked up on restart");
  assert.equal(builds().length, 2, "a new build for the new content");

  writeB("/** b. */\nexport function b(): string {\n  return 2;\n}\n");
  [first] = run();
  assert.equal(first.status, "error", "a lib that does not compile fails the importing cell, as without the prebuilt lib");
  assert.match(first.text, /lib\/sub\/b\.ts.*not assignable to type 'string'/s);
  assert.equal(builds().length, 2, "no build for a lib that does not compile");
});
