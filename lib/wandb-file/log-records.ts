/**
 * The framing of a W&B transaction log (`run-<id>.wandb`), a LevelDB-style log: a 7-byte file header
 * (`:W&B`, magic 0xBEE1 little-endian, version 0), then 32 KiB blocks of chunks. A chunk is a 7-byte
 * header (checksum u32 LE, length u16 LE, type u8) and its data; a record that does not fit in the
 * rest of a block is split into first/middle/last chunks; fewer than 7 bytes left in a block are
 * zero padding. The checksum is CRC-32 of the type byte and the data (see crc32.ts).
 *
 * Damage rules: a chunk that fails its checksum or runs past its block is suspect. When nothing valid
 * follows it, it is the torn end of a killed run: the read ends at the last whole record and the
 * tail is reported. When a valid chunk follows, the file is damaged inside: an error naming the
 * byte offset of the suspect chunk.
 */
import { chunkChecksum } from "./crc32";
import { WandbFileError } from "./wandb-file-error";
import type { TornTail } from "../wire/torn-tail";

/** Block size of the log. */
export const LOG_BLOCK_BYTES = 32768;

/** Size of the file header and of every chunk header. */
export const HEADER_BYTES = 7;

/** The file header every W&B transaction log starts with. */
export const FILE_HEADER = Uint8Array.of(0x3a, 0x57, 0x26, 0x42, 0xe1, 0xbe, 0x00); // ":W&B", 0xBEE1 LE, version 0

/** Chunk types. */
export const CHUNK = { zero: 0, full: 1, first: 2, middle: 3, last: 4 } as const;

/** One whole record: its protobuf bytes and the file offset of its first chunk header. */
export interface LogRecord {
  offset: number;
  data: Uint8Array;
}

export type { TornTail };

/** Throws unless `head` (the first 7 bytes) is the header of a W&B transaction log version 0. */
export function checkFileHeader(head: Uint8Array, file: string): void {
  const fail = (detail: string) => new WandbFileError({ file, offset: 0, detail });
  if (head.length < HEADER_BYTES) throw fail(`${head.length} bytes long: too short to be a W&B transaction log (a .wandb file starts with a 7-byte header)`);
  if (FILE_HEADER.subarray(0, 6).some((b, i) => head[i] !== b)) {
    throw fail(`not a W&B transaction log: it starts with ${hex(head.subarray(0, HEADER_BYTES))}, a .wandb file starts with ":W&B" and 0xE1 0xBE`);
  }
  if (head[6] !== 0) throw fail(`transaction log version ${head[6]} is not supported (this reader knows version 0)`);
}

function hex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join(" ");
}

/**
 * Splits the blocks of one log, fed in file order, into whole records. Feed each block with
 * `block()`, then call `finish()` for the torn tail (or null).
 */
export class LogRecordSplitter {
  private parts: Uint8Array[] | null = null;
  private partsOffset = 0;
  private suspect: { offset: number; reason: string } | null = null;
  private size = 0;

  constructor(private readonly file: string) {}

  /**
   * Appends the whole records ending in this block to `out`. `blockStart` is the block's file
   * offset (a multiple of 32 KiB); `atEof` says the file ends with this block.
   */
  block(block: Uint8Array, blockStart: number, atEof: boolean, out: LogRecord[]): void {
    this.size = blockStart + block.length;
    let pos = blockStart === 0 ? HEADER_BYTES : 0;
    while (pos + HEADER_BYTES <= block.length) {
      const offset = blockStart + pos;
      const stored = (block[pos] | (block[pos + 1] << 8) | (block[pos + 2] << 16) | (block[pos + 3] << 24)) >>> 0;
      const len = block[pos + 4] | (block[pos + 5] << 8);
      const type = block[pos + 6];
      if (type === CHUNK.zero && len === 0 && stored === 0) {
        // Zeros: pre-allocated or padded space. Nothing more is written in this block.
        if (atEof || !isZero(block, pos)) this.markSuspect(offset, "zero bytes where a chunk header belongs");
        return;
      }
      const dataEnd = pos + HEADER_BYTES + len;
      if (dataEnd > block.length) {
        const where = atEof && block.length < LOG_BLOCK_BYTES ? "the end of the file" : "the end of its 32 KiB block";
        this.markSuspect(offset, `a chunk of ${len} bytes runs past ${where}`);
        return;
      }
      const data = block.subarray(pos + HEADER_BYTES, dataEnd);
      const actual = chunkChecksum(type, data);
      if (actual !== stored) {
        this.markSuspect(
          offset,
          `chunk checksum mismatch (stored 0x${stored.toString(16).padStart(8, "0")}, computed 0x${actual.toString(16).padStart(8, "0")})`,
        );
        return; // the rest of the block cannot be trusted
      }
      this.validChunk(offset, type, data, out);
      pos = dataEnd;
    }
    if (atEof && pos < block.length && block.length < LOG_BLOCK_BYTES) {
      this.markSuspect(blockStart + pos, `${block.length - pos} bytes of an incomplete chunk header`);
    }
  }

  /** Ends the read: the torn tail when the file ends inside a record, else null. */
  finish(): TornTail | null {
    if (this.suspect) {
      // A record whose first chunks were whole but whose rest is torn: the tail starts with that record.
      const offset = this.parts ? this.partsOffset : this.suspect.offset;
      return { offset, bytes: this.size - offset, reason: this.suspect.reason };
    }
    if (this.parts) {
      return { offset: this.partsOffset, bytes: this.size - this.partsOffset, reason: "a record split over blocks has no last chunk" };
    }
    return null;
  }

  private markSuspect(offset: number, reason: string): void {
    if (!this.suspect) this.suspect = { offset, reason };
  }

  private fail(offset: number, detail: string): WandbFileError {
    return new WandbFileError({ file: this.file, offset, detail });
  }

  private validChunk(offset: number, type: number, data: Uint8Array, out: LogRecord[]): void {
    if (this.suspect) {
      throw this.fail(
        this.suspect.offset,
        `${this.suspect.reason}; a valid chunk follows at byte ${offset}, so the file is damaged inside (not a torn end of a killed run)`,
      );
    }
    if (type === CHUNK.full || type === CHUNK.first) {
      if (this.parts) throw this.fail(this.partsOffset, `a record split over blocks has no last chunk (a new record starts at byte ${offset})`);
      if (type === CHUNK.full) out.push({ offset, data });
      else {
        this.parts = [new Uint8Array(data)]; // a copy: the read buffer is reused (Buffer#slice would be a view)
        this.partsOffset = offset;
      }
    } else if (type === CHUNK.middle || type === CHUNK.last) {
      if (!this.parts) throw this.fail(offset, `a ${type === CHUNK.middle ? "middle" : "last"} chunk without a first chunk before it`);
      this.parts.push(new Uint8Array(data));
      if (type === CHUNK.last) {
        out.push({ offset: this.partsOffset, data: Buffer.concat(this.parts) });
        this.parts = null;
      }
    } else {
      throw this.fail(offset, `unknown chunk type ${type} (known: 1 full, 2 first, 3 middle, 4 last)`);
    }
  }
}

/** True when the block is zero from `pos` to its end. */
function isZero(block: Uint8Array, pos: number): boolean {
  for (let i = pos; i < block.length; i++) if (block[i] !== 0) return false;
  return true;
}
