// tslab (the notebook kernel) cannot resolve an import of a folder ("./x" meaning "./x/index.ts"):
// it compiles, then fails when the cell runs. So no file in lib/ may import a folder.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync, existsSync } from "node:fs";
import { join, dirname, resolve } from "node:path";

const LIB = join(__dirname, "..", "lib");

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? files(p) : p.endsWith(".ts") ? [p] : [];
  });
}

test("no lib file imports a folder (tslab cannot resolve folder imports)", () => {
  const bad: string[] = [];
  for (const file of files(LIB)) {
    const src = readFileSync(file, "utf8");
    for (const m of src.matchAll(/(?:from|import|require\()\s*["'](\.{1,2}\/[^"']*)["']/g)) {
      const target = resolve(dirname(file), m[1]);
      if (existsSync(target) && statSync(target).isDirectory()) bad.push(`${file.slice(LIB.length + 1)} imports folder ${m[1]}`);
    }
  }
  assert.deepEqual(bad, [], `use ".../index" instead:\n${bad.join("\n")}`);
});

/** The names a lib module exports: its `export { ... }` lists and its exported declarations. */
function exportedNames(file: string): Set<string> {
  const src = readFileSync(file, "utf8");
  const names = new Set<string>();
  for (const m of src.matchAll(/export\s*(?:type\s*)?\{([^}]*)\}/g))
    for (const part of m[1].split(",")) {
      const name = part
        .replace(/^\s*type\s+/, "")
        .split(/\s+as\s+/)
        .pop()!
        .trim();
      if (name !== "") names.add(name);
    }
  for (const m of src.matchAll(/export\s+(?:declare\s+)?(?:async\s+)?(?:function\*?|const|let|class|interface|type|enum)\s+([A-Za-z_$][\w$]*)/g))
    names.add(m[1]);
  return names;
}

// tsconfig.tslab.json type-checks lib/, not the notebooks' cells: a name a cell imports that its module
// no longer exports compiles nowhere before the cell runs (notebook 06 lost one in a merge).
test("every name a notebook imports from lib/ is exported by that module", () => {
  const NOTEBOOKS = join(__dirname, "..", "notebooks");
  const missing: string[] = [];
  for (const nb of readdirSync(NOTEBOOKS).filter((f) => f.endsWith(".ipynb"))) {
    const cells = JSON.parse(readFileSync(join(NOTEBOOKS, nb), "utf8")).cells as { cell_type: string; source: string[] | string }[];
    const code = cells
      .filter((c) => c.cell_type === "code")
      .map((c) => (Array.isArray(c.source) ? c.source.join("") : c.source))
      .join("\n");
    for (const m of code.matchAll(/import\s*\{([^}]*)\}\s*from\s*"\.\/(lib\/[^"]+)"/g)) {
      const file = join(__dirname, "..", `${m[2]}.ts`);
      const exported = exportedNames(file);
      for (const part of m[1].split(",")) {
        const name = part
          .replace(/^\s*type\s+/, "")
          .split(/\s+as\s+/)[0]
          .trim();
        if (name !== "" && !exported.has(name)) missing.push(`${nb}: ${name} from ${m[2]}`);
      }
    }
  }
  assert.deepEqual(missing, []);
});
