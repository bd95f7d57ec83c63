import { test } from "node:test";
import assert from "node:assert/strict";

import { csvText } from "../../lib/export/csv-text";

test("csvText writes header, rows, \\n line endings and a trailing newline", () => {
  const text = csvText({
    name: "t.csv",
    columns: ["round", "a", "b"],
    rows: [
      ["R0", 1e-7, null],
      ["R1", NaN, -Infinity],
    ],
  });
  assert.equal(text, "round,a,b\nR0,1e-7,\nR1,NaN,-Inf\n");
});

test("csvText quotes only the cells that need it", () => {
  const text = csvText({
    name: "t.csv",
    columns: ["round", "x,y", "note"],
    rows: [
      ["a,b", 1, 'say "hi"'],
      ["plain", -1, "-Inf looks like a formula but stays as is"],
      ["line\nbreak", 2, "=1+1"],
    ],
  });
  assert.equal(text, 'round,"x,y",note\n"a,b",1,"say ""hi"""\nplain,-1,-Inf looks like a formula but stays as is\n"line\nbreak",2,=1+1\n');
});

test("csvText of a table without rows is the header line", () => {
  assert.equal(csvText({ name: "t.csv", columns: ["round", "a"], rows: [] }), "round,a\n");
});

test("csvText refuses a row whose length differs from the header, naming table and row", () => {
  assert.throws(() => csvText({ name: "t.csv", columns: ["a", "b"], rows: [[1, 2], [3]] }), {
    message: "invalid rows of t.csv: data row 2 has 1 cells, the header 2",
  });
  assert.throws(() => csvText({ name: "t.csv", columns: ["a", "a"], rows: [] }), { message: "invalid columns of t.csv: a column name repeats" });
});
