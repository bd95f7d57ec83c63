import assert from "node:assert/strict";
import { test } from "node:test";

import { applySummary, historyRow } from "../../lib/wandb-file/history-rows";
import { parseHistoryRow } from "../../lib/wandb/parse-history-row";

const items = (pairs: [string | string[], string][]) => pairs.map(([k, json]) => ({ path: Array.isArray(k) ? k : [k], json }));

test("a wandb-core record (nested_key paths) gives the row the server returns for the same log call", () => {
  const dropped = new Map<string, number>();
  const row = historyRow(
    {
      items: items([
        ["loss", "NaN"],
        ["grad", "Infinity"],
        ["neg", "-Infinity"],
        [["hist", "_type"], '"histogram"'],
        [["hist", "values"], "[1,2]"],
        [["nested", "b", "c"], "2"],
        ["_runtime", "0.5"],
        ["_timestamp", "1.7962330264672654e+09"],
        ["_step", "3"],
        ["note", '"text"'],
      ]),
      stepNum: 3,
    },
    dropped,
  );
  assert.deepStrictEqual(row, { loss: NaN, grad: Infinity, neg: -Infinity, _runtime: 0.5, _timestamp: 1796233026.4672654, _step: 3 });
  assert.deepEqual(Object.fromEntries(dropped), { hist: 1, nested: 1, note: 1 }, "dropped once per row under the first key");
  // The server path on the JSON wandb-core streams for that record: the same row, the same drops.
  const serverDropped = new Map<string, number>();
  const server = parseHistoryRow(
    '{"loss":NaN,"grad":Infinity,"neg":-Infinity,"hist":{"_type":"histogram","values":[1,2]},"nested":{"b":{"c":2}},"_runtime":0.5,"_timestamp":1.7962330264672654e+09,"_step":3,"note":"text"}',
    serverDropped,
  );
  assert.deepStrictEqual(row, server);
  assert.deepEqual(Object.fromEntries(serverDropped), Object.fromEntries(dropped));
});

test("SDK 0.15 records: step.num stays 0, the step is the _step item; a dict comes whole in one key item", () => {
  const dropped = new Map<string, number>();
  const row = historyRow(
    {
      items: items([
        ["global_step", "32768"],
        ["_step", "5"],
        ["media", '{"_type": "image-file", "path": "x.png"}'],
      ]),
      stepNum: 0,
    },
    dropped,
  );
  assert.deepStrictEqual(row, { global_step: 32768, _step: 5 });
  assert.deepEqual(Object.fromEntries(dropped), { media: 1 });
});

test("without a _step item the record's step.num is the step; without either there is no _step (the reader refuses it)", () => {
  assert.deepStrictEqual(historyRow({ items: items([["x", "1"]]), stepNum: 9 }), { x: 1, _step: 9 });
  assert.deepStrictEqual(historyRow({ items: items([["x", "1"]]), stepNum: null }), { x: 1 });
});

test("a value_json that is not JSON names the key", () => {
  assert.throws(() => historyRow({ items: items([["loss", "1.2.3"]]), stepNum: 0 }), /^ItemValueError: key "loss": value_json is not JSON \(.*\): 1\.2\.3$/);
});

test("summary: numeric top-level values kept, later updates win, dicts and removed keys leave it", () => {
  const s = new Map<string, number>();
  applySummary(s, {
    update: items([
      ["a", "1"],
      ["b", "2"],
      [["h", "x"], "1"],
    ]),
    remove: [],
  });
  applySummary(s, {
    update: items([
      ["a", "NaN"],
      ["b", '"text"'],
    ]),
    remove: [["c"]],
  });
  applySummary(s, { update: items([["c", "3"]]), remove: [] });
  applySummary(s, { update: [], remove: [["c"]] });
  assert.deepStrictEqual(Object.fromEntries(s), { a: NaN });
});
