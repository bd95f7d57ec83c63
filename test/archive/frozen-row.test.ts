import assert from "node:assert/strict";
import { test } from "node:test";

import { FrozenRowError, frozenValue, parseFrozenRow, serializeFrozenRow } from "../../lib/values/frozen-row";

test("keys sorted, numbers as JSON.stringify prints them, non-finite as strings", () => {
  const line = serializeFrozenRow({ _step: 12, "train/loss": 0.1 + 0.2, a: 1e21, _runtime: 3.5, n: NaN, p: Infinity, m: -Infinity, z: -0 });
  assert.equal(line, '{"_runtime":3.5,"_step":12,"a":1e+21,"m":"-Infinity","n":"NaN","p":"Infinity","train/loss":0.30000000000000004,"z":0}');
});

test("keys needing escapes are JSON-escaped", () => {
  assert.equal(serializeFrozenRow({ 'a"b': 1, "\u00e9": 2 }), '{"a\\"b":1,"\u00e9":2}');
});

test("frozenValue of each kind", () => {
  assert.deepEqual([1, -2.5, NaN, Infinity, -Infinity].map(frozenValue), ["1", "-2.5", '"NaN"', '"Infinity"', '"-Infinity"']);
});

test("round trip keeps NaN and infinities", () => {
  const row = parseFrozenRow(serializeFrozenRow({ _step: 0, a: NaN, b: -Infinity, c: 7 }));
  assert.ok(Number.isNaN(row.a));
  assert.equal(row.b, -Infinity);
  assert.equal(row.c, 7);
});

test("non-numeric values and broken lines are refused with the key", () => {
  assert.throws(
    () => parseFrozenRow('{"_step":1,"s":"hello"}'),
    (e: unknown) => e instanceof FrozenRowError && e.key === "s" && e.message === 'key "s" is not numeric: "hello"',
  );
  assert.throws(() => parseFrozenRow('{"_step":1,"n":null}'), /key "n" is not numeric: null/);
  assert.throws(() => parseFrozenRow('{"_step":1,"o":{"a":1}}'), /key "o" is not numeric/);
  assert.throws(() => parseFrozenRow('{"_step":1,"x":NaN}'), /^FrozenRowError: not valid JSON/, "bare NaN is not frozen format");
  assert.throws(() => parseFrozenRow("[1]"), /not a JSON object/);
});

test("the cached serializer writes the same bytes as serializeFrozenRow, for repeated and new key sets", async () => {
  const { frozenRowSerializer, serializeFrozenRow } = await import("../../lib/values/frozen-row");
  const serialize = frozenRowSerializer(2); // tiny cache: exercises eviction too
  const rows: Record<string, number>[] = [
    { b: 1, a: 0.1, _step: 0 },
    { a: NaN, b: -Infinity, _step: 1 },
    { "train/x": 1e-7, "train/y": -0, _step: 2, c: Infinity },
    { b: 1e21, a: 123456789.123, _step: 3 },
    { z: 5, "\u00e9": 2, A: 3, _step: 4 },
    // Keys an object would reorder or swallow: array indexes (listed first, numerically) and __proto__.
    { "10": 1, "9": 2, a: 3, _step: 5 },
    JSON.parse('{"__proto__": 7, "b": 1, "_step": 6}'),
  ];
  for (const row of rows.concat(rows)) assert.equal(serialize(row), serializeFrozenRow(row));
  assert.equal(serialize(rows[1]), '{"_step":1,"a":"NaN","b":"-Infinity"}');
  assert.equal(serialize(rows[2]), '{"_step":2,"c":"Infinity","train/x":1e-7,"train/y":0}');
  assert.equal(serialize(rows[5]), '{"10":1,"9":2,"_step":5,"a":3}');
  assert.equal(serialize(rows[6]), '{"__proto__":7,"_step":6,"b":1}');
  const roomy = frozenRowSerializer();
  for (const row of rows.concat(rows)) assert.equal(roomy(row), serializeFrozenRow(row), "with the default trie size too");
});

test("frozenRowSerializer equals serializeFrozenRow on 3,000 seeded random rows (key orders, odd keys, odd numbers)", async () => {
  const { frozenRowSerializer, serializeFrozenRow } = await import("../../lib/values/frozen-row");
  let seed = 12345;
  const rand = () => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed / 2147483648;
  };
  const keyPool = ["_step", "a", "b", "train/x", "0", "7", "12", "__proto__", "é", "A", 'q"t', "rollout/len", "perf/t"];
  const valuePool = [0, -0, 1, -1.5, 0.1 + 0.2, 1e21, 1e-7, 123456789.123, 5e-324, Number.MAX_VALUE, NaN, Infinity, -Infinity];
  const serialize = frozenRowSerializer(50);
  for (let i = 0; i < 3000; i++) {
    const row: Record<string, number> = JSON.parse("{}");
    const n = Math.floor(rand() * keyPool.length);
    for (let j = 0; j < n; j++) {
      const key = keyPool[Math.floor(rand() * keyPool.length)];
      const value = rand() < 0.5 ? valuePool[Math.floor(rand() * valuePool.length)] : (rand() - 0.5) * 10 ** Math.floor(rand() * 40 - 20);
      Object.defineProperty(row, key, { value, enumerable: true, writable: true, configurable: true });
    }
    assert.equal(serialize(row), serializeFrozenRow(row), `row ${i}: ${Object.keys(row).join(",")}`);
  }
});
