import assert from "node:assert/strict";
import { test } from "node:test";

import {
  HistoryRowParseError,
  parseExtendedJson,
  parseHistoryPage,
  parseHistoryRow,
  quoteNonFiniteTokens,
  toNumericRow,
} from "../../lib/wandb/parse-history-row";

test("plain JSON rows take the fast path unchanged", () => {
  assert.deepEqual(parseHistoryRow('{"_step": 3, "loss": 0.25, "_runtime": 1.5}'), { _step: 3, loss: 0.25, _runtime: 1.5 });
});

test("bare NaN, Infinity, -Infinity tokens become numbers", () => {
  const row = parseHistoryRow('{"_step": 1, "a": NaN, "b": Infinity, "c": -Infinity, "d": [NaN]}');
  assert.ok(Number.isNaN(row.a), "NaN");
  assert.equal(row.b, Infinity);
  assert.equal(row.c, -Infinity);
  assert.equal("d" in row, false, "arrays are not numeric history");
});

test("token-like text inside strings is left alone", () => {
  const text = '{"_step": 2, "NaN": 1, "note": "x NaN Infinity -Infinity \\" NaN", "v": NaN}';
  assert.equal(quoteNonFiniteTokens(text), '{"_step": 2, "NaN": 1, "note": "x NaN Infinity -Infinity \\" NaN", "v": "NaN"}');
  const dropped = new Map<string, number>();
  const row = parseHistoryRow(text, dropped);
  assert.equal(row.NaN, 1, "a key named NaN keeps its value");
  assert.ok(Number.isNaN(row.v));
  assert.deepEqual([...dropped], [["note", 1]]);
});

test("string markers and null are non-finite values", () => {
  const row = parseHistoryRow('{"_step": 4, "a": "NaN", "b": "Infinity", "c": "-Infinity", "d": null}');
  assert.ok(Number.isNaN(row.a));
  assert.equal(row.b, Infinity);
  assert.equal(row.c, -Infinity);
  assert.ok(Number.isNaN(row.d), "null is how the JS SDK writes NaN");
});

test("float _step 12.0 reads as the integer 12", () => {
  const row = parseHistoryRow('{"_step": 12.0, "x": 1.0}');
  assert.equal(row._step, 12);
  assert.ok(Number.isInteger(row._step));
});

test("media, strings, booleans and nested objects are dropped and counted", () => {
  const dropped = new Map<string, number>();
  const rows = [
    '{"_step": 0, "img": {"_type": "image-file", "path": "a.png"}, "s": "hi", "ok": true, "nest": {"a": 1}, "x": 1}',
    '{"_step": 1, "img": {"_type": "histogram", "values": [1, 2]}, "x": 2}',
  ].map((r) => parseHistoryRow(r, dropped));
  assert.deepEqual(rows, [
    { _step: 0, x: 1 },
    { _step: 1, x: 2 },
  ]);
  assert.deepEqual(Object.fromEntries(dropped), { img: 2, s: 1, ok: 1, nest: 1 });
});

test("already parsed row objects are accepted", () => {
  assert.deepEqual(parseHistoryRow({ _step: 5, a: null, b: 2 }), { _step: 5, a: NaN, b: 2 });
});

test("an all-number row is returned as the same object (no copy)", () => {
  const raw = { _step: 1, a: 2 };
  assert.equal(toNumericRow(raw), raw);
});

test("broken rows throw", () => {
  for (const bad of ['{"_step": 1, "a": Nan}', '{"_step": 1', "[1, 2]", "null", "7", '{"a": NaNa}']) {
    assert.throws(() => parseHistoryRow(bad), SyntaxError, bad);
  }
});

test("parseExtendedJson returns bare tokens as their marker strings", () => {
  assert.deepEqual(parseExtendedJson('[NaN, -Infinity, "x", Infinity]'), ["NaN", "-Infinity", "x", "Infinity"]);
});

test("a page parses row by row, counting dropped keys", () => {
  const page = ['{"_step": 0, "a": NaN}', '{"_step": 1, "a": 1.5, "b": -Infinity}', '{"_step": 2, "m": {"_type": "histogram", "bins": [NaN]}}'];
  const dropped = new Map<string, number>();
  const rows = parseHistoryPage(page, dropped);
  assert.deepEqual(rows, [{ _step: 0, a: NaN }, { _step: 1, a: 1.5, b: -Infinity }, { _step: 2 }]);
  assert.deepEqual(
    rows,
    page.map((r) => parseHistoryRow(r)),
  );
  assert.deepEqual(Object.fromEntries(dropped), { m: 1 });
});

test("a string holding ': NaN,' is never rewritten (the string-aware path takes over)", () => {
  const page = ['{"_step": 0, "note": "x: NaN, y", "v": NaN}', '{"_step": 1, "v": 2}'];
  const rows = parseHistoryPage(page);
  assert.deepEqual(rows, [
    { _step: 0, v: NaN },
    { _step: 1, v: 2 },
  ]);
  assert.deepEqual(parseExtendedJson(page[0]), { _step: 0, note: "x: NaN, y", v: "NaN" });
});

test("a truncated row is named by its index", () => {
  const page = ['{"_step": 0, "a": {"b": 1}', '{"_step": 1}'];
  assert.throws(
    () => parseHistoryPage(page),
    (e: unknown) => e instanceof HistoryRowParseError && e.index === 0 && e.message.startsWith("row 0 is not a valid JSON object ("),
  );
});

test("mixed strings and objects, a single row, an empty page", () => {
  assert.deepEqual(parseHistoryPage(['{"_step": 0}', { _step: 1, a: null }]), [{ _step: 0 }, { _step: 1, a: NaN }]);
  assert.deepEqual(parseHistoryPage(['{"_step": 7, "x": Infinity}']), [{ _step: 7, x: Infinity }]);
  assert.deepEqual(parseHistoryPage([]), []);
});
