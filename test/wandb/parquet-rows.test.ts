import assert from "node:assert/strict";
import { test } from "node:test";

import { parquetWriteBuffer } from "hyparquet-writer";

import { serializeFrozenRow } from "../../lib/values/frozen-row";
import type { DroppedKeyCounts } from "../../lib/wandb/parse-history-row";
import { exportRowToNumeric, openExportFile, readExportLines, readExportRows, type ExportColumn } from "../../lib/wandb/parquet-rows";

/** A small export: INT64 _step, DOUBLE with NaN/±Inf and nulls, BOOLEAN, STRING of JSON text (numbers, markers, strings, objects). */
function sampleFile(rowGroupSize: number): Uint8Array {
  const columnData = [
    { name: "_step", type: "INT64" as const, nullable: false, data: BigInt64Array.from([3n, 4n, 7n, 8n, 9n]) },
    { name: "loss", type: "DOUBLE" as const, data: [0.5, NaN, null, Infinity, -Infinity] },
    { name: "b/flag", type: "BOOLEAN" as const, data: [true, null, false, null, null] },
    { name: "a/text", type: "STRING" as const, data: ["1.25", '"hi"', "NaN", '{"_type":"image-file"}', "plain words"] },
    { name: "Z", type: "DOUBLE" as const, data: [null, null, null, null, 2] },
  ];
  return new Uint8Array(parquetWriteBuffer({ columnData, rowGroupSize }));
}

const EXPECTED_LINES = [
  '{"_step":3,"a/text":1.25,"loss":0.5}',
  '{"_step":4,"loss":"NaN"}',
  '{"_step":7,"a/text":"NaN"}',
  '{"_step":8,"loss":"Infinity"}',
  '{"Z":2,"_step":9,"loss":"-Infinity"}',
];

test("exported rows: null is absent, NaN/±Inf kept, text columns numeric only where their JSON is a number; the rest dropped and counted", async () => {
  for (const groupSize of [2, 10]) {
    const file = await openExportFile(sampleFile(groupSize), 0);
    assert.equal(file.firstStep, 3);
    assert.deepEqual(file.groupRows, groupSize === 2 ? [2, 2, 1] : [5]);
    assert.equal(file.nestedColumns, 0);
    const dropped: DroppedKeyCounts = new Map();
    const rows: string[] = [];
    await readExportRows(file, dropped, (group) => void rows.push(...group.map(serializeFrozenRow)));
    assert.deepEqual(rows, EXPECTED_LINES, `row path, row groups of ${groupSize}`);
    assert.deepEqual([...dropped].sort(), [
      ["a/text", 3],
      ["b/flag", 2],
    ]);
  }
});

test("frozen lines straight from the columns equal the row path byte for byte, and report steps and keys", async () => {
  for (const groupSize of [2, 10]) {
    const file = await openExportFile(sampleFile(groupSize), 0);
    const dropped: DroppedKeyCounts = new Map();
    const lines: string[] = [];
    const steps: number[] = [];
    const keys = new Set<string>();
    await readExportLines(file, dropped, (g) => {
      lines.push(...g.lines);
      steps.push(...g.steps);
      for (const k of g.keys) keys.add(k);
    });
    assert.deepEqual(lines, EXPECTED_LINES, `line path, row groups of ${groupSize}`);
    assert.deepEqual(steps, [3, 4, 7, 8, 9]);
    assert.deepEqual([...keys].sort(), ["Z", "_step", "a/text", "loss"]);
    assert.deepEqual([...dropped].sort(), [
      ["a/text", 3],
      ["b/flag", 2],
    ]);
  }
});

test("a file without _step is refused (W&B #12511's 'Step column _step not found'); bytes that are not Parquet too", async () => {
  const noStep = new Uint8Array(parquetWriteBuffer({ columnData: [{ name: "loss", type: "DOUBLE", data: [1, 2] }] }));
  await assert.rejects(openExportFile(noStep, 0), { message: "has no _step column (columns: loss)" });
  await assert.rejects(openExportFile(new Uint8Array([1, 2, 3, 4]), 0));
});

test("exportRowToNumeric: bigint steps become numbers, nulls stay absent, never 0", () => {
  const cols: ExportColumn[] = [
    { name: "_step", kind: "number" },
    { name: "x", kind: "number" },
    { name: "t", kind: "text" },
  ];
  const dropped: DroppedKeyCounts = new Map();
  assert.deepEqual(exportRowToNumeric(cols, [5n, null, null], dropped), { _step: 5 });
  assert.deepEqual(exportRowToNumeric(cols, [6n, 0, "null"], dropped), { _step: 6, x: 0, t: NaN });
  assert.equal(dropped.size, 0);
});
