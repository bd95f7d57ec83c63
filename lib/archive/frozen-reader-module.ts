/**
 * One instance of the WebAssembly frozen reader (tools/frozen-reader/src/lib.rs), for one file: its
 * input buffer, and the rows, numbers and key sequences it read, copied out into JavaScript arrays.
 * The module's bytes are embedded (frozen-reader-wasm.ts), so it loads the same way under tsx, the
 * kernels' prebuilt lib, the bundled CLI and their worker threads, with no file to find.
 */
import { FROZEN_READER_WASM_BASE64 } from "./frozen-reader-wasm";

/** The part of Node's WebAssembly API used here (the project's ES2022 lib, as tslab's, does not declare it). */
interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: unknown };
}
const WASM = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;

/** The reader's exports (see lib.rs). */
interface ReaderExports {
  memory: { buffer: ArrayBuffer };
  input(len: number): number;
  parse(len: number): bigint;
  vals_ptr(): number;
  vals_len(): number;
  rows_ptr(): number;
  rows_len(): number;
  clear(): void;
  shape_count(): number;
  shape_keys_ptr(s: number): number;
  shape_keys_len(s: number): number;
}

/** Keys are UTF-8; bytes that are not make the reader give the file up (the JSON.parse reader decides). */
const UTF8 = new TextDecoder("utf-8", { fatal: true });

export class FrozenReaderWasm {
  /** Compiled once per thread, on first use (24 KB; about a millisecond). */
  private static compiled: object | null = null;
  private readonly x: ReaderExports;
  /** The bytes of input the last parse left unread: [from, to). */
  private tail: [number, number] = [0, 0];

  /** A fresh reader; its input buffer starts at `bytes` bytes. */
  constructor(bytes: number) {
    FrozenReaderWasm.compiled ??= new WASM.Module(Buffer.from(FROZEN_READER_WASM_BASE64, "base64"));
    this.x = new WASM.Instance(FrozenReaderWasm.compiled, {}).exports as unknown as ReaderExports;
    this.x.input(bytes);
  }

  /**
   * Where the next `bytes` bytes of the file go: after the `carry` bytes the last parse left, moved to
   * the buffer's start. Valid until the next call into the reader.
   */
  input(carry: number, bytes: number): Uint8Array {
    const ptr = this.x.input(carry + bytes);
    const mem = new Uint8Array(this.x.memory.buffer);
    const [from, to] = this.tail;
    if (to - from !== carry) throw new Error(`frozen reader: carry ${carry} bytes, the last parse left ${to - from}`);
    mem.copyWithin(ptr, ptr + from, ptr + to);
    return mem.subarray(ptr + carry, ptr + carry + bytes);
  }

  /** Reads the whole lines of the first `len` input bytes: the bytes they take, or -1 when one is not in the canonical form. */
  parse(len: number): number {
    const used = Number(this.x.parse(len));
    this.tail = [Math.max(used, 0), len];
    return used;
  }

  /** A copy of the numbers read since the last clear, row after row, each row's in key order. */
  values(): Float64Array {
    return new Float64Array(this.x.memory.buffer, this.x.vals_ptr(), this.x.vals_len()).slice();
  }

  /** A copy of each row's key-sequence id, since the last clear. */
  rowShapes(): Int32Array {
    return new Int32Array(this.x.memory.buffer, this.x.rows_ptr(), this.x.rows_len()).slice();
  }

  /** Forgets the rows and numbers read so far (key sequences stay). */
  clear(): void {
    this.x.clear();
  }

  /** Key sequences met so far. */
  shapeCount(): number {
    return this.x.shape_count();
  }

  /** The keys of key sequence `s`, or null when they are not valid UTF-8. */
  shapeKeys(s: number): string[] | null {
    const bytes = new Uint8Array(this.x.memory.buffer, this.x.shape_keys_ptr(s), this.x.shape_keys_len(s));
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
