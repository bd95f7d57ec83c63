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
