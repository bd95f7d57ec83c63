import { after, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

import { diffCsv, diffJson } from "../../bench/summary-json";

const dir = mkdtempSync(path.join(os.tmpdir(), "bench-diff-test-"));
after(() => rmSync(dir, { recursive: true, force: true }));

test("diffJson: numbers within the relative tolerance are equal, others are named by path", () => {
  assert.deepEqual(diffJson({ a: [1, 2, null], b: { c: 0.1 } }, { a: [1, 2, null], b: { c: 0.1 * (1 + 1e-12) } }), []);
  assert.deepEqual(diffJson({ a: [1, 2] }, { a: [1, 2.001] }), ["$.a[1]: 2 vs 2.001"]);
  assert.deepEqual(diffJson({ a: [1] }, { a: [1, 2] }), ["$.a: length 1 vs 2"]);
  assert.deepEqual(diffJson({ a: null }, { a: 0 }), ["$.a: null vs 0"]);
  assert.deepEqual(diffJson({ a: 1, b: 2 }, { a: 1, c: 2 }), ["$: keys b only left, c only right"]);
});

test("diffCsv: same numbers in other spellings are equal; missing is not NaN; text must match", () => {
  const a = path.join(dir, "a.csv");
  const b = path.join(dir, "b.csv");
  writeFileSync(a, "round,x,y,z,list\nR0,1e-7,2,NaN,66 70\nR1,,Inf,3,\n");
  writeFileSync(b, "round,x,y,z,list\nR0,1e-07,2.0,nan,66 70\nR1,,inf,3.0,\n");
  assert.deepEqual(diffCsv(a, b), []);
  writeFileSync(b, "round,x,y,z,list\nR0,1e-07,2.0,,66 71\nR2,,inf,3.0,\n");
  assert.deepEqual(diffCsv(a, b), [
    'a.csv row 1 column z: "NaN" vs ""',
    'a.csv row 1 column list: "66 70" vs "66 71"',
    'a.csv row 2 column round: "R1" vs "R2"',
  ]);
  writeFileSync(b, "round,x\n");
  assert.deepEqual(diffCsv(a, b), ["a.csv: header round,x,y,z,list vs round,x"]);
});
