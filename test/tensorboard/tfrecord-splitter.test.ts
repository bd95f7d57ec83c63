import assert from "node:assert/strict";
import { test } from "node:test";

import { TensorboardError } from "../../lib/tensorboard/tensorboard-error";
import { TfRecordSplitter, type TornTail } from "../../lib/tensorboard/tfrecord-splitter";
import { eventFile, scalarEvent, versionEvent } from "./event-builder";

const FILE = "runs/x/events.out.tfevents.1.h.1.0";

function sample() {
  return eventFile([versionEvent(1000), scalarEvent(0, 1001, { a: 1 }), scalarEvent(1, 1002, { a: 2, b: 3 }), scalarEvent(2, 1003, { a: 4 })]);
}

/** Splits `bytes` fed in chunks of `chunk` bytes; returns record offsets and the torn tail. */
function split(bytes: Uint8Array, chunk: number, size = bytes.length): { offsets: number[]; lengths: number[]; tail: TornTail | null } {
  const s = new TfRecordSplitter(FILE, size);
  const offsets: number[] = [];
  const lengths: number[] = [];
  for (let p = 0; p < bytes.length; p += chunk) {
    s.chunk(bytes.subarray(p, Math.min(p + chunk, bytes.length)), (r) => {
      offsets.push(r.offset);
      lengths.push(r.data.length);
    });
  }
  return { offsets, lengths, tail: s.finish() };
}

test("every record is found at its offset whatever the chunk size (1 byte to the whole file)", () => {
  const { bytes, offsets } = sample();
  for (const chunk of [1, 5, 12, 13, 31, 64, bytes.length]) {
    const got = split(bytes, chunk);
    assert.deepEqual(got.offsets, offsets, `chunk ${chunk}`);
    assert.equal(got.tail, null, `chunk ${chunk}`);
  }
});

test("a file cut inside a record's data is a torn tail: the read ends at the last whole record", () => {
  const { bytes, offsets } = sample();
  const cut = bytes.subarray(0, offsets[3] + 15);
  const got = split(cut, 7);
  assert.deepEqual(got.offsets, offsets.slice(0, 3));
  assert.equal(got.tail?.offset, offsets[3]);
  assert.equal(got.tail?.bytes, 15);
  assert.match(got.tail!.reason, /a record of \d+ bytes runs past the end of the file/);
});

test("a file cut inside a record header is a torn tail naming the header bytes", () => {
  const { bytes, offsets } = sample();
  const got = split(bytes.subarray(0, offsets[2] + 5), 100);
  assert.deepEqual(got.offsets, offsets.slice(0, 2));
  assert.deepEqual(got.tail, { offset: offsets[2], bytes: 5, reason: "5 bytes of a 12-byte record header" });
});

test("zeros after the last record (allocated, never written) are a torn tail, not damage", () => {
  const { bytes, offsets } = sample();
  const padded = new Uint8Array(bytes.length + 40);
  padded.set(bytes);
  const got = split(padded, 16);
  assert.deepEqual(got.offsets, offsets);
  assert.deepEqual(got.tail, { offset: bytes.length, bytes: 40, reason: "zero bytes where a record belongs" });
});

test("the last record failing its data checksum with nothing after it is a torn tail", () => {
  const { bytes, offsets } = sample();
  const bad = bytes.slice();
  bad[bad.length - 6] ^= 0xff; // inside the last record's data
  const got = split(bad, 1000);
  assert.deepEqual(got.offsets, offsets.slice(0, 3));
  assert.equal(got.tail?.offset, offsets[3]);
  assert.match(got.tail!.reason, /data checksum mismatch .* the file's last record/);
});

test("a damaged record inside the file is an error naming the file and the record's byte offset", () => {
  const { bytes, offsets } = sample();
  const bad = bytes.slice();
  bad[offsets[2] + 14] ^= 0x01; // a data byte of the third record
  assert.throws(
    () => split(bad, 9),
    (e: unknown) =>
      e instanceof TensorboardError &&
      e.offset === offsets[2] &&
      e.message.startsWith(`TensorBoard file ${FILE} at byte ${offsets[2]}: data checksum mismatch`) &&
      /more bytes follow it, so the file is damaged inside/.test(e.message),
  );
});

test("a length failing its checksum with data after it is an error, not a torn tail", () => {
  const { bytes, offsets } = sample();
  const bad = bytes.slice();
  bad[offsets[1]] ^= 0x01; // the second record's length
  assert.throws(
    () => split(bad, 1000),
    (e: unknown) => e instanceof TensorboardError && e.offset === offsets[1] && /length checksum mismatch/.test(e.message),
  );
});

test("records before the damage are handed on before the error (nothing read is lost silently)", () => {
  const { bytes, offsets } = sample();
  const bad = bytes.slice();
  bad[offsets[3] - 1] ^= 0x01; // the third record's data checksum
  const seen: number[] = [];
  const s = new TfRecordSplitter(FILE, bad.length);
  assert.throws(() => s.chunk(bad, (r) => seen.push(r.offset)), TensorboardError);
  assert.deepEqual(seen, offsets.slice(0, 2));
});
