/**
 * The fast way to read a frozen history file into packed rows: a WebAssembly reader
 * (tools/wasm/src/reader.rs, Rust) scans lines in the canonical form the freeze writes
 * (lib/values/frozen-row.ts) and hands back, per read chunk, every row's key-sequence id and its
 * numbers in one array, so no JSON object, string or view is made per row. It takes half the CPU of
 * `JSON.parse` and packing (bench/RESULTS.md). It reads only what it is sure of: a line in any other
 * form, a key V8 would reorder (array index, `__proto__`) or repeat, a bad `_step`, a wrong hash, size
 * or row count, all make it return null, and the caller reads the file with the JSON.parse reader
 * (readHistoryInto), which accepts or refuses it with its usual message. Same rows either way
 * (tested on every fixture, random numbers and each of those cases).
 */
import { createHash } from "node:crypto";
import { promises as fsp } from "node:fs";

import type { ManifestRun, Reporter } from "../types";
import type { PackedViews } from "../values/compact-values";
import { keepsInsertionOrder } from "../values/frozen-row";
import { FrozenReaderWasm } from "../wasm/frozen-reader";
import { FILE_START, MAX_LINE_CHARS, READ_CHUNK_BYTES, StepOrder } from "./history-lines";

/** The key sequences met so far: their keys, and where `_step` is in each (-1: absent). */
interface Shapes {
  keys: string[][];
  stepAt: number[];
}

/** What one chunk's rows became: their numbers (one arena chunk) and per row its key sequence and offset. */
interface ChunkRows {
  values: Float64Array;
  shape: Int32Array;
  at: Int32Array;
}

/**
 * Reads and verifies one frozen history file as readHistoryInto does, into packed rows that own their
 * chunks; null when the file is not one the WebAssembly reader is sure of (read it with readHistoryInto).
 */
export async function readCanonicalHistory(filePath: string, run: ManifestRun, reporter: Reporter = {}): Promise<PackedViews | null> {
  // Any failure, a missing file included, is left to the JSON.parse reader, whose messages name it.
  const handle = await fsp.open(filePath, "r").catch(() => null);
  if (handle === null) return null;
  try {
    return await readOpened(handle, run, reporter);
  } catch {
    return null;
  } finally {
    await handle.close();
  }
}

async function readOpened(handle: fsp.FileHandle, run: ManifestRun, reporter: Reporter): Promise<PackedViews | null> {
  const task = `load ${run.runId}`;
  const wasm = new FrozenReaderWasm(Math.min(READ_CHUNK_BYTES, run.bytes + 1));
  const hash = createHash("sha256");
  const shapes: Shapes = { keys: [], stepAt: [] };
  const steps = new StepOrder(run, { ...FILE_START });
  const chunks: ChunkRows[] = [];
  let rows = 0;
  let bytes = 0;
  let carry = 0;
  reporter.progress?.(task, 0, run.historyEvents);
  for (;;) {
    const into = wasm.input(carry, READ_CHUNK_BYTES);
    const { bytesRead } = await handle.read(into, 0, into.length, null);
    if (bytesRead === 0) break;
    hash.update(into.subarray(0, bytesRead));
    bytes += bytesRead;
    const used = wasm.parse(carry + bytesRead);
    if (used < 0 || !learnShapes(wasm, shapes)) return null;
    const chunk = takeRows(wasm, shapes, steps);
    if (chunk === null) return null;
    if (chunk.shape.length > 0) chunks.push(chunk);
    rows += chunk.shape.length;
    carry = carry + bytesRead - used;
    if (carry > MAX_LINE_CHARS) return null;
    reporter.progress?.(task, rows, run.historyEvents);
  }
  const whole = carry === 0 && bytes === run.bytes && rows === run.historyEvents && hash.digest("hex") === run.sha256;
  return whole ? packedOf(chunks, shapes) : null;
}

/** Decodes the key sequences the reader met since the last call; false when one is not sure to read as JSON.parse reads it. */
function learnShapes(wasm: FrozenReaderWasm, shapes: Shapes): boolean {
  for (let s = shapes.keys.length; s < wasm.shapeCount(); s++) {
    const keys = wasm.shapeKeys(s);
    if (keys === null || !keepsInsertionOrder(keys) || new Set(keys).size !== keys.length) return false;
    shapes.keys.push(keys);
    shapes.stepAt.push(keys.indexOf("_step"));
  }
  return true;
}

/** The rows the last parse read, copied out of the reader, their `_step`s checked; null on a bad `_step`. */
function takeRows(wasm: FrozenReaderWasm, shapes: Shapes, steps: StepOrder): ChunkRows | null {
  const values = wasm.values();
  const shape = wasm.rowShapes();
  const at = new Int32Array(shape.length);
  let offset = 0;
  for (let r = 0; r < shape.length; r++) {
    at[r] = offset;
    const stepAt = shapes.stepAt[shape[r]];
    if (steps.take(stepAt < 0 ? undefined : values[offset + stepAt]) !== null) return null;
    offset += shapes.keys[shape[r]].length;
  }
  wasm.clear();
  return { values, shape, at };
}

/** The chunks' rows as one PackedViews (each chunk's numbers an arena chunk these rows alone own). */
function packedOf(chunks: readonly ChunkRows[], shapes: Shapes): PackedViews {
  const n = chunks.reduce((a, c) => a + c.shape.length, 0);
  const chunk = new Int32Array(n);
  const at = new Int32Array(n);
  const shape = new Int32Array(n);
  let row = 0;
  chunks.forEach((c, i) => {
    chunk.fill(i, row, row + c.shape.length);
    at.set(c.at, row);
    shape.set(c.shape, row);
    row += c.shape.length;
  });
  return { chunks: chunks.map((c) => c.values.buffer as ArrayBuffer), chunk, at, shape, shapes: shapes.keys, own: true };
}
