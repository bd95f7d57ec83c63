import { test } from "node:test";
import assert from "node:assert/strict";

import { csvText } from "../../lib/export/csv-text";
import { packedCsvChunks } from "../../lib/export/packed-csv";
import { type PackedTable, unpackTable } from "../../lib/export/packed-table";

/** The formatter's chunks joined (each copied: they share one buffer). */
function joined(p: PackedTable): string {
  const parts: Buffer[] = [];
  for (const c of packedCsvChunks(p)) parts.push(Buffer.from(c));
  return Buffer.concat(parts).toString("utf8");
}

/** A packed table of 3 rows: a text and a number axis column, then keys a, b, c from two key lists in one shared store. */
function table(texts: string[], columns = ["round", "rollout", "a", "b", "c"]): PackedTable {
  const store = new Float64Array(new SharedArrayBuffer(8 * 6));
  store.set([1.5, NaN, -Infinity, 1e-7, -0, 12345678901234568]);
  return {
    name: "t.csv",
    columns,
    rowCount: 3,
    lead: [
      { kind: "text", at: Int32Array.of(0, 1, 1) },
      { kind: "number", values: Float64Array.of(1, 2, Infinity) },
    ],
    texts,
    stores: [store.buffer],
    store: Int32Array.of(0, 0, 0),
    at: Int32Array.of(0, 3, 4),
    shape: Int32Array.of(0, 1, 1),
    shapes: [
      ["a", "b", "c"],
      ["c", "a"],
    ],
  };
}

test("packedCsvChunks writes the bytes csvByteChunks writes of the unpacked table: quoting, non-finite values, absent keys, UTF-8", () => {
  for (const texts of [
    ["R0", "R1"],
    ['R "0"', "R,1"],
    ["Rö", " R1"],
  ]) {
    const p = table(texts);
    assert.equal(joined(p), csvText(unpackTable(p)), texts.join(" "));
  }
  assert.equal(joined(table(["R0", "R1"])), "round,rollout,a,b,c\nR0,1,1.5,NaN,-Inf\nR1,2,0,,1e-7\nR1,Inf,12345678901234568,,0\n");
});

test("packedCsvChunks: a header of its own characters, and a repeated column refused", () => {
  const p = table(["R0", "R1"], ["rö", "rollout", "a", "b", "c"]);
  assert.equal(joined(p), csvText(unpackTable(p)));
  assert.throws(() => joined(table(["R0", "R1"], ["round", "a", "a", "b", "c"])), { message: "invalid columns of t.csv: a column name repeats" });
  // A key without its column would shift the values of every later row: refused, not printed.
  assert.throws(() => joined(table(["R0", "R1"], ["round", "rollout", "a", "b"])), {
    message: 'invalid columns of t.csv: no column for key "c" of its records',
  });
});

/** A packed table of `rows` rows of random values (finite over many magnitudes, some non-finite) in three key lists, in one shared store. */
function randomTable(rows: number): PackedTable {
  // Integers below 2^53 print by the printer's own digits, the others by Ryu: both sides of that line.
  const specials = [0, -0, 5e-324, 1e-7, 1e-6, 0.1 + 0.2, 123456789012345680000, 1e21, -1e21, 1.7976931348623157e308, 2 ** 53, 3, -7.25];
  specials.push(2 ** 53 - 1, -(2 ** 53 - 1), 2 ** 53 + 2, -(2 ** 53), 2 ** 52 + 0.5, -3, 1e20, 10, -1000, 4096);
  const keys = ["a", "b", "c", "d"];
  const store = new Float64Array(new SharedArrayBuffer(8 * rows * keys.length));
  let seed = 7;
  const next = () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed / 2 ** 31;
  };
  for (let i = 0; i < store.length; i++) {
    const r = next();
    // Mostly finite (fast path), some rows with NaN or ±Infinity in any position (cell-by-cell path).
    const magnitude = 10 ** Math.floor(next() * 40 - 20);
    const value = r < 0.3 ? specials[i % specials.length] : r < 0.97 ? (next() - 0.5) * magnitude : [NaN, Infinity, -Infinity][i % 3];
    // A third of the finite values rounded to integers (counts, steps, token numbers), of every length.
    store[i] = r >= 0.3 && r < 0.97 && next() < 0.33 ? Math.round(value) : value;
  }
  return {
    name: "t.csv",
    columns: ["rollout", ...keys],
    rowCount: rows,
    lead: [{ kind: "number", values: Float64Array.from({ length: rows }, (_, i) => i) }],
    texts: [],
    stores: [store.buffer],
    store: new Int32Array(rows),
    at: Int32Array.from({ length: rows }, (_, i) => i * keys.length),
    // Full rows, rows in another key order, rows missing keys (empty cells).
    shape: Int32Array.from({ length: rows }, (_, i) => i % 3),
    shapes: [keys, ["d", "b", "a", "c"], ["c", "a"]],
  };
}

test("packedCsvChunks: rows of finite values over many magnitudes, non-finite values and missing keys match csvByteChunks", () => {
  const p = randomTable(400);
  const text = joined(p);
  assert.equal(text, csvText(unpackTable(p)));
  const lines = text.split("\n");
  assert.ok(lines.some((l) => l.includes("NaN")) && lines.some((l) => l.includes("-Inf")) && lines.some((l) => /,,/.test(l)), "rows of each kind");
});

test("packedCsvChunks: a table of several printer batches (4,096 rows each) and its last partial batch match csvByteChunks, a chunk per batch", () => {
  const p = randomTable(9000);
  assert.equal(joined(p), csvText(unpackTable(p)));
  // The header, two whole batches and the last 808 rows.
  assert.equal([...packedCsvChunks(p)].length, 4);
  const empty = { ...randomTable(0), rowCount: 0 };
  assert.equal(joined(empty), "rollout,a,b,c,d\n");
});
