// The headless runner must fail on any cell whose execute reply is not "ok" (tslab sends no error
// output), name the notebook and cell, and show the kernel's stderr.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, existsSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const ROOT = join(__dirname, "..", "..");
const PY = join(ROOT, ".venv", "bin", "python");
const RUNNER = join(ROOT, "scripts", "run-notebooks.py");
const FIX = join(ROOT, "test", "fixtures", "notebooks");

function run(nb: string) {
  const out = mkdtempSync(join(tmpdir(), "runner-"));
  const r = spawnSync(PY, [RUNNER, "--out", out, join(FIX, nb)], { cwd: ROOT, encoding: "utf8" });
  const written = existsSync(join(out, nb));
  rmSync(out, { recursive: true, force: true });
  return { status: r.status, stderr: r.stderr, stdout: r.stdout, written };
}

test("a type error fails the run and names cell 2 and the compiler message", () => {
  const r = run("broken-type-error.ipynb");
  assert.equal(r.status, 1, r.stdout + r.stderr);
  assert.match(r.stderr, /FAILED .*broken-type-error\.ipynb: cell 2 \(execution reply status: error\)/);
  assert.match(r.stderr, /const bad: number = "not a number";/);
  assert.match(r.stderr, /not assignable to type 'number'/);
  assert.equal(r.written, false, "no executed copy is written for a failed notebook");
});

test("a thrown error fails the run with the kernel's stderr", () => {
  const r = run("broken-throw.ipynb");
  assert.equal(r.status, 1);
  assert.match(r.stderr, /cell 1 \(execution reply status: error\)/);
  assert.match(r.stderr, /deliberate failure in fixture/);
});

test("a rejected await fails the run", () => {
  const r = run("broken-lib-error.ipynb");
  assert.equal(r.status, 1);
  assert.match(r.stderr, /cell 1 \(execution reply status: error\)/);
  assert.match(r.stderr, /ENOENT/);
});

test("an aborted reply counts as a failure, not a pass", () => {
  // An abort reply cannot be provoked deterministically through nbclient (it sends one cell at a
  // time), so check the decision itself on the reply the kernel would send.
  const code = [
    "import asyncio, importlib.util, sys",
    `spec = importlib.util.spec_from_file_location('runner', ${JSON.stringify(RUNNER)})`,
    "m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)",
    "c = m.StrictClient.__new__(m.StrictClient)",
    "for status in ('abort', 'error', 'ok'):",
    "    try:",
    "        asyncio.run(c._check_raise_for_error({}, 3, {'content': {'status': status}})); print(status, 'passed')",
    "    except m.CellFailed as e: print(status, 'failed', e)",
  ].join("\n");
  const r = spawnSync(PY, ["-c", code], { encoding: "utf8" });
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(r.stdout.trim().split("\n"), ["abort failed cell 3 replied abort", "error failed cell 3 replied error", "ok passed"]);
});

test("--jobs 2 runs notebooks side by side, writes the good one and fails naming the broken one", () => {
  const out = mkdtempSync(join(tmpdir(), "runner-jobs-"));
  try {
    const r = spawnSync(PY, [RUNNER, "--jobs", "2", "--out", out, join(FIX, "ok-small.ipynb"), join(FIX, "broken-throw.ipynb")], {
      cwd: ROOT,
      encoding: "utf8",
    });
    assert.equal(r.status, 1, r.stdout + r.stderr);
    assert.match(r.stdout, /^ok .*ok-small\.ipynb: 1 code cells in/m);
    assert.match(r.stderr, /FAILED .*broken-throw\.ipynb: cell 1/);
    assert.equal((r.stderr.match(/notebook\(s\) failed/g) ?? []).length, 1, "one summary line");
    assert.match(r.stderr, /1 notebook\(s\) failed: .*broken-throw\.ipynb/);
    assert.ok(existsSync(join(out, "ok-small.ipynb")));
    assert.ok(!existsSync(join(out, "broken-throw.ipynb")));
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});

test("the parquet reader (hyparquet, ESM-only) loads and reads a file inside a tslab kernel", () => {
  const r = run("ok-parquet-reader.ipynb");
  assert.equal(r.status, 0, r.stdout + r.stderr);
  assert.equal(r.written, true);
});
