// The clean form of a notebook (lib/workspace/clean-notebook.ts) and `npm run clean-notebooks`
// (scripts/clean-notebooks.ts) on a notebook as JupyterLab saves it after a run.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Notebook } from "../../lib/display/notebook-static-images";
import { cleanNotebook } from "../../lib/workspace/clean-notebook";

const ROOT = join(__dirname, "..", "..");

/** A notebook after a run in JupyterLab: outputs, counts, timings, widget and viewer state. */
function executed(): Notebook {
  return {
    cells: [
      { cell_type: "markdown", id: "a1", metadata: { jp: { collapsed: true } }, source: ["# 01 · Title\n", "> subtitle"] },
      {
        cell_type: "code",
        id: "b2",
        execution_count: 7,
        metadata: { execution: { "iopub.status.busy": "2026-12-02T10:00:00Z" }, scrolled: true, collapsed: false, tags: ["parameters"] },
        outputs: [{ output_type: "stream", name: "stdout", text: ["42\n"] }],
        source: ["console.log(42);"],
      },
      { cell_type: "code", execution_count: null, metadata: {}, outputs: [], source: [] },
    ],
    metadata: {
      kernelspec: { display_name: "TypeScript (slime diagnostics workspace)", language: "typescript", name: "slime-diagnostics-ts", env: { X: "1" } },
      language_info: { name: "typescript", version: "5.0.4", file_extension: ".ts", mimetype: "text/typescript" },
      widgets: { "application/vnd.jupyter.widget-state+json": { state: {} } },
      vscode: { interpreter: { hash: "abc" } },
    },
    nbformat: 4,
    nbformat_minor: 5,
  };
}

test("cleaning drops outputs, execution counts and every metadata field not kept", () => {
  assert.deepEqual(cleanNotebook(executed()), {
    cells: [
      { cell_type: "markdown", id: "a1", metadata: {}, source: ["# 01 · Title\n", "> subtitle"] },
      { cell_type: "code", id: "b2", execution_count: null, metadata: { tags: ["parameters"] }, outputs: [], source: ["console.log(42);"] },
      { cell_type: "code", execution_count: null, metadata: {}, outputs: [], source: [] },
    ],
    metadata: {
      kernelspec: { display_name: "TypeScript (slime diagnostics workspace)", language: "typescript", name: "slime-diagnostics-ts" },
      language_info: { name: "typescript" },
    },
    nbformat: 4,
    nbformat_minor: 5,
  });
});

test("cleaning changes neither sources nor cell ids, adds no metadata and leaves its input alone", () => {
  const nb = executed();
  const before = JSON.stringify(nb);
  const clean = cleanNotebook({ ...nb, metadata: {} });
  assert.deepEqual(clean.metadata, {}, "no kernelspec is invented");
  assert.deepEqual(
    clean.cells.map((c) => [c.id, c.source]),
    nb.cells.map((c) => [c.id, c.source]),
  );
  assert.equal(JSON.stringify(nb), before);
  assert.deepEqual(cleanNotebook(clean), clean, "cleaning twice changes nothing");
});

test("npm run clean-notebooks -- --check names a dirty notebook and exits 1; without --check it rewrites it clean", () => {
  const dir = mkdtempSync(join(tmpdir(), "clean-nb-"));
  try {
    const file = join(dir, "01-x.ipynb");
    writeFileSync(file, JSON.stringify(executed()));
    const run = (...args: string[]) =>
      spawnSync(process.execPath, ["--import", "tsx", join(ROOT, "scripts", "clean-notebooks.ts"), ...args, file], { cwd: ROOT, encoding: "utf8" });
    const check = run("--check");
    assert.equal(check.status, 1, check.stderr);
    assert.match(check.stderr, /^not clean \(outputs, execution counts or run metadata\): \S*\/01-x\.ipynb\nrun: npm run clean-notebooks\n$/);
    assert.deepEqual(JSON.parse(readFileSync(file, "utf8")), executed(), "--check rewrites nothing");
    const clean = run();
    assert.equal(clean.status, 0, clean.stderr);
    assert.match(clean.stdout, /^cleaned \S*\/01-x\.ipynb\n$/);
    const text = readFileSync(file, "utf8");
    assert.deepEqual(JSON.parse(text), cleanNotebook(executed()));
    assert.ok(text.startsWith('{\n "cells": [\n  {\n   "cell_type": "markdown",\n   "id": "a1",'), "nbformat's layout: sorted keys, one-space indent");
    assert.ok(text.includes("# 01 · Title") && text.endsWith("}\n"), "non-ASCII kept as is, final newline");
    assert.equal(run("--check").status, 0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
