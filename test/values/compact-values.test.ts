import { test } from "node:test";
import assert from "node:assert/strict";

import { isView, keysOf, ValuesArena, viewClass } from "../../lib/values/compact-values";
import { ValuesBuilder } from "../../lib/values/values-builder";

function build(vb: ValuesBuilder, pairs: [string, number][]): Record<string, number> {
  vb.reset();
  for (const [k, v] of pairs) vb.push(k, v);
  return vb.build();
}

test("a view reads like the plain object of the same pairs: [key], in, for...in order, keysOf; NaN, -0 and Infinity kept", () => {
  const vb = new ValuesBuilder(new ValuesArena());
  const v = build(vb, [
    ["train/loss", 0.5],
    ["a", NaN],
    ["z", -0],
    ["_step", 7],
    ["inf", -Infinity],
  ]);
  assert.ok(isView(v));
  assert.equal(v["train/loss"], 0.5);
  assert.ok(Number.isNaN(v.a));
  assert.ok(Object.is(v.z, -0));
  assert.equal(v.inf, -Infinity);
  assert.equal(v._step, 7);
  assert.equal("a" in v, true);
  assert.equal("b" in v, false, "absent stays absent");
  assert.equal(v.b, undefined);
  const seen: string[] = [];
  for (const k in v) seen.push(k);
  assert.deepEqual(seen, ["train/loss", "a", "z", "_step", "inf"]);
  assert.deepEqual(keysOf(v), seen);
  assert.deepEqual(keysOf({ b: 1, a: 2 }), ["b", "a"]);
  assert.equal(isView({ a: 1 }), false);
});

test("views are read-only and have no own keys (why lib/ lists keys with keysOf, never Object.keys or spread)", () => {
  const v = build(new ValuesBuilder(new ValuesArena()), [["x", 1]]);
  assert.throws(() => {
    (v as Record<string, number>).x = 2;
  }, TypeError);
  assert.equal(v.x, 1);
  assert.deepEqual(Object.keys(v), []);
  assert.deepEqual(Object.keys({ ...v }), [], "a spread copies no key");
  assert.equal(JSON.stringify(v), "{}");
});

test("compact and plain builders give the same pairs for any sequence of key orders, and views never share numbers", () => {
  const arena = new ValuesArena();
  const compact = new ValuesBuilder(arena);
  const plain = new ValuesBuilder();
  const sequences: [string, number][][] = [
    [
      ["x", 1],
      ["y", 2],
    ],
    [
      ["x", 3],
      ["y", 4],
    ],
    [
      ["y", 5],
      ["x", 6],
      ["z", 7],
    ],
    [],
    [["x", 8]],
  ];
  const views = sequences.map((s) => build(compact, s));
  sequences.forEach((s, i) => {
    const p = build(plain, s);
    assert.deepEqual(keysOf(views[i]), Object.keys(p), `sequence ${i}: keys`);
    for (const k of Object.keys(p)) assert.equal(views[i][k], p[k], `sequence ${i}: ${k}`);
  });
  assert.equal(views[0].x, 1, "a later view does not overwrite an earlier one's numbers");
  assert.equal(arena.size, 8);
});

test("the arena starts a new chunk when a record does not fit, and takes records larger than a chunk", () => {
  const arena = new ValuesArena();
  const View = viewClass(["a"]);
  const first = arena.store(View, [1], 1);
  const keys = Array.from({ length: 300_000 }, (_, i) => `k${i}`);
  const Big = viewClass(keys);
  const big = arena.store(
    Big,
    keys.map((_, i) => i),
    keys.length,
  );
  const after = arena.store(View, [2], 1);
  assert.equal(first.a, 1);
  assert.equal(big.k299999, 299999);
  assert.equal(big.k0, 0);
  assert.equal(after.a, 2);
  assert.equal(arena.size, 300_002);
});

test("past the builder's bound on key sequences, a compact builder makes plain objects (same pairs), not a view class each", () => {
  const vb = new ValuesBuilder(new ValuesArena());
  let views = 0;
  let plain: Record<string, number> | null = null;
  for (let i = 0; i < 100_010; i++) {
    const v = build(vb, [[`k${i}`, i]]);
    if (isView(v)) views++;
    else plain = v;
  }
  assert.equal(views, 100_000);
  assert.deepEqual(plain, { k100009: 100009 });
});
