import { test } from "node:test";
import assert from "node:assert/strict";

import { ValuesArena } from "../../lib/values/compact-values";
import { ValuesBuilder } from "../../lib/values/values-builder";
import { anyHasKey, BLOCK, forEachBlock, keyColumn, keyColumns, withScanIndex } from "../../lib/values/key-column";

/** The same records twice: plain objects, and compact views of the same pairs in the same order. */
function bothKinds(rows: Record<string, number>[]): { plain: { values: Record<string, number> }[]; views: { values: Record<string, number> }[] } {
  const vb = new ValuesBuilder(new ValuesArena());
  const views = rows.map((row) => {
    vb.reset();
    for (const k of Object.keys(row)) vb.push(k, row[k]);
    return { values: vb.build() };
  });
  return { plain: rows.map((values) => ({ values })), views };
}

const ROWS: Record<string, number>[] = [
  { a: 1.5, b: 2 },
  { b: 3 },
  { a: Number.NaN },
  { a: Number.POSITIVE_INFINITY, z: 0 },
  { z: 1, a: -0 },
  { a: Number.NEGATIVE_INFINITY },
  {},
];

for (const kind of ["plain", "views"] as const) {
  test(`keyColumn (${kind}): absent is found 0 and NaN in values; NaN, ±Infinity and -0 read as logged with found 1`, () => {
    const records = bothKinds(ROWS)[kind];
    const col = keyColumn(records, "a");
    assert.deepEqual([...col.found], [1, 0, 1, 1, 1, 1, 0]);
    const v = [...col.values];
    assert.equal(v[0], 1.5);
    assert.ok(Number.isNaN(v[1]), "absent: NaN in values");
    assert.ok(Number.isNaN(v[2]));
    assert.equal(v[3], Number.POSITIVE_INFINITY);
    assert.ok(Object.is(v[4], -0), "-0 stays -0");
    assert.equal(v[5], Number.NEGATIVE_INFINITY);
    assert.ok(Number.isNaN(v[6]));
  });

  test(`keyColumn (${kind}): a missing key is absent, never NaN or 0 with found set; a key no record has gives all 0`, () => {
    const records = bothKinds(ROWS)[kind];
    const col = keyColumn(records, "b");
    assert.deepEqual([...col.found], [1, 1, 0, 0, 0, 0, 0]);
    assert.deepEqual([...col.values].slice(0, 2), [2, 3]);
    const none = keyColumn(records, "nope");
    assert.deepEqual([...none.found], [0, 0, 0, 0, 0, 0, 0]);
    assert.ok([...none.values].every(Number.isNaN));
    assert.equal(anyHasKey(records, "nope"), false);
    assert.equal(anyHasKey(records, "z"), true);
    assert.equal(anyHasKey(records, ["nope", "z"]), true, "an older name counts");
  });

  test(`keyColumn (${kind}): with older names the first present key wins, found says which; a range reads at 0..to-from`, () => {
    const records = bothKinds(ROWS)[kind];
    const col = keyColumn(records, ["z", "a"]);
    // z present in records 3 and 4; a in 0, 2, 5.
    assert.deepEqual([...col.found], [2, 0, 2, 1, 1, 2, 0]);
    assert.deepEqual([col.values[3], col.values[4], col.values[0]], [0, 1, 1.5]);
    const part = keyColumn(records, "a", 3, 5);
    assert.equal(part.values.length, 2);
    assert.deepEqual([...part.found], [1, 1]);
    assert.equal(part.values[0], Number.POSITIVE_INFINITY);
  });

  test(`keyColumns (${kind}): several lists in one pass equal one keyColumn each; into is reused`, () => {
    const records = bothKinds(ROWS)[kind];
    const into = [keyColumn(records, "z"), keyColumn(records, "z")];
    const cols = keyColumns(records, ["a", ["b", "z"]], 0, records.length, into);
    assert.equal(cols[0], into[0], "reused");
    for (const [i, list] of (["a", ["b", "z"]] as const).entries()) {
      const one = keyColumn(records, list);
      assert.deepEqual([...cols[i].found], [...one.found]);
      assert.deepEqual([...cols[i].values].map(String), [...one.values].map(String));
    }
  });
}

test("forEachBlock: blocks of BLOCK records cover every record once, in order, over records with changing key sequences", () => {
  const rows = Array.from({ length: 2 * BLOCK + 5 }, (_, i): Record<string, number> => (i % 3 === 0 ? { a: i } : i % 3 === 1 ? { b: 1, a: -i } : { b: 2 }));
  for (const records of Object.values(bothKinds(rows))) {
    const seen: number[] = [];
    let blocks = 0;
    forEachBlock(records, ["a"], (from, to, [col]) => {
      blocks++;
      assert.ok(to - from <= BLOCK);
      for (let j = 0; j < to - from; j++) seen.push(col.found[j] === 0 ? Number.NaN : col.values[j]);
    });
    assert.equal(blocks, 3);
    assert.equal(seen.length, rows.length);
    for (let i = 0; i < rows.length; i++) {
      const want = rows[i].a;
      if (want === undefined) assert.ok(Number.isNaN(seen[i]), `record ${i}: absent`);
      else assert.ok(Object.is(seen[i], want), `record ${i}: ${seen[i]} vs ${want}`);
    }
  }
});

test("keyColumn: an empty key list is refused, naming the list", () => {
  assert.throws(() => keyColumn([{ values: { a: 1 } }], []), /invalid keys: 0 keys/);
});

/** A column as comparable text: found and the value's exact bits (NaN, -0 apart). */
const columnText = (c: { values: Float64Array; found: Uint8Array }): string =>
  [...c.found].map((f, i) => `${f}:${Object.is(c.values[i], -0) ? "-0" : String(c.values[i])}`).join(" ");

test("withScanIndex: the arrays it names read the same columns through their index, views and plain objects mixed, ranges and blocks too", () => {
  const rows = Array.from({ length: BLOCK + 7 }, (_, i) => ROWS[i % ROWS.length]);
  const { plain, views } = bothKinds(rows);
  const mixed = views.map((v, i) => (i % 5 === 0 ? plain[i] : v));
  const lists = ["a", ["z", "a"], "b", "nope"] as const;
  const outside = lists.map((l) => columnText(keyColumn(mixed, l)));
  const part = columnText(keyColumn(mixed, "a", 3, BLOCK + 2));
  withScanIndex([mixed], () => {
    for (let round = 0; round < 2; round++) {
      assert.deepEqual(
        lists.map((l) => columnText(keyColumn(mixed, l))),
        outside,
      );
      assert.equal(columnText(keyColumn(mixed, "a", 3, BLOCK + 2)), part);
      const seen: string[] = [];
      forEachBlock(mixed, ["a"], (from, to, [col]) => {
        for (let j = 0; j < to - from; j++) seen.push(`${col.found[j]}`);
      });
      assert.equal(seen.join(" "), outside[0].replace(/:\S*/g, ""));
    }
  });
});

test("withScanIndex: no index outlives its scope, an array that grows inside it is indexed again, and arrays it does not name are read as they are now", () => {
  const { views } = bothKinds(ROWS);
  const named = views.slice();
  const other = views.slice();
  withScanIndex([named], () => {
    assert.equal(keyColumn(named, "a").values[0], 1.5);
    named.push(bothKinds([{ a: 7 }]).views[0]);
    assert.equal(keyColumn(named, "a").values[ROWS.length], 7, "grown: indexed again");
    assert.equal(keyColumn(other, "a").values[0], 1.5);
    // Not named: changed in place inside the scope, it is read as it is now.
    other[0] = bothKinds([{ a: 9 }]).views[0];
    assert.equal(keyColumn(other, "a").values[0], 9);
  });
  // Changed in place after the scope closed: read as it is now, not through the scope's index.
  named[0] = bothKinds([{ a: 8 }]).views[0];
  assert.equal(keyColumn(named, "a").values[0], 8);
  // And a later scope naming it indexes it afresh.
  assert.equal(
    withScanIndex([named], () => keyColumn(named, "a").values[0]),
    8,
  );
});
