/**
 * No import circles, type-only ones included: every module of lib/, scripts/, tools/, bench/ and
 * test/ can be read in an order where each comes after what it imports.
 */
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import * as path from "node:path";
import { test } from "node:test";

const ROOT = path.resolve(__dirname, "..");
const IMPORT = /^\s*(?:import|export)\s[^;]*?\sfrom\s+"(\.{1,2}\/[^"]+)"/gm;

/** Every .ts file below `dir` (relative to the repository), fixtures' generated code aside. */
function tsFiles(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir)).flatMap((name) => {
    const rel = path.join(dir, name);
    if (name === "node_modules") return [];
    if (statSync(path.join(ROOT, rel)).isDirectory()) return tsFiles(rel);
    return rel.endsWith(".ts") ? [rel] : [];
  });
}

/** The repository files a module imports by relative path. */
function importsOf(file: string): string[] {
  const text = readFileSync(path.join(ROOT, file), "utf8");
  const out: string[] = [];
  for (const m of text.matchAll(IMPORT)) {
    const target = path.join(path.dirname(file), m[1]);
    const found = [`${target}.ts`, path.join(target, "index.ts")].find((f) => existsSync(path.join(ROOT, f)));
    if (found !== undefined) out.push(found);
  }
  return out;
}

/** A circle of imports as a path (first module last again), or null. */
function findCircle(graph: Map<string, string[]>): string[] | null {
  const state = new Map<string, "open" | "done">();
  const stack: string[] = [];
  const visit = (f: string): string[] | null => {
    state.set(f, "open");
    stack.push(f);
    for (const g of graph.get(f) ?? []) {
      if (state.get(g) === "open") return [...stack.slice(stack.indexOf(g)), g];
      if (state.get(g) === undefined) {
        const c = visit(g);
        if (c !== null) return c;
      }
    }
    stack.pop();
    state.set(f, "done");
    return null;
  };
  for (const f of graph.keys()) {
    if (state.get(f) !== undefined) continue;
    const c = visit(f);
    if (c !== null) return c;
  }
  return null;
}

test("no module imports itself through others", () => {
  const files = ["lib", "scripts", "tools", "bench", "test"].flatMap(tsFiles);
  assert.ok(files.length > 300, `files read: ${files.length}`);
  const graph = new Map(files.map((f) => [f, importsOf(f)] as const));
  assert.equal(findCircle(graph)?.join(" -> ") ?? null, null);
});

test("the check finds a circle", () => {
  const graph = new Map([
    ["a.ts", ["b.ts"]],
    ["b.ts", ["c.ts"]],
    ["c.ts", ["a.ts"]],
  ]);
  assert.deepEqual(findCircle(graph), ["a.ts", "b.ts", "c.ts", "a.ts"]);
});

test("below the registry nothing imports from it: the shared types, values, wire and the W&B reader", () => {
  const below = ["lib/types.ts", ...["lib/values", "lib/wire", "lib/wandb"].flatMap(tsFiles)];
  const up = below.flatMap((f) =>
    importsOf(f)
      .filter((g) => g.startsWith(path.join("lib", "registry")))
      .map((g) => `${f} -> ${g}`),
  );
  assert.deepEqual(up, []);
});
