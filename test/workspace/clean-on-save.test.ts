/**
 * The JupyterLab save hook (jupyter/clean_on_save.py, installed by scripts/setup.sh) writes a source
 * notebook exactly as `npm run clean-notebooks` would (lib/workspace/clean-notebook.ts): the two
 * declarations of what is kept cannot drift apart. Notebooks outside notebooks/ are saved as they are.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { test } from "node:test";

import { parseNotebook, serializeNotebook } from "../../lib/display/notebook-static-images";
import { cleanNotebook } from "../../lib/workspace/clean-notebook";

const ROOT = path.resolve(__dirname, "../..");
const PYTHON = path.join(ROOT, ".venv/bin/python");
const skip = !fs.existsSync(PYTHON) && "no .venv (npm run setup)";

/** Runs the hook as jupyter_server does (pre_save_hook(model=..., path=..., contents_manager=...)) on `file`'s notebook; prints the text nbformat writes. */
function savedThroughHook(file: string, apiPath: string, rootDir: string): string {
  const script = [
    "import importlib.util, sys, nbformat",
    "spec = importlib.util.spec_from_file_location('hook', 'jupyter/clean_on_save.py')",
    "hook = importlib.util.module_from_spec(spec); spec.loader.exec_module(hook)",
    "class CM: root_dir = sys.argv[3]",
    "model = {'type': 'notebook', 'content': nbformat.read(sys.argv[1], as_version=4)}",
    "hook.clean_on_save(model=model, path=sys.argv[2], contents_manager=CM())",
    "sys.stdout.write(nbformat.writes(model['content']) + '\\n')",
  ].join("\n");
  return execFileSync(PYTHON, ["-c", script, file, apiPath, rootDir], { cwd: ROOT, encoding: "utf8" });
}

test("a run notebook saved under notebooks/ through the hook is byte for byte npm run clean-notebooks' form; elsewhere it keeps its outputs", { skip }, () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "clean-on-save-"));
  try {
    for (const name of fs.readdirSync(path.join(ROOT, "notebooks")).filter((f) => f.endsWith(".ipynb"))) {
      // A notebook as a Run All leaves it: outputs, counts, run metadata.
      const nb = JSON.parse(fs.readFileSync(path.join(ROOT, "notebooks", name), "utf8"));
      nb.metadata.language_info = { name: "typescript", version: "5.0.4", file_extension: ".ts" };
      nb.metadata.widgets = { state: {} };
      nb.cells.forEach((c: Record<string, unknown>, i: number) => {
        c.metadata = { tags: ["keep"], execution: { "iopub.status.busy": "2026-01-01" }, scrolled: true };
        if (c.cell_type === "code") Object.assign(c, { execution_count: i + 1, outputs: [{ output_type: "stream", name: "stdout", text: ["ran\n"] }] });
      });
      const dirty = path.join(tmp, name);
      fs.writeFileSync(dirty, JSON.stringify(nb));
      const expected = serializeNotebook(cleanNotebook(parseNotebook(fs.readFileSync(dirty, "utf8"), name)));
      assert.equal(savedThroughHook(dirty, `notebooks/${name}`, ROOT), expected, name);
      const elsewhere = JSON.parse(savedThroughHook(dirty, `tmp/${name}`, ROOT));
      assert.ok(
        elsewhere.cells.some((c: { outputs?: unknown[] }) => (c.outputs?.length ?? 0) > 0),
        `${name} saved outside notebooks/ keeps its outputs`,
      );
    }
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
});

test("npm run setup installs the hook into the project venv's server config", { skip }, () => {
  const config = fs.readFileSync(path.join(ROOT, ".venv/etc/jupyter/jupyter_server_config.py"), "utf8");
  assert.ok(config.includes(`"${path.join(ROOT, "jupyter/clean_on_save.py")}"`), config);
  assert.match(config, /^c\.ContentsManager\.pre_save_hook = _hook\.clean_on_save$/m);
});
