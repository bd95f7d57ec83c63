import assert from "node:assert/strict";
import { test } from "node:test";

import { crc32, crc32Js } from "../../lib/wandb-file/crc32";
import { checkFileHeader, LOG_BLOCK_BYTES, LogRecordSplitter, type LogRecord, type TornTail } from "../../lib/wandb-file/log-records";
import { buildLog, checksum } from "./wandb-log-builder";

/** Splits a whole log held in memory, block by block as the reader does. */
function split(bytes: Buffer, file = "run-x.wandb"): { records: LogRecord[]; torn: TornTail | null } {
  checkFileHeader(bytes.subarray(0, 7), file);
  const splitter = new LogRecordSplitter(file);
  const records: LogRecord[] = [];
  for (let b = 0; b < bytes.length; b += LOG_BLOCK_BYTES) {
    const block = bytes.subarray(b, Math.min(b + LOG_BLOCK_BYTES, bytes.length));
    splitter.block(block, b, b + block.length >= bytes.length, records);
  }
  return { records, torn: splitter.finish() };
}

const payload = (n: number, seed: number) => Buffer.from(Array.from({ length: n }, (_, i) => (i * 31 + seed) & 0xff));

test("CRC-32 is the IEEE one (check value of '123456789' is 0xCBF43926), native and table forms agree", () => {
  const data = Buffer.from("123456789");
  assert.equal(crc32(data), 0xcbf43926);
  assert.equal(crc32Js(data), 0xcbf43926);
  const big = payload(100_000, 7);
  assert.equal(crc32Js(big), crc32(big));
  assert.equal(crc32Js(big.subarray(500), crc32Js(big.subarray(0, 500))), crc32(big), "continues from a previous value");
});

test("records come back whole: small ones, one spanning three blocks (first/middle/last), padding of block tails under 7 bytes", () => {
  // 32768 - 7 (file header) - 7 - 32747 leaves 7 bytes: the next record starts with a zero-length first chunk there.
  const recs = [payload(10, 1), payload(32747, 2), payload(70_000, 3), payload(32761 - 10, 4), payload(3, 5)];
  const { bytes, offsets } = buildLog(recs);
  const { records, torn } = split(bytes);
  assert.equal(torn, null);
  assert.equal(records.length, recs.length);
  records.forEach((r, i) => {
    assert.ok(Buffer.from(r.data).equals(recs[i]), `record ${i}`);
    assert.equal(r.offset, offsets[i], `offset of record ${i}`);
  });
  assert.equal(offsets[0], 7);
});

test("a wrong header is refused at byte 0 naming the file: other magic, too short, another version", () => {
  const { bytes } = buildLog([payload(5, 1)]);
  const other = Buffer.from(bytes);
  other.write("PK\x03\x04", 0, "latin1");
  assert.throws(
    () => split(other, "data/a.wandb"),
    /^WandbFileError: W&B file data\/a\.wandb at byte 0: not a W&B transaction log: it starts with 50 4b 03 04 e1 be 00/,
  );
  assert.throws(() => split(bytes.subarray(0, 3)), /W&B file run-x\.wandb at byte 0: 3 bytes long: too short to be a W&B transaction log/);
  const v1 = Buffer.from(bytes);
  v1[6] = 1;
  assert.throws(() => split(v1), /at byte 0: transaction log version 1 is not supported/);
});

test("a bad CRC inside the file is an error naming file and the byte offset of the damaged chunk; nothing after it is read", () => {
  const recs = Array.from({ length: 5000 }, (_, i) => payload(40, i)); // ~47 bytes each: 8 blocks
  const { bytes, offsets } = buildLog(recs);
  const bad = Buffer.from(bytes);
  bad[offsets[1000] + 10] ^= 0x01; // one flipped bit in the data of record 1000
  assert.throws(
    () => split(bad, "runs/run-x.wandb"),
    (e: Error) => {
      assert.equal(e.name, "WandbFileError");
      assert.match(
        e.message,
        new RegExp(
          `^W&B file runs/run-x\\.wandb at byte ${offsets[1000]}: chunk checksum mismatch \\(stored 0x[0-9a-f]{8}, computed 0x[0-9a-f]{8}\\); a valid chunk follows at byte \\d+, so the file is damaged inside`,
        ),
      );
      return true;
    },
  );
  const badLength = Buffer.from(bytes);
  badLength.writeUInt16LE(60_000, offsets[10] + 4); // a length past the block
  assert.throws(
    () => split(badLength),
    new RegExp(`at byte ${offsets[10]}: a chunk of 60000 bytes runs past the end of its 32 KiB block; a valid chunk follows`),
  );
});

test("a truncated tail (cut inside a record, inside a chunk header, inside a split record) ends at the last whole record", () => {
  const recs = [payload(100, 1), payload(200, 2), payload(50_000, 3), payload(30, 4)];
  const { bytes, offsets } = buildLog(recs);
  // cut inside the last record's data
  let r = split(bytes.subarray(0, bytes.length - 5));
  assert.equal(r.records.length, 3);
  assert.deepEqual(r.torn, { offset: offsets[3], bytes: bytes.length - 5 - offsets[3], reason: "a chunk of 30 bytes runs past the end of the file" });
  // cut inside the last chunk header
  r = split(bytes.subarray(0, offsets[3] + 4));
  assert.equal(r.records.length, 3);
  assert.deepEqual(r.torn, { offset: offsets[3], bytes: 4, reason: "4 bytes of an incomplete chunk header" });
  // cut after the first chunk of the record split over two blocks
  r = split(bytes.subarray(0, LOG_BLOCK_BYTES + 100));
  assert.equal(r.records.length, 2);
  assert.equal(r.torn!.offset, offsets[2]);
  assert.equal(r.torn!.reason, `a chunk of ${50_000 - (LOG_BLOCK_BYTES - offsets[2] - 7)} bytes runs past the end of the file`);
  // cut exactly at a block boundary after a first chunk
  r = split(bytes.subarray(0, LOG_BLOCK_BYTES));
  assert.equal(r.records.length, 2);
  assert.deepEqual(r.torn, { offset: offsets[2], bytes: LOG_BLOCK_BYTES - offsets[2], reason: "a record split over blocks has no last chunk" });
});

test("a bad CRC in the very last record, or zeros where the next chunk belongs at the end, is a torn tail, not an error", () => {
  const { bytes, offsets } = buildLog([payload(10, 1), payload(20, 2), payload(30, 3)]);
  const bad = Buffer.from(bytes);
  bad[bad.length - 1] ^= 0xff;
  let r = split(bad);
  assert.equal(r.records.length, 2);
  assert.equal(r.torn!.offset, offsets[2]);
  assert.match(r.torn!.reason, /^chunk checksum mismatch/);
  r = split(Buffer.concat([bytes, Buffer.alloc(4096)])); // pre-allocated zeros after the last record
  assert.equal(r.records.length, 3);
  assert.deepEqual(r.torn, { offset: bytes.length, bytes: 4096, reason: "zero bytes where a chunk header belongs" });
});

test("chunk sequences that break the format are errors naming the offset: last without first, unknown chunk type", () => {
  const { bytes, offsets } = buildLog([payload(10, 1), payload(10, 2), payload(10, 3)]);
  const retype = (type: number) => {
    const b = Buffer.from(bytes);
    const at = offsets[1];
    b[at + 6] = type;
    b.writeUInt32LE(checksum(type, b.subarray(at + 7, at + 17)), at);
    return b;
  };
  assert.throws(() => split(retype(4)), new RegExp(`at byte ${offsets[1]}: a last chunk without a first chunk before it`));
  assert.throws(() => split(retype(9)), new RegExp(`at byte ${offsets[1]}: unknown chunk type 9 \\(known: 1 full, 2 first, 3 middle, 4 last\\)`));
  assert.throws(
    () => split(retype(2)),
    new RegExp(`at byte ${offsets[1]}: a record split over blocks has no last chunk \\(a new record starts at byte ${offsets[2]}\\)`),
  );
});
