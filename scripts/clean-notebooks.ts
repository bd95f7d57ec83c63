/**
 * `npm run clean-notebooks`: rewrite the source notebooks in their clean form (no outputs, no
 * execution counts, only the metadata lib/workspace/clean-notebook.ts keeps), in nbformat's own
 * layout (sorted keys, one-space indent), so that a notebook saved from JupyterLab commits clean.
 *
 * Usage: tsx scripts/clean-notebooks.ts [--check] [NOTEBOOK.ipynb ...]   (default: notebooks/*.ipynb)
 * --check rewrites nothing, lists the notebooks that are not clean and exits 1 if there are any.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { parseArgs } from "node:util";
import { parseNotebook, serializeNotebook } from "../lib/display/notebook-static-images";
import { cleanNotebook } from "../lib/workspace/clean-notebook";

const ROOT = path.resolve(__dirname, "..");

function main(): number {
  const { values, positionals } = parseArgs({ options: { check: { type: "boolean", default: false } }, allowPositionals: true });
  const dir = path.join(ROOT, "notebooks");
  const files =
    positionals.length > 0
      ? positionals
      : fs
          .readdirSync(dir)
          .filter((f) => f.endsWith(".ipynb"))
          .sort()
          .map((f) => path.join(dir, f));
  const dirty: string[] = [];
  for (const file of files) {
    const text = fs.readFileSync(file, "utf8");
    const clean = serializeNotebook(cleanNotebook(parseNotebook(text, file)));
    if (clean === text) continue;
    dirty.push(path.relative(process.cwd(), file));
    if (!values.check) {
      const tmp = `${file}.tmp-${process.pid}`;
      fs.writeFileSync(tmp, clean);
      fs.renameSync(tmp, file);
    }
  }
  if (values.check) {
    if (dirty.length === 0) return 0;
    console.error(`not clean (outputs, execution counts or run metadata): ${dirty.join(", ")}\nrun: npm run clean-notebooks`);
    return 1;
  }
  console.log(dirty.length === 0 ? `${files.length} notebooks already clean` : `cleaned ${dirty.join(", ")}`);
  return 0;
}

process.exitCode = main();
