import { test } from "node:test";
import assert from "node:assert/strict";
import { parsePythonDictRepr, ReprSyntaxError, roundToFloat16 } from "../../lib/local-logs/python-repr";

test("numbers as Python's repr prints them", () => {
  const r = parsePythonDictRepr(
    "{'a': 1, 'b': -2, 'c': 0.1, 'd': 1e-05, 'e': 1.5e+20, 'f': -3.25e-07, 'g': 100.0, 'h': nan, 'i': inf, 'j': -inf, 'k': -0.0, 'l': 12345678901234567890}",
  );
  assert.deepEqual(r.values, {
    a: 1,
    b: -2,
    c: 0.1,
    d: 1e-5,
    e: 1.5e20,
    f: -3.25e-7,
    g: 100,
    h: NaN,
    i: Infinity,
    j: -Infinity,
    k: -0,
    l: 12345678901234567890,
  });
  assert.ok(Object.is(r.values.k, -0), "sign of zero kept");
  assert.deepEqual(r.skipped, []);
});

test("numpy 2 scalars: float64 as is, float32 and float16 rounded like numpy, ints", () => {
  const r = parsePythonDictRepr(
    "{'a': np.float64(0.1), 'b': np.float32(0.1), 'c': np.int64(3), 'd': np.float64(nan), 'e': np.float64(-inf), 'f': np.float16(0.1), 'g': numpy.int32(-7), 'h': np.float32(1e-05)}",
  );
  assert.deepEqual(r.values, {
    a: 0.1,
    b: 0.10000000149011612,
    c: 3,
    d: NaN,
    e: -Infinity,
    f: 0.0999755859375,
    g: -7,
    h: 0.000009999999747378752,
  });
});

test("non-numeric values are skipped and listed; the dict still parses", () => {
  const r = parsePythonDictRepr(
    "{'t': True, 'f': False, 'n': None, 's': 'text, with } and \\' quote', 'l': [1, 2, (3, 4)], 'd': {'x': 1}, 'nb': np.True_, " +
      "'ts': tensor(0.5, device='cuda:0', grad_fn=<MeanBackward0>), 'o': <object at 0x7f>, 'b': b'\\x00', 'ok': 2}",
  );
  assert.deepEqual(r.values, { ok: 2 });
  assert.deepEqual(r.skipped, ["t", "f", "n", "s", "l", "d", "nb", "ts", "o", "b"]);
});

test("keys: double quotes when the key holds a single quote, escapes decoded", () => {
  const r = parsePythonDictRepr(`{"it's": 1, 'a\\\\b': 2, 'tab\\there': 3, 'caf\\xe9': 4, 'snow\\u2603': 5}`);
  assert.deepEqual(Object.keys(r.values), ["it's", "a\\b", "tab\there", "café", "snow☃"]);
});

test("empty dict, trailing comma, start offset and end offset", () => {
  assert.deepEqual(parsePythonDictRepr("{}"), { values: {}, skipped: [], end: 2 });
  const text = "step 3: {'a': 1,} tail";
  const r = parsePythonDictRepr(text, 8);
  assert.deepEqual(r.values, { a: 1 });
  assert.equal(text.slice(r.end), " tail");
});

test("malformed text throws ReprSyntaxError with the column", () => {
  const cases: [string, string][] = [
    ["{'a': 1", "unexpected end of text (dict not closed) at column 8"],
    ["{'a': 1, 'b': ", "unexpected end of text (value missing) at column 15"],
    ["{'a': 1,", "unexpected end of text (dict not closed) at column 9"],
    ["{'a' 1}", "expected ':' after key \"a\" at column 6"],
    ["{a: 1}", "expected a quoted key at column 2"],
    ["{'a': 1 'b': 2}", "expected ',' or '}' but found \"'\" at column 9"],
    ["{'a: 1}", "unterminated string at column 8"],
    ["{'a': [1, 2}", 'unbalanced "}" at column 12'],
    ["{'a': 1x}", 'bad number "1x" at column 8'],
    ["{'a': np.float64(1}", "expected ')' to close np.float64( at column 19"],
    ["[1]", "expected '{' at column 1"],
  ];
  for (const [text, message] of cases) {
    assert.throws(
      () => parsePythonDictRepr(text),
      (e: unknown) => e instanceof ReprSyntaxError && e.message === message,
      text,
    );
  }
});

test("float16 rounding matches IEEE half precision (values checked with Python struct 'e')", () => {
  const cases: [number, number][] = [
    [0.1, 0.0999755859375],
    [1 / 3, 0.333251953125],
    [65519, 65504],
    [65520, Infinity],
    [6e-8, 5.960464477539063e-8],
    [2.98e-8, 0],
    [1 + 2 ** -11, 1], // tie to even
    [1 + 3 * 2 ** -11, 1.001953125], // tie to even (up)
    [100.06, 100.0625],
    [-3e-5, -2.9981136322021484e-5],
  ];
  for (const [x, want] of cases) assert.equal(roundToFloat16(x), want, String(x));
});
