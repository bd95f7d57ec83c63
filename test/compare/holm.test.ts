/**
 * Holm's adjustment against the definition by hand and against statsmodels' multipletests(method="holm")
 * (the committed expectations of tools/compare-reference/make_holm_expected.py).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import * as path from "node:path";

import { holmAdjusted } from "../../lib/compare/holm";

const EXPECTED = path.resolve(__dirname, "../fixtures/compare/holm-expected.json");

test("Holm by hand: sorted 0.005 < 0.01 < 0.03 < 0.04 times 4, 3, 2, 1, each at least the one before; nulls are no test", () => {
  // 4 x 0.005 = 0.02; 3 x 0.01 = 0.03; 2 x 0.03 = 0.06; 1 x 0.04 = 0.04 -> raised to 0.06.
  const adjusted = holmAdjusted([0.01, null, 0.04, 0.03, 0.005]);
  const expected = [0.03, null, 0.06, 0.06, 0.02];
  adjusted.forEach((v, i) => (expected[i] === null ? assert.equal(v, null) : assert.ok(Math.abs(v! - expected[i]!) < 1e-15, `${i}: ${v}`)));
  assert.deepEqual(holmAdjusted([0.6, 0.9]), [1, 1], "capped at 1");
  assert.deepEqual(holmAdjusted([]), []);
  assert.deepEqual(holmAdjusted([Number.NaN, 0.2]), [null, 0.2], "a non-finite p is not a test: m = 1");
});

test("Holm equals statsmodels' multipletests(method='holm') to 1e-15 on every committed case", () => {
  const { cases } = JSON.parse(readFileSync(EXPECTED, "utf8")) as { cases: { name: string; p: number[]; holm: number[] }[] };
  assert.ok(cases.length >= 6);
  for (const c of cases) {
    const ours = holmAdjusted(c.p);
    c.holm.forEach((h, i) => assert.ok(Math.abs(ours[i]! - h) <= 1e-15, `${c.name} [${i}]: ${ours[i]} vs statsmodels ${h}`));
  }
});
