import { test } from "node:test";
import assert from "node:assert/strict";
import { parseExtendedJson, toExtendedJson } from "../../tools/wandb-test-server/extended-json";

test("parses bare NaN / Infinity / -Infinity tokens", () => {
  assert.deepStrictEqual(parseExtendedJson('{"a": NaN, "b": Infinity, "c": -Infinity, "d": [NaN, 1]}'), {
    a: NaN,
    b: Infinity,
    c: -Infinity,
    d: [NaN, 1],
  });
});

test("leaves token-like text inside strings alone", () => {
  assert.deepStrictEqual(parseExtendedJson('{"s": "NaN Infinity -Infinity \\" NaN", "x": NaN}'), {
    s: 'NaN Infinity -Infinity " NaN',
    x: NaN,
  });
});

test("plain JSON and float steps parse as numbers", () => {
  assert.deepStrictEqual(parseExtendedJson('{"_step": 12.0, "v": null}'), { _step: 12, v: null });
});

test("invalid text still throws", () => {
  assert.throws(() => parseExtendedJson("{NaN"), SyntaxError);
  assert.throws(() => parseExtendedJson("{oops}"), SyntaxError);
});

test("serialises non-finite numbers as bare tokens, nested too, and skips undefined", () => {
  assert.equal(
    toExtendedJson({ a: 1, b: NaN, c: { d: -Infinity, e: [Infinity, undefined] }, u: undefined }),
    '{"a":1,"b":NaN,"c":{"d":-Infinity,"e":[Infinity,null]}}',
  );
  assert.equal(toExtendedJson({ _step: 1, loss: 0.5, s: "x" }), '{"_step":1,"loss":0.5,"s":"x"}');
});
