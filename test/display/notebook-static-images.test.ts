import { test } from "node:test";
import assert from "node:assert/strict";
import { PLOTLY_MIME } from "../../lib/display/display-target";
import { figureTitle, parseNotebook, splitLines, plotlyOutputs, serializeNotebook, withStaticImages } from "../../lib/display/notebook-static-images";
import { FIXTURE_TITLES, notebookFixture } from "./notebook-fixture";

const fakeRender = async () => ({ base64: "iVBORw0KGgo=", width: 900, height: 420, scale: 1 });

test("finds every plotly output with its cell, output index and title", () => {
  const refs = plotlyOutputs(notebookFixture());
  assert.deepEqual(
    refs.map((r) => [r.cell, r.output, r.title]),
    [
      [1, 0, FIXTURE_TITLES[0]],
      [3, 0, FIXTURE_TITLES[1]],
    ],
  );
});

test("adds image/png and text/plain to the SAME output; other outputs untouched; input not changed", async () => {
  const nb = notebookFixture();
  const before = JSON.stringify(nb);
  const { notebook, figures } = await withStaticImages(nb, fakeRender, "fixture.ipynb");
  assert.equal(JSON.stringify(nb), before);
  assert.equal(figures.length, 2);
  for (const [cell, title] of [
    [1, FIXTURE_TITLES[0]],
    [3, FIXTURE_TITLES[1]],
  ] as const) {
    const out = notebook.cells[cell].outputs![0];
    assert.equal(notebook.cells[cell].outputs!.length, 1, "no extra output");
    assert.deepEqual(Object.keys(out.data!).sort(), [PLOTLY_MIME, "image/png", "text/plain"]);
    assert.equal(out.data!["image/png"], "iVBORw0KGgo=");
    assert.deepEqual(out.data!["text/plain"], [title], "as nbformat stores text: a list of lines");
    assert.deepEqual(out.metadata, {}, "scale 1: no size metadata");
  }
  assert.deepEqual(notebook.cells[2], nb.cells[2]);
});

test("re-running replaces the image; scale 2 records the CSS size", async () => {
  const first = (await withStaticImages(notebookFixture(), fakeRender)).notebook;
  const { notebook } = await withStaticImages(first, async () => ({ base64: "AAAA", width: 900, height: 420, scale: 2 }));
  const out = notebook.cells[1].outputs![0];
  assert.equal(out.data!["image/png"], "AAAA");
  assert.deepEqual(out.metadata, { "image/png": { width: 900, height: 420 } });
});

test("errors name the file, cell, output and figure", async () => {
  await assert.rejects(
    withStaticImages(
      notebookFixture(),
      async () => {
        throw new Error("boom");
      },
      "x.ipynb",
    ),
    { message: `x.ipynb: cell 1, output 0 ("${FIXTURE_TITLES[0]}"): boom` },
  );
  const nb = notebookFixture();
  nb.cells[3].outputs![0].data![PLOTLY_MIME] = "{not json";
  assert.throws(() => plotlyOutputs(nb, "y.ipynb"), { message: `y.ipynb: cell 3, output 0: ${PLOTLY_MIME} is not valid JSON` });
  assert.throws(() => parseNotebook("{}", "z.ipynb"), { message: "z.ipynb: not an nbformat 4 notebook" });
});

test("a plotly JSON string is parsed; titles fall back to meta, then a generic name", () => {
  const nb = notebookFixture();
  nb.cells[1].outputs![0].data![PLOTLY_MIME] = JSON.stringify({ data: [], layout: { title: "plain" } });
  assert.equal(plotlyOutputs(nb)[0].title, "plain");
  assert.equal(figureTitle({ data: [], layout: { meta: { figure: "x", title: "from meta" } } }), "from meta");
  assert.equal(figureTitle({ data: [], layout: {} }), "plotly figure");
});

test("splitLines keeps line ends like Python's splitlines(keepends=True)", () => {
  assert.deepEqual(splitLines("a\nb"), ["a\n", "b"]);
  assert.deepEqual(splitLines("a\n"), ["a\n"]);
  assert.deepEqual(splitLines(""), []);
});

test("serialisation as nbformat writes it: sorted keys, indent 1, final newline", () => {
  const text = serializeNotebook({ nbformat: 4, nbformat_minor: 5, metadata: { b: 1, a: [{ z: 1, y: 2 }] }, cells: [] });
  assert.equal(
    text,
    '{\n "cells": [],\n "metadata": {\n  "a": [\n   {\n    "y": 2,\n    "z": 1\n   }\n  ],\n  "b": 1\n },\n "nbformat": 4,\n "nbformat_minor": 5\n}\n',
  );
});
