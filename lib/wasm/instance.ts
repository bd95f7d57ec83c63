/**
 * Instances of the workspace's WebAssembly module (tools/wasm: the frozen history reader and the packed
 * CSV printer). Its bytes are embedded (wasm-bytes.ts), so it loads the same way under tsx, the kernels'
 * prebuilt lib, the bundled CLI and their worker threads, with no file to find. An instance serves one
 * file or one table: its memory only grows, and goes with it.
 */
import { WASM_BASE64 } from "./wasm-bytes";

/** The part of Node's WebAssembly API used here (the project's ES2022 lib, as tslab's, does not declare it). */
interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: unknown };
}

/** An instance's exports: its memory, and the functions `T` declares (see tools/wasm/src/). */
export type WasmExports<T> = T & { memory: { buffer: ArrayBuffer } };

/** The module compiled once per thread, on first use (tens of KB; about a millisecond). */
const compiled: { module: object | null } = { module: null };

/** A fresh instance of the module, its exports typed as `T`. */
export function wasmInstance<T>(): WasmExports<T> {
  const api = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;
  compiled.module ??= new api.Module(Buffer.from(WASM_BASE64, "base64"));
  return new api.Instance(compiled.module, {}).exports as WasmExports<T>;
}
