import assert from "node:assert/strict";
import { test } from "node:test";

import { WireReader } from "../../lib/wire/protobuf-wire";
import { decodeRecord } from "../../lib/wandb-file/record-messages";
import {
  exitRecord,
  headerRecord,
  historyRecord,
  outputRecord,
  pbBytes,
  pbDouble,
  pbInt32,
  pbVarint,
  runRecord,
  summaryRecord,
  unknownRecord,
} from "./wandb-log-builder";

test("history records: key (old Python writer) and nested_key (wandb-core) items, value_json, step.num", () => {
  const rec = historyRecord(
    [
      { key: "loss", json: "NaN" },
      { nested: ["hist", "_type"], json: '"histogram"' },
      { nested: ["_step"], json: "7" },
    ],
    7,
    42,
  );
  assert.deepEqual(decodeRecord(rec), {
    kind: "history",
    history: {
      items: [
        { path: ["loss"], json: "NaN" },
        { path: ["hist", "_type"], json: '"histogram"' },
        { path: ["_step"], json: "7" },
      ],
      stepNum: 7,
    },
  });
  // An empty HistoryStep (proto3 leaves num 0 out) is step 0; no step at all is null.
  assert.equal((decodeRecord(historyRecord([], 0)) as { history: { stepNum: number } }).history.stepNum, 0);
  assert.equal((decodeRecord(historyRecord([])) as { history: { stepNum: number | null } }).history.stepNum, null);
});

test("typed item values (no value_json) become the JSON the server would get", () => {
  const typedItem = (valueField: Buffer) => pbBytes(2, pbBytes(1, Buffer.concat([pbBytes(1, "k"), valueField])));
  const json = (valueField: Buffer) => (decodeRecord(typedItem(valueField)) as { history: { items: { json: string }[] } }).history.items[0].json;
  assert.equal(json(pbDouble(6, 0.25)), "0.25");
  assert.equal(json(pbDouble(6, -Infinity)), "-Infinity");
  assert.equal(json(pbDouble(6, NaN)), "NaN");
  assert.equal(json(pbVarint(5, 9)), "-5"); // sint64 zigzag: 9 -> -5
  assert.equal(json(pbVarint(4, 1)), "true");
  assert.equal(json(pbVarint(3, 0)), "null");
  assert.equal(json(pbBytes(7, 'a "b"')), '"a \\"b\\""');
  assert.equal(json(pbBytes(8, '{"x": 1}')), '{"x": 1}');
});

test("run, exit (0, 1, -9), summary, header records", () => {
  assert.deepEqual(decodeRecord(runRecord({ runId: "abc123", entity: "e", project: "p", displayName: "d", startSeconds: 1700000000, cliVersion: "0.18.7" })), {
    kind: "run",
    run: {
      runId: "abc123",
      entity: "e",
      project: "p",
      displayName: "d",
      startTimeMs: 1700000000250,
      cliVersion: "0.18.7",
      telemetry: { cliVersion: "0.18.7", pythonVersion: "", huggingfaceVersion: "" },
      summary: null,
      config: null,
    },
  });
  assert.deepEqual(decodeRecord(exitRecord(0)), { kind: "exit", exitCode: 0 });
  assert.deepEqual(decodeRecord(exitRecord(1)), { kind: "exit", exitCode: 1 });
  assert.deepEqual(decodeRecord(exitRecord(-9)), { kind: "exit", exitCode: -9 }, "negative int32: a 10-byte varint");
  assert.deepEqual(decodeRecord(summaryRecord([{ key: "best", json: "0.5" }])), {
    kind: "summary",
    summary: { update: [{ path: ["best"], json: "0.5" }], remove: [] },
  });
  assert.deepEqual(decodeRecord(headerRecord("0.31.0+abc")), { kind: "header", producer: "0.31.0+abc" });
});

test("other kinds are named and skipped undecoded; a field number no SDK writes is an unknown kind", () => {
  assert.deepEqual(decodeRecord(outputRecord("hello\n")), { kind: "other", name: "output_raw" });
  assert.deepEqual(decodeRecord(unknownRecord(5)), { kind: "unknown", fields: [999] });
  assert.deepEqual(decodeRecord(Buffer.alloc(0)), { kind: "unknown", fields: [] });
});

test("malformed bytes throw instead of reading past the message", () => {
  assert.throws(() => decodeRecord(Buffer.from([0x12, 0x05, 0x0a])), /field of 5 bytes runs past the end of the message/);
  assert.throws(() => decodeRecord(Buffer.from([0x08, 0xff])), /varint runs past the end of the message/);
  assert.throws(() => decodeRecord(Buffer.from([0x0b])), /unsupported wire type 3/);
});

test("int32 keeps the low 32 bits of a sign-extended varint", () => {
  const r = new WireReader(pbInt32(1, -2147483648).subarray(1));
  assert.equal(r.int32(), -2147483648);
  assert.ok(r.done());
});
