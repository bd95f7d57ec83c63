/** A follow's "not analysed" warnings (lib/follow/not-analysed.ts): a reason in full once, then short lines pointing back. */
import assert from "node:assert/strict";
import { test } from "node:test";

import { NotAnalysedWarnings } from "../../lib/follow/not-analysed";

const A = "cannot tell which framework wrote these runs: no key matches a profile; keys: x";
const B = "cannot tell which framework wrote these runs: no key matches a profile; keys: x, y";

test("fail A, fail A, fail B, analysed, fail B: A in full, a pointer back to it, B in full, then B in full again after the success", () => {
  const w = new NotAnalysedWarnings();
  const lines = [w.failed(5, A), w.failed(6, A), w.failed(7, B)];
  w.analysed(); // snapshot 8
  lines.push(w.failed(9, B));
  assert.deepEqual(lines, [
    `snapshot 5: not analysed (${A}); the next snapshot is analysed again`,
    "snapshot 6: not analysed, same reason as snapshot 5",
    `snapshot 7: not analysed (${B}); the next snapshot is analysed again`,
    `snapshot 9: not analysed (${B}); the next snapshot is analysed again`,
  ]);
});

test("a reason repeated over many snapshots points back to the snapshot that said it in full, not to the last short line", () => {
  const w = new NotAnalysedWarnings();
  assert.deepEqual(
    [3, 4, 5, 6].map((s) => w.failed(s, A)),
    [
      `snapshot 3: not analysed (${A}); the next snapshot is analysed again`,
      "snapshot 4: not analysed, same reason as snapshot 3",
      "snapshot 5: not analysed, same reason as snapshot 3",
      "snapshot 6: not analysed, same reason as snapshot 3",
    ],
  );
});

test("a reason said before another one is said in full when it comes back (only the last reason is pointed back to)", () => {
  const w = new NotAnalysedWarnings();
  w.failed(1, A);
  w.failed(2, B);
  assert.equal(w.failed(3, A), `snapshot 3: not analysed (${A}); the next snapshot is analysed again`);
  assert.equal(w.failed(4, A), "snapshot 4: not analysed, same reason as snapshot 3");
});

test("two follows hold their own state: one's reason is not pointed back to by the other", () => {
  const one = new NotAnalysedWarnings();
  const two = new NotAnalysedWarnings();
  one.failed(1, A);
  assert.equal(two.failed(1, A), `snapshot 1: not analysed (${A}); the next snapshot is analysed again`);
});

test("the HTML report's failures are said the same way, in their own words: in full, then pointing back, in full again after a rebuild", () => {
  const w = new NotAnalysedWarnings("HTML report not rebuilt", "the last one stays");
  assert.deepEqual(
    [w.failed(3, "no Chromium"), w.failed(4, "no Chromium")],
    ["snapshot 3: HTML report not rebuilt (no Chromium); the last one stays", "snapshot 4: HTML report not rebuilt, same reason as snapshot 3"],
  );
  w.analysed();
  assert.equal(w.failed(6, "no Chromium"), "snapshot 6: HTML report not rebuilt (no Chromium); the last one stays");
});
