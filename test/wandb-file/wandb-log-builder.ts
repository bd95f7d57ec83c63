/**
 * Test helper: writes W&B transaction logs by hand from the public formats (protobuf wire encoding,
 * LevelDB log framing with W&B's file header and CRC-32), so reader tests control every byte.
 */
import * as zlib from "node:zlib";

/** Protobuf field with a varint value. */
export function pbVarint(field: number, value: number): Buffer {
  return Buffer.concat([varint(field * 8), varint(value)]);
}

/** Protobuf int32 field (negative values as 10-byte two's complement varints). */
export function pbInt32(field: number, value: number): Buffer {
  if (value >= 0) return pbVarint(field, value);
  const bytes: number[] = [];
  let v = BigInt.asUintN(64, BigInt(value));
  while (v >= 0x80n) {
    bytes.push(Number(v & 0x7fn) | 0x80);
    v >>= 7n;
  }
  bytes.push(Number(v));
  return Buffer.concat([varint(field * 8), Buffer.from(bytes)]);
}

/** Protobuf length-delimited field (string or sub-message). */
export function pbBytes(field: number, value: string | Uint8Array): Buffer {
  const data = typeof value === "string" ? Buffer.from(value, "utf8") : Buffer.from(value);
  return Buffer.concat([varint(field * 8 + 2), varint(data.length), data]);
}

/** Protobuf double field. */
export function pbDouble(field: number, value: number): Buffer {
  const b = Buffer.alloc(8);
  b.writeDoubleLE(value);
  return Buffer.concat([varint(field * 8 + 1), b]);
}

function varint(n: number): Buffer {
  const out: number[] = [];
  while (n >= 0x80) {
    out.push((n % 128) | 0x80);
    n = Math.floor(n / 128);
  }
  out.push(n);
  return Buffer.from(out);
}

/** One history item: `key` (old Python writer) or `nested` (wandb-core), with its value_json. */
export interface ItemSpec {
  key?: string;
  nested?: string[];
  json: string;
}

function item(spec: ItemSpec): Buffer {
  const parts: Buffer[] = [];
  if (spec.key !== undefined) parts.push(pbBytes(1, spec.key));
  for (const k of spec.nested ?? []) parts.push(pbBytes(2, k));
  parts.push(pbBytes(16, spec.json));
  return Buffer.concat(parts);
}

/** Record { num, history { item..., step { num } } }; `step` null leaves the step out. */
export function historyRecord(items: ItemSpec[], step: number | null = null, num = 0): Buffer {
  const h = Buffer.concat([...items.map((i) => pbBytes(1, item(i))), ...(step === null ? [] : [pbBytes(2, step === 0 ? Buffer.alloc(0) : pbVarint(1, step))])]);
  return Buffer.concat([num ? pbVarint(1, num) : Buffer.alloc(0), pbBytes(2, h)]);
}

/** Record { run { run_id, entity, project, display_name, start_time, telemetry { cli_version } } }. */
export function runRecord(r: { runId: string; entity?: string; project?: string; displayName?: string; startSeconds?: number; cliVersion?: string }): Buffer {
  const parts = [pbBytes(1, r.runId)];
  if (r.entity) parts.push(pbBytes(2, r.entity));
  if (r.project) parts.push(pbBytes(3, r.project));
  if (r.displayName) parts.push(pbBytes(8, r.displayName));
  if (r.startSeconds !== undefined) parts.push(pbBytes(17, Buffer.concat([pbVarint(1, r.startSeconds), pbVarint(2, 250_000_000)])));
  if (r.cliVersion) parts.push(pbBytes(19, pbBytes(5, r.cliVersion)));
  return pbBytes(17, Buffer.concat(parts));
}

/** Record { exit { exit_code } } (code 0 written as proto3 does: left out). */
export function exitRecord(code: number): Buffer {
  return pbBytes(18, code === 0 ? Buffer.alloc(0) : pbInt32(1, code));
}

/** Record { summary { update { key, value_json }... } }. */
export function summaryRecord(items: ItemSpec[]): Buffer {
  return pbBytes(3, Buffer.concat(items.map((i) => pbBytes(1, item(i)))));
}

/** Record { header { version_info { producer } } }. */
export function headerRecord(producer: string): Buffer {
  return pbBytes(21, pbBytes(1, pbBytes(1, producer)));
}

/** Record { output_raw { line } } (a kind the reader skips). */
export function outputRecord(text: string): Buffer {
  return pbBytes(13, pbBytes(2, text));
}

/** A record kind no SDK up to 0.31 writes (field 999), with the envelope's num. */
export function unknownRecord(num: number): Buffer {
  return Buffer.concat([pbVarint(1, num), pbBytes(999, "from the future")]);
}

const BLOCK = 32768;
const HEADER = Buffer.from([0x3a, 0x57, 0x26, 0x42, 0xe1, 0xbe, 0x00]);

/** The chunk checksum: CRC-32 (IEEE) of the type byte then the data. */
export function checksum(type: number, data: Uint8Array): number {
  return zlib.crc32(data, zlib.crc32(Buffer.from([type]))) >>> 0;
}

/** Where each record's first chunk header starts, with the log bytes. */
export interface BuiltLog {
  bytes: Buffer;
  offsets: number[];
}

/** A whole log: the W&B file header, then each record framed as LevelDB does (full/first/middle/last, zero padding). */
export function buildLog(records: Uint8Array[]): BuiltLog {
  const out: Buffer[] = [HEADER];
  let pos = HEADER.length;
  const offsets: number[] = [];
  for (const rec of records) {
    let rest = Buffer.from(rec);
    let first = true;
    offsets.push(-1);
    let done = false;
    while (!done) {
      const left = BLOCK - (pos % BLOCK);
      if (left < 7) {
        out.push(Buffer.alloc(left));
        pos += left;
        continue;
      }
      if (first) offsets[offsets.length - 1] = pos;
      const take = Math.min(rest.length, left - 7);
      const last = take === rest.length;
      const type = first && last ? 1 : first ? 2 : last ? 4 : 3;
      const data = rest.subarray(0, take);
      const head = Buffer.alloc(7);
      head.writeUInt32LE(checksum(type, data), 0);
      head.writeUInt16LE(data.length, 4);
      head[6] = type;
      out.push(head, data);
      pos += 7 + data.length;
      rest = rest.subarray(take);
      first = false;
      done = last;
    }
  }
  return { bytes: Buffer.concat(out), offsets };
}
