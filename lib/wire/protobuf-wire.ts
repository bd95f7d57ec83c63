/**
 * A minimal reader of the protobuf wire format (varint, 64-bit, length-delimited, 32-bit), shared by
 * the file readers: enough to walk the few W&B `Record` messages (lib/wandb-file/) and TensorBoard
 * `Event` messages (lib/tensorboard/) the archive needs and skip every other field. Written from the
 * public encoding spec (protobuf.dev "Encoding"); no generated code (see docs/libraries.md).
 */

/** Wire types of the protobuf encoding. */
export const WIRE = { varint: 0, fixed64: 1, bytes: 2, fixed32: 5 } as const;

const UTF8 = new TextDecoder("utf-8");

/** A malformed message (the caller adds file and byte offset). */
export class WireError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "WireError";
  }
}

/** Cursor over one message's bytes `[pos, end)`. */
export class WireReader {
  pos: number;
  readonly end: number;

  constructor(
    readonly buf: Uint8Array,
    start = 0,
    end = buf.length,
  ) {
    this.pos = start;
    this.end = end;
  }

  /** True when the message is consumed. */
  done(): boolean {
    return this.pos >= this.end;
  }

  /** Next field tag: field number * 8 + wire type. */
  tag(): number {
    return this.varint();
  }

  /** Unsigned varint as a number (exact up to 2^53; W&B steps and lengths stay far below). */
  varint(): number {
    let result = 0;
    let mul = 1;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= this.end) throw new WireError("varint runs past the end of the message");
      const b = this.buf[this.pos++];
      result += (b & 0x7f) * mul;
      if ((b & 0x80) === 0) return result;
      mul *= 128;
    }
    throw new WireError("varint longer than 10 bytes");
  }

  /** int32 field: the low 32 bits of the varint, signed (negative values are sign-extended to 10 bytes). */
  int32(): number {
    let lo = 0;
    for (let shift = 0; shift < 70; shift += 7) {
      if (this.pos >= this.end) throw new WireError("varint runs past the end of the message");
      const b = this.buf[this.pos++];
      if (shift < 32) lo |= (b & 0x7f) << shift;
      if ((b & 0x80) === 0) return lo | 0;
    }
    throw new WireError("varint longer than 10 bytes");
  }

  /**
   * int64 field (two's complement; a negative value is a 10-byte varint), exact up to 2^53 in
   * magnitude: the low and high 32 bits are gathered apart, as protobuf.js does.
   */
  int64(): number {
    let lo = 0;
    let hi = 0;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= this.end) throw new WireError("varint runs past the end of the message");
      const b = this.buf[this.pos++];
      const bits = b & 0x7f;
      if (i < 4) lo |= bits << (7 * i);
      else if (i === 4) {
        lo |= (bits & 0x0f) << 28;
        hi |= bits >> 4;
      } else hi |= bits << (7 * i - 32);
      if ((b & 0x80) === 0) return hi * 4294967296 + (lo >>> 0);
    }
    throw new WireError("varint longer than 10 bytes");
  }

  /** sint64 field (zigzag), exact up to 2^53. */
  sint64(): number {
    const n = this.varint();
    return n % 2 === 0 ? n / 2 : -(n + 1) / 2;
  }

  /** double field (little-endian IEEE 754). */
  double(): number {
    if (this.pos + 8 > this.end) throw new WireError("double runs past the end of the message");
    const v = new DataView(this.buf.buffer, this.buf.byteOffset + this.pos, 8).getFloat64(0, true);
    this.pos += 8;
    return v;
  }

  /** float field (little-endian IEEE 754 single precision), widened to a double exactly. */
  float(): number {
    if (this.pos + 4 > this.end) throw new WireError("float runs past the end of the message");
    const v = new DataView(this.buf.buffer, this.buf.byteOffset + this.pos, 4).getFloat32(0, true);
    this.pos += 4;
    return v;
  }

  /** Bounds `[start, end)` of a length-delimited field (a sub-message, string or bytes). */
  span(): [number, number] {
    const len = this.varint();
    const start = this.pos;
    if (start + len > this.end) throw new WireError(`field of ${len} bytes runs past the end of the message`);
    this.pos = start + len;
    return [start, start + len];
  }

  /** A length-delimited field as a reader over it. */
  message(): WireReader {
    const [start, end] = this.span();
    return new WireReader(this.buf, start, end);
  }

  /** A string field (UTF-8). */
  string(): string {
    const [start, end] = this.span();
    return UTF8.decode(this.buf.subarray(start, end));
  }

  /** Skips a field of the given wire type. */
  skip(wire: number): void {
    if (wire === WIRE.varint) this.varint();
    else if (wire === WIRE.fixed64) this.advance(8);
    else if (wire === WIRE.bytes) this.span();
    else if (wire === WIRE.fixed32) this.advance(4);
    else throw new WireError(`unsupported wire type ${wire}`);
  }

  private advance(n: number): void {
    if (this.pos + n > this.end) throw new WireError(`fixed field of ${n} bytes runs past the end of the message`);
    this.pos += n;
  }
}
