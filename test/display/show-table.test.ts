import { test } from "node:test";
import assert from "node:assert/strict";
import { showTable } from "../../lib/display/show-table";
import { fakeDisplay } from "./fake-display";

test("showTable: the HTML table, then the caption with the precision sentence as markdown", () => {
  const d = fakeDisplay();
  showTable([{ round: "R0", entropy: 0.18025 }], "Round means over optimizer updates.", { display: d, precision: { entropy: 5 } });
  assert.deepEqual(
    d.calls.map((c) => c[0]),
    ["text/html", "text/markdown"],
  );
  assert.match(d.calls[0][1] as string, /^<table>/);
  assert.equal(d.calls[1][1], "Round means over optimizer updates.\n\n*Rounded to entropy: 5 decimals.*");
});

test("no caption and no precision: the table alone", () => {
  const d = fakeDisplay();
  showTable([{ a: 1 }], "", { display: d });
  assert.deepEqual(
    d.calls.map((c) => c[0]),
    ["text/html"],
  );
});
