import { test } from "node:test";
import assert from "node:assert/strict";

import { formatCell, parseNumberCell } from "../../lib/export/export-cell";

test("formatCell writes missing as empty, non-finite as NaN/Inf/-Inf, numbers as String(x)", () => {
  const cases: [number | string | null | undefined, string][] = [
    [undefined, ""],
    [null, ""],
    [NaN, "NaN"],
    [Infinity, "Inf"],
    [-Infinity, "-Inf"],
    [0, "0"],
    [1e-7, "1e-7"],
    [0.000001, "0.000001"],
    [1 / 3, "0.3333333333333333"],
    [-2.5, "-2.5"],
    [1e21, "1e+21"],
    [5e-324, "5e-324"],
    [1.7976931348623157e308, "1.7976931348623157e+308"],
    [13538.13, "13538.13"],
    ["R0", "R0"],
    ["", ""],
  ];
  for (const [v, want] of cases) assert.equal(formatCell(v), want, `formatCell(${String(v)})`);
});

test("parseNumberCell reads every formatCell number back to the same double", () => {
  for (const v of [0, 1e-7, 1 / 3, -2.5, 1e21, 5e-324, 1.7976931348623157e308, 0.1 + 0.2, -1.0244548320770264e-8]) {
    assert.ok(Object.is(parseNumberCell(formatCell(v)), v), `round trip of ${v}`);
  }
  assert.ok(Number.isNaN(parseNumberCell("NaN")));
  assert.equal(parseNumberCell("Inf"), Infinity);
  assert.equal(parseNumberCell("-Inf"), -Infinity);
  assert.equal(parseNumberCell(""), null, "empty is missing, not 0");
});

test("parseNumberCell refuses texts that are not plain decimal numbers", () => {
  for (const bad of ["0x10", " 1", "1 ", "1,5", "inf", "Infinity", "abc", "-", "1e", "+1"]) {
    assert.throws(() => parseNumberCell(bad), { message: `invalid number cell: ${JSON.stringify(bad)}` }, bad);
  }
});
