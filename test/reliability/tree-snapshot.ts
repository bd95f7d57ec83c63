/** Test helper: every file under a folder as bytes, to prove a folder is byte-identical before and after. */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";

/** Relative path -> bytes (hex) of every file under `dir`, folders included as "<path>/" entries; {} when missing. */
export function snapshotTree(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  if (!fs.existsSync(dir)) return out;
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const p = path.join(d, e.name);
      const rel = path.relative(dir, p);
      if (e.isDirectory()) {
        out[`${rel}/`] = "";
        walk(p);
      } else out[rel] = fs.readFileSync(p).toString("hex");
    }
  };
  walk(dir);
  return out;
}

/** Asserts two snapshots hold the same files with the same bytes, naming the first difference. */
export function assertSameTree(actual: Record<string, string>, expected: Record<string, string>, what: string): void {
  assert.deepEqual(Object.keys(actual), Object.keys(expected), `${what}: same files`);
  for (const key of Object.keys(expected)) assert.ok(actual[key] === expected[key], `${what}: ${key} differs`);
}

/** Every regular file under `dir` (absolute paths). */
export function filesUnder(dir: string): string[] {
  const out: string[] = [];
  if (!fs.existsSync(dir)) return out;
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile()) out.push(p);
    }
  };
  walk(dir);
  return out.sort();
}
