/**
 * The framing of a TensorBoard event file, a TFRecord file: records back to back, each a u64 length
 * (little-endian), the masked CRC-32C of those 8 bytes, the data, and the masked CRC-32C of the data
 * (tensorflow/core/lib/io/record_writer.cc). No header, no blocks, no padding.
 *
 * Damage rules (every checksum is verified):
 * - the file ends inside a record (a short header, a short record): the torn end of a writer that was
 *   killed or is still writing; the read ends at the last whole record and the tail is reported;
 * - the last record's data fails its checksum and nothing follows it: also a torn end;
 * - zero bytes where a record header belongs, up to the end of the file: a torn end (space the file
 *   system allocated but the writer never filled);
 * - a length that fails its checksum (with non-zero bytes after it), or data that fails its checksum
 *   with more bytes after the record: the file is damaged inside; an error naming the byte offset.
 */
import { maskedCrc32c } from "../wire/crc32c";
import { TensorboardError } from "./tensorboard-error";
import type { TornTail } from "../wire/torn-tail";

/** Bytes of a record's header: the u64 length and its masked CRC. */
const HEADER = 12;
/** Bytes of a record's footer: the data's masked CRC. */
const FOOTER = 4;

/** One whole record: its data and the file offset of its header. */
export interface TfRecord {
  offset: number;
  data: Uint8Array;
}

export type { TornTail };

function u32(buf: Uint8Array, p: number): number {
  return (buf[p] | (buf[p + 1] << 8) | (buf[p + 2] << 16) | (buf[p + 3] << 24)) >>> 0;
}

function hex(n: number): string {
  return `0x${n.toString(16).padStart(8, "0")}`;
}

/**
 * Splits an event file, fed in order in chunks of any size, into whole records. `size` is the file
 * size the read ends at; call `finish()` after the last chunk for the torn tail (or null).
 */
export class TfRecordSplitter {
  /** Bytes of an unfinished record carried over from the previous chunk (a copy). */
  private carry: Uint8Array = new Uint8Array(0);
  /** File offset of `carry[0]`. */
  private carryOffset = 0;
  /** A length that failed its checksum: a torn tail only if every byte after it is zero. */
  private zeroTail: { offset: number; reason: string } | null = null;
  private tail: TornTail | null = null;

  constructor(
    private readonly file: string,
    private readonly size: number,
  ) {}

  /** Calls `onRecord` for each whole record ending in this chunk (its data is valid during the call only). */
  chunk(chunk: Uint8Array, onRecord: (rec: TfRecord) => void): void {
    if (this.zeroTail) {
      this.checkZeros(chunk);
      return;
    }
    let buf = chunk;
    let base = this.carryOffset + this.carry.length;
    if (this.carry.length > 0) {
      buf = new Uint8Array(this.carry.length + chunk.length);
      buf.set(this.carry);
      buf.set(chunk, this.carry.length);
      base = this.carryOffset;
    }
    let p = 0;
    while (p + HEADER <= buf.length) {
      const offset = base + p;
      const lenLo = u32(buf, p);
      const lenHi = u32(buf, p + 4);
      const stored = u32(buf, p + 8);
      const actual = maskedCrc32c(buf.subarray(p, p + 8));
      if (actual !== stored) {
        this.zeroTail = { offset, reason: `length checksum mismatch (stored ${hex(stored)}, computed ${hex(actual)})` };
        this.checkZeros(buf.subarray(p));
        return;
      }
      const len = lenHi * 4294967296 + lenLo;
      const end = p + HEADER + len + FOOTER;
      if (end > buf.length) break;
      const data = buf.subarray(p + HEADER, p + HEADER + len);
      const dataStored = u32(buf, p + HEADER + len);
      const dataActual = maskedCrc32c(data);
      if (dataActual !== dataStored) {
        const reason = `data checksum mismatch in a record of ${len} bytes (stored ${hex(dataStored)}, computed ${hex(dataActual)})`;
        if (base + end === this.size) {
          this.tail = { offset, bytes: this.size - offset, reason: `${reason}, the file's last record` };
          return;
        }
        throw new TensorboardError({
          file: this.file,
          offset,
          detail: `${reason}; ${this.size - (base + end)} more bytes follow it, so the file is damaged inside (not the torn end of a killed writer)`,
        });
      }
      onRecord({ offset, data });
      p = end;
    }
    this.carryOffset = base + p;
    // A copy (Buffer#slice would be a view): the caller reuses its read buffer for the next chunk.
    this.carry = new Uint8Array(buf.subarray(p));
  }

  /** Ends the read: the torn tail when the file does not end with a whole record, else null. */
  finish(): TornTail | null {
    if (this.tail) return this.tail;
    if (this.zeroTail) return { offset: this.zeroTail.offset, bytes: this.size - this.zeroTail.offset, reason: "zero bytes where a record belongs" };
    if (this.carry.length === 0) return null;
    const have = this.carry.length;
    if (have < HEADER) return { offset: this.carryOffset, bytes: have, reason: `${have} bytes of a ${HEADER}-byte record header` };
    const len = u32(this.carry, 4) * 4294967296 + u32(this.carry, 0);
    return { offset: this.carryOffset, bytes: have, reason: `a record of ${len} bytes runs past the end of the file` };
  }

  /** After a length that failed its checksum: anything but zeros up to the end means damage inside. */
  private checkZeros(bytes: Uint8Array): void {
    const suspect = this.zeroTail!;
    for (let i = 0; i < bytes.length; i++) {
      if (bytes[i] === 0) continue;
      throw new TensorboardError({
        file: this.file,
        offset: suspect.offset,
        detail: `${suspect.reason}, and the bytes from there on are not all zero: the file is damaged inside (not the torn end of a killed writer)`,
      });
    }
  }
}
