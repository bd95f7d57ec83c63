import { test } from "node:test";
import assert from "node:assert/strict";
import { escapeHtml, formatCell, precisionNote, tableHtml } from "../../lib/display/table-html";

test("rows to an escaped HTML table with stated decimals", () => {
  const html = tableHtml(
    [
      { round: "R0", entropy: 0.180251, "grad <norm>": 2.1849 },
      { round: "R1 & co", entropy: null, "grad <norm>": 2.16 },
    ],
    { precision: { entropy: 5, "grad <norm>": 2 } },
  );
  assert.equal(
    html,
    [
      "<table>",
      "<thead><tr><th>round</th><th>entropy</th><th>grad &lt;norm&gt;</th></tr></thead>",
      "<tbody>",
      '<tr><td style="text-align: left">R0</td><td style="text-align: right">0.18025</td><td style="text-align: right">2.18</td></tr>',
      '<tr><td style="text-align: left">R1 &amp; co</td><td title="missing">\u2014</td><td style="text-align: right">2.16</td></tr>',
      "</tbody>",
      "</table>",
    ].join("\n"),
  );
});

test("a danfojs-like DataFrame, column selection, default significant digits", () => {
  const df = {
    columns: ["a", "b"],
    values: [
      [1, 0.123456789],
      [13538.13, 2],
    ],
  };
  const html = tableHtml(df, { columns: ["b", "a"] });
  assert.match(html, /<th>b<\/th><th>a<\/th>/);
  assert.match(html, /0\.123457<\/td><td style="text-align: right">1<\/td>/, "6 significant digits; integers whole");
  assert.match(html, /13538\.1<\/td>/);
});

test("cell formatting: missing is a dash, never 0; non-finite spelled out", () => {
  assert.equal(formatCell(undefined), "\u2014");
  assert.equal(formatCell(null), "\u2014");
  assert.equal(formatCell(NaN), "NaN");
  assert.equal(formatCell(-Infinity), "-Infinity");
  assert.equal(formatCell(0.000375, 5), "0.00038");
  assert.equal(formatCell(true), "true");
  assert.equal(escapeHtml(`<a href="x">'</a>`), "&lt;a href=&quot;x&quot;&gt;&#39;&lt;/a&gt;");
});

test("precision note and option errors", () => {
  assert.equal(precisionNote(["a"], 2), "Numbers are rounded to 2 decimals.");
  assert.equal(precisionNote(["a", "b", "c"], { c: 1, a: 5 }), "Rounded to a: 5 decimals; c: 1 decimal.");
  assert.equal(precisionNote(["a"], undefined), "");
  assert.throws(() => tableHtml([], { precision: -1 }), { message: "invalid precision: -1" });
  assert.throws(() => tableHtml([], { defaultSignificant: 0 }), { message: "invalid defaultSignificant: 0" });
  assert.throws(() => tableHtml("x" as any), /^Error: invalid table/);
});

test("a real danfojs DataFrame; its null stays a missing dash", async () => {
  const dfd = await import("danfojs-node");
  const df = new dfd.DataFrame([
    { round: "R0", entropy: 0.180251 },
    { round: "R1", entropy: null },
  ]);
  const html = tableHtml(df as any, { precision: { entropy: 5 } });
  assert.match(html, /<th>round<\/th><th>entropy<\/th>/);
  assert.match(html, /<td style="text-align: left">R0<\/td><td style="text-align: right">0\.18025<\/td>/);
  assert.match(html, /<td style="text-align: left">R1<\/td><td title="missing">\u2014<\/td>/);
});
