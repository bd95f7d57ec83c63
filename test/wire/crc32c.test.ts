import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";

import { crc32c, maskedCrc32c } from "../../lib/wire/crc32c";

const ascii = (s: string) => new TextEncoder().encode(s);

test("crc32c gives the Castagnoli check value of '123456789' (0xE3069283), not the IEEE one (0xCBF43926)", () => {
  assert.equal(crc32c(ascii("123456789")), 0xe3069283);
  assert.equal(crc32c(new Uint8Array(0)), 0);
  assert.equal(crc32c(new Uint8Array(32)), 0x8a9136aa, "32 zero bytes (RFC 3720 B.4)");
});

test("maskedCrc32c rotates right by 15 and adds 0xa282ead8, as TFRecord stores it", () => {
  const crc = 0xe3069283;
  const rotated = ((crc >>> 15) | (crc << 17)) >>> 0;
  assert.equal(maskedCrc32c(ascii("123456789")), (rotated + 0xa282ead8) % 2 ** 32);
});

test("maskedCrc32c matches the length checksum a real writer (transformers' TensorBoard callback) stored", () => {
  const file = path.join(__dirname, "../fixtures/real-runs/trl/grpo-log1/R0-0-events.out.tfevents");
  const bytes = new Uint8Array(fs.readFileSync(file));
  const stored = new DataView(bytes.buffer, bytes.byteOffset + 8, 4).getUint32(0, true);
  assert.equal(maskedCrc32c(bytes.subarray(0, 8)), stored);
});
