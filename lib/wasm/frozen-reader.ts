/**
 * One instance of the WebAssembly frozen reader (tools/wasm/src/reader.rs), for one file: its input
 * buffer, and the rows, numbers and key sequences it read, copied out into JavaScript arrays.
 */
import { type WasmExports, wasmInstance } from "./instance";

/** The reader's exports (tools/wasm/src/reader.rs). */
interface ReaderExports {
  reader_input(len: number): number;
  reader_parse(len: number): bigint;
  reader_vals_ptr(): number;
  reader_vals_len(): number;
  reader_rows_ptr(): number;
  reader_rows_len(): number;
  reader_clear(): void;
  reader_shape_count(): number;
  reader_shape_keys_ptr(s: number): number;
  reader_shape_keys_len(s: number): number;
}

/** Keys are UTF-8; bytes that are not make the reader give the file up (the JSON.parse reader decides). */
const UTF8 = new TextDecoder("utf-8", { fatal: true });

export class FrozenReaderWasm {
  private readonly x: WasmExports<ReaderExports>;
  /** The bytes of input the last parse left unread: [from, to). */
  private tail: [number, number] = [0, 0];

  /** A fresh reader; its input buffer starts at `bytes` bytes. */
  constructor(bytes: number) {
    this.x = wasmInstance<ReaderExports>();
    this.x.reader_input(bytes);
  }

  /**
   * Where the next `bytes` bytes of the file go: after the `carry` bytes the last parse left, moved to
   * the buffer's start. Valid until the next call into the reader.
   */
  input(carry: number, bytes: number): Uint8Array {
    const ptr = this.x.reader_input(carry + bytes);
    const mem = new Uint8Array(this.x.memory.buffer);
    const [from, to] = this.tail;
    if (to - from !== carry) throw new Error(`frozen reader: carry ${carry} bytes, the last parse left ${to - from}`);
    mem.copyWithin(ptr, ptr + from, ptr + to);
    return mem.subarray(ptr + carry, ptr + carry + bytes);
  }

  /** Reads the whole lines of the first `len` input bytes: the bytes they take, or -1 when one is not in the canonical form. */
  parse(len: number): number {
    const used = Number(this.x.reader_parse(len));
    this.tail = [Math.max(used, 0), len];
    return used;
  }

  /** A copy of the numbers read since the last clear, row after row, each row's in key order. */
  values(): Float64Array {
    return new Float64Array(this.x.memory.buffer, this.x.reader_vals_ptr(), this.x.reader_vals_len()).slice();
  }

  /** A copy of each row's key-sequence id, since the last clear. */
  rowShapes(): Int32Array {
    return new Int32Array(this.x.memory.buffer, this.x.reader_rows_ptr(), this.x.reader_rows_len()).slice();
  }

  /** Forgets the rows and numbers read so far (key sequences stay). */
  clear(): void {
    this.x.reader_clear();
  }

  /** Key sequences met so far. */
  shapeCount(): number {
    return this.x.reader_shape_count();
  }

  /** The keys of key sequence `s`, or null when they are not valid UTF-8. */
  shapeKeys(s: number): string[] | null {
    const bytes = new Uint8Array(this.x.memory.buffer, this.x.reader_shape_keys_ptr(s), this.x.reader_shape_keys_len(s));
    let text: string;
    try {
      text = UTF8.decode(bytes);
    } catch {
      return null;
    }
    // Each key is followed by a 0 byte, which an unescaped key cannot hold.
    return text.split("\u0000").slice(0, -1);
  }
}
