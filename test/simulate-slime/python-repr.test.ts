import assert from "node:assert/strict";
import { test } from "node:test";

import { pyDictRepr, pyFloatRepr, pyValueRepr } from "../../tools/simulate-slime/python-repr";

test("pyFloatRepr writes CPython's repr (checked against python3 by hand)", () => {
  const cases: [number, string][] = [
    [0, "0.0"],
    [-0, "-0.0"],
    [1, "1.0"],
    [-2, "-2.0"],
    [0.5, "0.5"],
    [1e-6, "1e-06"],
    [1e-5, "1e-05"],
    [1.5e-5, "1.5e-05"],
    [0.0001, "0.0001"],
    [0.00012, "0.00012"],
    [123.456, "123.456"],
    [287.34375, "287.34375"],
    [1e15, "1000000000000000.0"],
    [1e16, "1e+16"],
    [123456789012345680000, "1.2345678901234568e+20"],
    [1e22, "1e+22"],
    [2 ** -33, "1.1641532182693481e-10"],
    [0.1 + 0.2, "0.30000000000000004"],
    [5e-324, "5e-324"],
    [NaN, "nan"],
    [Infinity, "inf"],
    [-Infinity, "-inf"],
  ];
  for (const [x, want] of cases) assert.equal(pyFloatRepr(x), want, `repr of ${x}`);
});

test("pyValueRepr: int, float and numpy 2 scalar", () => {
  assert.equal(pyValueRepr(32, "int"), "32");
  assert.equal(pyValueRepr(32, "float"), "32.0");
  assert.equal(pyValueRepr(0.171875, "np.float64"), "np.float64(0.171875)");
  assert.equal(pyValueRepr(NaN, "np.float64"), "np.float64(nan)");
  assert.throws(() => pyValueRepr(1.5, "int"), /invalid int value: 1.5/);
});

test("pyDictRepr prints a Python dict with single-quoted keys in insertion order", () => {
  const text = pyDictRepr([
    { key: "rollout/response_len/mean", value: 2773.71484375, kind: "float" },
    { key: "rollout/zero_std/count_0", value: 12, kind: "int" },
    { key: "rollout/kl", value: NaN, kind: "float" },
    { key: "train/lr-pg_0", value: 1e-6, kind: "float" },
  ]);
  assert.equal(text, "{'rollout/response_len/mean': 2773.71484375, 'rollout/zero_std/count_0': 12, 'rollout/kl': nan, 'train/lr-pg_0': 1e-06}");
});
