import { test } from "node:test";
import assert from "node:assert/strict";
import { capRows, MAX_TABLE_ROWS, rowCapNote } from "../../lib/display/table-row-cap";
import { showTable } from "../../lib/display/show-table";
import { fakeDisplay } from "./fake-display";

test("capRows: the first maxRows rows and the total; the input array is not changed", () => {
  const rows = [1, 2, 3, 4, 5];
  assert.deepEqual(capRows(rows, 2), { shown: [1, 2], total: 5 });
  assert.deepEqual(capRows(rows, 5), { shown: [1, 2, 3, 4, 5], total: 5 });
  assert.deepEqual(capRows(rows, Infinity), { shown: [1, 2, 3, 4, 5], total: 5 });
  assert.deepEqual(capRows([], 1), { shown: [], total: 0 });
  assert.deepEqual(rows, [1, 2, 3, 4, 5]);
});

test("capRows: a cap that is not a positive integer (or Infinity) is refused by name", () => {
  for (const bad of [0, -1, 2.5, NaN])
    assert.throws(() => capRows([1], bad), { message: `invalid maxRows: ${bad} (a positive integer, or Infinity for all rows)` });
});

test("rowCapNote: says how many of how many, with thousands separators; nothing when all rows are shown", () => {
  assert.equal(rowCapNote(200, 12345), "First 200 of 12,345 rows shown.");
  assert.equal(rowCapNote(3, 3), "");
  assert.equal(rowCapNote(0, 0), "");
});

/** n rows { i, v } with v = i / 4. */
const rowsOf = (n: number) => Array.from({ length: n }, (_, i) => ({ i, v: i / 4 }));

test("showTable prints at most MAX_TABLE_ROWS rows and says so in the caption, before the precision sentence", () => {
  const d = fakeDisplay();
  showTable(rowsOf(MAX_TABLE_ROWS + 50), "Issues.", { display: d, precision: { v: 2 } });
  const html = d.calls[0][1] as string;
  assert.equal((html.match(/<tr>/g) ?? []).length, MAX_TABLE_ROWS + 1, "header + the first MAX_TABLE_ROWS rows");
  assert.match(html, /<td style="text-align: right">199<\/td>/);
  assert.doesNotMatch(html, /<td style="text-align: right">200<\/td>/, "row 201 is not printed");
  assert.equal(d.calls[1][1], "Issues.\n\n*First 200 of 250 rows shown. Rounded to v: 2 decimals.*");
});

test("showTable at or under the cap: table and caption exactly as without a cap", () => {
  const d = fakeDisplay();
  showTable(rowsOf(3), "Small.", { display: d, maxRows: 3 });
  assert.equal((d.calls[0][1] as string).split("\n").length, 3 + 5, "<table>, thead, <tbody>, 3 rows, </tbody>, </table>");
  assert.equal(d.calls[1][1], "Small.");
});

test("showTable maxRows: a smaller cap; Infinity prints every row; a column only a hidden row has keeps its header", () => {
  const d = fakeDisplay();
  showTable([{ a: 1 }, { a: 2 }, { a: 3, late: "x" }], "", { display: d, maxRows: 2 });
  assert.match(d.calls[0][1] as string, /<th>a<\/th><th>late<\/th>/);
  assert.equal(((d.calls[0][1] as string).match(/<tr>/g) ?? []).length, 3);
  assert.equal(d.calls[1][1], "\n\n*First 2 of 3 rows shown.*");
  const all = fakeDisplay();
  showTable(rowsOf(MAX_TABLE_ROWS + 1), "All.", { display: all, maxRows: Infinity });
  assert.equal(((all.calls[0][1] as string).match(/<tr>/g) ?? []).length, MAX_TABLE_ROWS + 2);
  assert.equal(all.calls[1][1], "All.");
  assert.throws(() => showTable(rowsOf(1), "x", { display: fakeDisplay(), maxRows: 0 }), /^Error: invalid maxRows: 0/);
});

test("listText: all items up to the cap, then the first ones and how many of how many; none when empty", async () => {
  const { listText } = await import("../../lib/display/table-row-cap");
  assert.equal(listText([]), "none");
  assert.equal(listText([3, 17, 40]), "3, 17, 40");
  assert.equal(listText([3, 17, 40], 3), "3, 17, 40", "exactly the cap: no note");
  assert.equal(listText([3, 17, 40], 2), "3, 17, ... (first 2 of 3)");
  const many = Array.from({ length: 5012 }, (_, i) => i * 2 + 1);
  const text = listText(many);
  assert.ok(text.startsWith("1, 3, 5, "));
  assert.ok(text.endsWith("197, 199, ... (first 100 of 5,012)"), text.slice(-60));
  assert.throws(() => listText([1], 0), /^Error: invalid maxItems: 0 \(a positive integer, or Infinity for all items\)$/);
});
