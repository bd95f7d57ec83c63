/**
 * The registry is the only framework seam: outside lib/registry, no module of lib/, no script and no
 * notebook compares anything with a framework's name (`=== "slime"`, `profile.name !== "verl"`, ...);
 * what differs between frameworks is declared in their profiles and read from there.
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import * as path from "node:path";
import { test } from "node:test";

import { PROFILE_NAMES } from "../../lib/registry/profiles";

const ROOT = path.resolve(__dirname, "../..");
const NAMES = PROFILE_NAMES.join("|");
const COMPARISON = new RegExp(`(===|!==)\\s*"(${NAMES})"|"(${NAMES})"\\s*(===|!==)`);

function files(dir: string, keep: (f: string) => boolean): string[] {
  const out: string[] = [];
  for (const name of readdirSync(path.join(ROOT, dir))) {
    const rel = path.join(dir, name);
    if (statSync(path.join(ROOT, rel)).isDirectory()) out.push(...files(rel, keep));
    else if (keep(rel)) out.push(rel);
  }
  return out;
}

test("no module outside lib/registry compares with a framework's name", () => {
  const checked = [
    ...files("lib", (f) => f.endsWith(".ts") && !f.startsWith(path.join("lib", "registry"))),
    ...files("scripts", (f) => f.endsWith(".ts")),
    ...files("notebooks", (f) => f.endsWith(".ipynb")),
  ];
  assert.ok(checked.length > 100, `files checked: ${checked.length}`);
  const found: string[] = [];
  for (const f of checked) {
    readFileSync(path.join(ROOT, f), "utf8")
      .split("\n")
      .forEach((line, i) => {
        if (COMPARISON.test(line)) found.push(`${f}:${i + 1}: ${line.trim().slice(0, 120)}`);
      });
  }
  assert.deepEqual(found, []);
  // The pattern catches what it is for.
  assert.ok(COMPARISON.test('if (profile.name === "slime") x();') && COMPARISON.test('"trl" !== p.name') && !COMPARISON.test('const s = "slime";'));
});
