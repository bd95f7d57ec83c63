import assert from "node:assert/strict";
import { test } from "node:test";

import { WireError, WireReader } from "../../lib/wire/protobuf-wire";

test("int64 reads two's complement varints: small, 2^40, -1 (10 bytes), -2^40", () => {
  const cases: [number[], number][] = [
    [[0x05], 5],
    [[0x80, 0x80, 0x80, 0x80, 0x80, 0x20], 2 ** 40],
    [[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01], -1],
    [[0x80, 0x80, 0x80, 0x80, 0x80, 0xe0, 0xff, 0xff, 0xff, 0x01], -(2 ** 40)],
  ];
  for (const [bytes, want] of cases) assert.equal(new WireReader(Uint8Array.from(bytes)).int64(), want, `bytes ${bytes}`);
});

test("float reads a little-endian float32 and widens it exactly", () => {
  const buf = new Uint8Array(4);
  new DataView(buf.buffer).setFloat32(0, 0.1, true);
  const r = new WireReader(buf);
  assert.equal(r.float(), Math.fround(0.1));
  assert.notEqual(Math.fround(0.1), 0.1);
  assert.ok(r.done());
});

test("float and int64 past the end of the message are WireErrors, not garbage", () => {
  assert.throws(() => new WireReader(Uint8Array.of(1, 2, 3)).float(), WireError);
  assert.throws(() => new WireReader(Uint8Array.of(0x80, 0x80)).int64(), WireError);
});
