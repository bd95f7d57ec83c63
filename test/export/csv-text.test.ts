import { test } from "node:test";
import assert from "node:assert/strict";

// Namespace import, as lib/ does: papaparse is a plain CommonJS object.
import * as Papa from "papaparse";

import { csvByteChunks, csvField, csvText, tableRows } from "../../lib/export/csv-text";
import type { StreamedTable } from "../../lib/export/packed-table";
import { formatCell, type ExportCell } from "../../lib/export/export-cell";

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

test("csvField quotes exactly as papaparse's unparse does (quotes: false)", () => {
  const tricky = [
    "",
    "plain",
    " lead",
    "trail ",
    " ",
    "a,b",
    'say "hi"',
    '"',
    "line\nbreak",
    "cr\rhere",
    "\ufeffbom",
    "tab\there",
    "=1+1",
    "-Inf",
    "é ü",
    "a;b",
    "'q'",
  ];
  for (const s of tricky) {
    const expected = Papa.unparse([[s]], { newline: "\n", quotes: false, escapeFormulae: false, header: false });
    assert.equal(csvField(s), expected, JSON.stringify(s));
  }
});

test("csvByteChunks of a streamed table spanning several 4 MB chunks equals papaparse's text of the same rows (multi-byte text included)", () => {
  const rows: ExportCell[][] = [];
  const long = "€é,".repeat(100); // 300 UTF-16 units, 600 UTF-8 bytes, quoted (a comma)
  for (let i = 0; i < 20_000; i++)
    rows.push([i % 3 === 0 ? "R,0" : long, i, i % 7 === 0 ? null : i / 7, i % 11 === 0 ? NaN : -i * 1e-9, i % 13 === 0 ? -Infinity : 1e21 + i]);
  const columns = ["round", "i", "x", "y z", "w"];
  const table: StreamedTable = { name: "t.csv", columns, rowCount: rows.length, row: (i) => rows[i].slice() };
  const chunks = [...csvByteChunks(table)];
  assert.ok(chunks.length >= 2, `several chunks: ${chunks.length}`);
  assert.ok(
    chunks.every((c) => c[c.length - 1] === 0x0a),
    "every chunk ends with a whole line",
  );
  const reference = Papa.unparse({ fields: columns, data: rows.map((r) => r.map(formatCell)) }, { newline: "\n", quotes: false, escapeFormulae: false }) + "\n";
  assert.equal(Buffer.concat(chunks).toString("utf8"), reference);
  assert.equal(csvText(table), reference);
  assert.deepEqual(tableRows(table).slice(0, 2), rows.slice(0, 2));
});

test("csvByteChunks names the table and row of a short row in a streamed table", () => {
  const table: StreamedTable = { name: "u.csv", columns: ["a", "b"], rowCount: 3, row: (i) => (i === 2 ? [1] : [1, 2]) };
  assert.throws(() => [...csvByteChunks(table)], { message: "invalid rows of u.csv: data row 3 has 1 cells, the header 2" });
});
