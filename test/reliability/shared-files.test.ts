/**
 * What people share follows the umask (issue 38, case 6): under umask 022 the archive a fetch writes,
 * the exports and the executed notebooks are readable by group and others (folders also listable);
 * under umask 077 they stay private. Each command runs in a shell that sets the umask first.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { after, test } from "node:test";

const ROOT = path.resolve(__dirname, "../..");
const TRL = path.join(ROOT, "test/fixtures/real-runs/trl/grpo-log1/R0-run-trlgrpolog1.wandb");
const PYTHON = path.join(ROOT, ".venv/bin/python");
const root = fs.mkdtempSync(path.join(os.tmpdir(), "rel-shared-"));
after(() => fs.rmSync(root, { recursive: true, force: true }));

/** Runs `argv` under `umask`, through sh so that the mask is the process's own from its start. */
function underUmask(umask: string, argv: string[]): void {
  execFileSync("/bin/sh", ["-c", `umask ${umask} && exec "$@"`, "sh", ...argv], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? "", HOME: root, SOURCE_DATE_EPOCH: "1767225600" },
    stdio: "pipe",
  });
}

/** Path (relative to `dir`, folders ending in "/") -> permission bits, for `dir` and everything under it. */
function modes(dir: string): Record<string, string> {
  const out: Record<string, string> = { "./": (fs.statSync(dir).mode & 0o777).toString(8) };
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      const rel = path.relative(dir, p) + (e.isDirectory() ? "/" : "");
      out[rel] = (fs.statSync(p).mode & 0o777).toString(8);
      if (e.isDirectory()) walk(p);
    }
  };
  walk(dir);
  return out;
}

/** Every folder has `dirMode`, every file `fileMode`. */
function assertModes(dir: string, dirMode: string, fileMode: string, what: string): void {
  const all = modes(dir);
  assert.ok(Object.keys(all).length > 2, `${what}: files found`);
  for (const [rel, mode] of Object.entries(all)) assert.equal(mode, rel.endsWith("/") ? dirMode : fileMode, `${what}: ${rel}`);
}

test("under umask 022 a fetched archive is drwxr-xr-x with -rw-r--r-- files, and the exports too; under umask 077 both stay private", () => {
  for (const [umask, dirMode, fileMode] of [
    ["022", "755", "644"],
    ["077", "700", "600"],
  ]) {
    const archive = path.join(root, `u${umask}`, "wandb");
    underUmask(umask, [process.execPath, "--import", "tsx", "scripts/fetch.ts", "--wandb-file", `${TRL}=R0`, "--out", archive]);
    assertModes(archive, dirMode, fileMode, `archive (umask ${umask})`);
    // Fetched again over itself: the swapped-in folder gets the same modes.
    underUmask(umask, [process.execPath, "--import", "tsx", "scripts/fetch.ts", "--wandb-file", `${TRL}=R0`, "--out", archive]);
    assertModes(archive, dirMode, fileMode, `archive fetched again (umask ${umask})`);
    const exportsDir = path.join(root, `u${umask}`, "exports");
    underUmask(umask, [
      process.execPath,
      "--import",
      "tsx",
      "scripts/export.ts",
      "--data",
      archive,
      "--out",
      exportsDir,
      "--format",
      "csv,parquet",
      "--layout",
      "hive",
    ]);
    assertModes(exportsDir, dirMode, fileMode, `exports (umask ${umask})`);
  }
});

test("an executed notebook is written -rw-r--r-- under umask 022 (not mkstemp's -rw-------), -rw------- under umask 077", {
  skip: !fs.existsSync(PYTHON) && "no .venv (npm run setup)",
}, () => {
  const script = [
    "import importlib.util, sys, nbformat",
    "spec = importlib.util.spec_from_file_location('run_notebooks', 'scripts/run-notebooks.py')",
    "m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)",
    "m.write_atomic(nbformat.v4.new_notebook(), sys.argv[1])",
  ].join("\n");
  for (const [umask, mode] of [
    ["022", "644"],
    ["077", "600"],
  ]) {
    const file = path.join(root, `nb-${umask}`, "notebooks", "01-fetch.ipynb");
    underUmask(umask, [PYTHON, "-c", script, file]);
    assert.equal((fs.statSync(file).mode & 0o777).toString(8), mode, `umask ${umask}`);
    assert.equal(JSON.parse(fs.readFileSync(file, "utf8")).nbformat, 4);
  }
});
