/**
 * Reads one TensorBoard event file in a single streaming pass: every record's two checksums are
 * verified, the file's sha256 is computed from the same bytes, and each event's scalars go to the
 * caller in file order (memory stays one read buffer and one unfinished record).
 */
import { createHash } from "node:crypto";
import { promises as fsp } from "node:fs";
import * as path from "node:path";

import { WireError } from "../wire/protobuf-wire";
import { decodeEvent, type DecodedEvent } from "./event-message";
import { TensorboardError } from "./tensorboard-error";
import { TfRecordSplitter, type TornTail } from "./tfrecord-splitter";

/** Bytes read at a time. */
const READ_BYTES = 1 << 20;

/** What one event file held, besides the events handed to the caller. */
export interface EventFileInfo {
  /** File name only (no folder: it goes into shared manifests). */
  fileName: string;
  sha256: string;
  bytes: number;
  /** `file_version` of the file's first event ("brain.Event:2"), null when none. */
  fileVersion: string | null;
  /** Records read (events). */
  events: number;
  /** The end of the file that held no whole record (a killed writer), or null. */
  tornTail: TornTail | null;
}

/** Receives each event of a file with the byte offset of its record. */
export type OnEvent = (event: DecodedEvent, offset: number) => void;

/**
 * Reads an event file; throws `TensorboardError` naming file and byte offset for damage inside the
 * file, a record that is not an `Event`, or a step that is not a non-negative integer.
 * @example const info = await readEventFile("runs/exp1/events.out.tfevents.1700000000.host.1.0", (ev) => console.log(ev.step));
 */
export async function readEventFile(file: string, onEvent: OnEvent, signal?: AbortSignal, configTags?: ReadonlySet<string>): Promise<EventFileInfo> {
  let handle: fsp.FileHandle;
  try {
    handle = await fsp.open(file, "r");
  } catch (e) {
    throw new TensorboardError({ file, offset: null, detail: `cannot open (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`, cause: e });
  }
  try {
    const size = (await handle.stat()).size; // a file still being written is read up to its size now
    const hash = createHash("sha256");
    const splitter = new TfRecordSplitter(file, size);
    const buf = Buffer.alloc(Math.min(READ_BYTES, Math.max(size, 1)));
    const info = { fileVersion: null as string | null, events: 0 };
    const onRecord = (rec: { offset: number; data: Uint8Array }) => {
      const ev = decodeRecord(file, rec.data, rec.offset, configTags);
      if (info.events === 0) info.fileVersion = ev.fileVersion;
      info.events++;
      onEvent(ev, rec.offset);
    };
    let pos = 0;
    while (pos < size) {
      signal?.throwIfAborted();
      const { bytesRead } = await handle.read(buf, 0, Math.min(buf.length, size - pos), pos);
      if (bytesRead === 0) break;
      const chunk = buf.subarray(0, bytesRead);
      hash.update(chunk);
      splitter.chunk(chunk, onRecord);
      pos += bytesRead;
    }
    return {
      fileName: path.basename(file),
      sha256: hash.digest("hex"),
      bytes: pos,
      fileVersion: info.fileVersion,
      events: info.events,
      tornTail: splitter.finish(),
    };
  } finally {
    await handle.close();
  }
}

/** One record as an `Event` with a usable step. */
function decodeRecord(file: string, data: Uint8Array, offset: number, configTags?: ReadonlySet<string>): DecodedEvent {
  let ev: DecodedEvent;
  try {
    ev = decodeEvent(data, configTags);
  } catch (e) {
    if (!(e instanceof WireError)) throw e;
    throw new TensorboardError({ file, offset, detail: `a record of ${data.length} bytes is not a valid Event protobuf (${e.message})`, cause: e });
  }
  if (ev.hasSummary && (!Number.isSafeInteger(ev.step) || ev.step < 0)) {
    throw new TensorboardError({ file, offset, detail: `an event with step ${ev.step}: steps must be non-negative integers below 2^53` });
  }
  return ev;
}
