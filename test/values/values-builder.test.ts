import { test } from "node:test";
import assert from "node:assert/strict";
import { keysOf, ValuesArena } from "../../lib/values/compact-values";
import { ValuesBuilder } from "../../lib/values/values-builder";

function build(vb: ValuesBuilder, pairs: [string, number][], drop?: string[]): Record<string, number> {
  vb.reset();
  for (const [k, v] of pairs) vb.push(k, v);
  if (drop) vb.remove(new Set(drop));
  return vb.build();
}

test("objects hold exactly the pushed pairs, whatever sequence came before", () => {
  const vb = new ValuesBuilder();
  const a = build(vb, [
    ["x", 1],
    ["y", NaN],
  ]);
  const b = build(vb, [
    ["x", 2],
    ["y", -0],
  ]); // same keys: template reused
  const c = build(vb, [
    ["y", 3],
    ["x", 4],
    ["z", Infinity],
  ]); // other order and length
  const d = build(vb, []);
  const e = build(
    vb,
    [
      ["x", 0.25],
      ["y", 5],
      ["z", 6],
    ],
    ["y"],
  );
  assert.deepEqual(a, { x: 1, y: NaN });
  assert.deepEqual(b, { x: 2, y: -0 });
  assert.ok(Object.is(b.y, -0));
  assert.deepEqual(c, { y: 3, x: 4, z: Infinity });
  assert.deepEqual(Object.keys(c), ["y", "x", "z"]);
  assert.deepEqual(d, {});
  assert.deepEqual(e, { x: 0.25, z: 6 });
  assert.equal(Object.getPrototypeOf(a), Object.prototype);
  assert.notEqual(a, b, "a new object each time");
  a.x = 99;
  assert.equal(
    build(vb, [
      ["x", 7],
      ["y", 8],
    ]).x,
    7,
    "templates are not shared with results",
  );
});

test("key sequences cycling through more kinds than the recent list holds: each object its own pairs, one view class per sequence", () => {
  const vb = new ValuesBuilder(new ValuesArena());
  // 11 sequences (more than the 8 tried first), met in turn and then in reverse, twice.
  const seqs = Array.from({ length: 11 }, (_, s) => Array.from({ length: 1 + (s % 4) }, (_, j) => `k${(s + j) % 5}_${s}`));
  const order = [...seqs.keys(), ...[...seqs.keys()].reverse(), ...seqs.keys()];
  const built = order.map((s, q) => {
    vb.reset();
    seqs[s].forEach((k, j) => vb.push(k, q * 10 + j));
    return { s, q, values: vb.build() };
  });
  for (const { s, q, values } of built) {
    assert.deepEqual(keysOf(values), seqs[s]);
    assert.deepEqual(
      seqs[s].map((k) => values[k]),
      seqs[s].map((_, j) => q * 10 + j),
    );
  }
  const protoOf = (s: number) => new Set(built.filter((b) => b.s === s).map((b) => Object.getPrototypeOf(b.values)));
  for (let s = 0; s < seqs.length; s++) assert.equal(protoOf(s).size, 1, `sequence ${s}: one view class`);
  assert.equal(new Set(seqs.map((_, s) => [...protoOf(s)][0])).size, seqs.length, "a class per sequence");
});
