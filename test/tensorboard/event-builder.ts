/**
 * Builds TensorBoard event files byte by byte for tests: Event protobufs (wall_time, step,
 * summary.value[] with simple_value) framed as TFRecords with their masked CRC-32C. Written from the
 * proto and record_writer.cc layouts, apart from the reader under test.
 */
import { maskedCrc32c } from "../../lib/wire/crc32c";

function varint(n: number): number[] {
  const out: number[] = [];
  while (n >= 0x80) {
    out.push((n % 0x80) | 0x80);
    n = Math.floor(n / 0x80);
  }
  out.push(n);
  return out;
}

function bytesField(field: number, data: Uint8Array | number[]): number[] {
  return [...varint(field * 8 + 2), ...varint(data.length), ...data];
}

/** One `Event` with scalars as simple_value (float32). */
export function scalarEvent(step: number, wallTime: number, scalars: Record<string, number>): Uint8Array {
  const wall = new Uint8Array(8);
  new DataView(wall.buffer).setFloat64(0, wallTime, true);
  const values: number[] = [];
  for (const [tag, v] of Object.entries(scalars)) {
    const f = new Uint8Array(4);
    new DataView(f.buffer).setFloat32(0, v, true);
    values.push(...bytesField(1, [...bytesField(1, new TextEncoder().encode(tag)), 2 * 8 + 5, ...f]));
  }
  return Uint8Array.from([1 * 8 + 1, ...wall, 2 * 8, ...varint(step), ...bytesField(5, values)]);
}

/** The file_version event a writer starts a file with. */
export function versionEvent(wallTime: number): Uint8Array {
  const wall = new Uint8Array(8);
  new DataView(wall.buffer).setFloat64(0, wallTime, true);
  return Uint8Array.from([1 * 8 + 1, ...wall, ...bytesField(3, new TextEncoder().encode("brain.Event:2"))]);
}

/** One TFRecord: u64 length, masked CRC of it, data, masked CRC of the data. */
export function tfRecord(data: Uint8Array): Uint8Array {
  const head = new Uint8Array(8);
  new DataView(head.buffer).setUint32(0, data.length, true);
  const out = new Uint8Array(12 + data.length + 4);
  const view = new DataView(out.buffer);
  out.set(head);
  view.setUint32(8, maskedCrc32c(head), true);
  out.set(data, 12);
  view.setUint32(12 + data.length, maskedCrc32c(data), true);
  return out;
}

/** An event file of the given events; also returns each record's offset. */
export function eventFile(events: Uint8Array[]): { bytes: Uint8Array; offsets: number[] } {
  const records = events.map(tfRecord);
  const offsets: number[] = [];
  let n = 0;
  for (const r of records) {
    offsets.push(n);
    n += r.length;
  }
  const bytes = new Uint8Array(n);
  records.forEach((r, i) => bytes.set(r, offsets[i]));
  return { bytes, offsets };
}
