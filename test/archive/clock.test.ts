import assert from "node:assert/strict";
import { test } from "node:test";

import { resolveClock } from "../../lib/archive/clock";

test("explicit clock wins, then SOURCE_DATE_EPOCH, then the wall clock", () => {
  const fixed = new Date("2020-01-02T03:04:05.000Z");
  assert.equal(resolveClock(() => fixed, { SOURCE_DATE_EPOCH: "0" })().toISOString(), "2020-01-02T03:04:05.000Z");
  assert.equal(resolveClock(undefined, { SOURCE_DATE_EPOCH: "1700000000" })().toISOString(), "2023-11-14T22:13:20.000Z");
  assert.ok(resolveClock(undefined, {})() instanceof Date);
  assert.throws(() => resolveClock(undefined, { SOURCE_DATE_EPOCH: "soon" }), /^Error: invalid SOURCE_DATE_EPOCH: soon$/);
});
