/**
 * The thread that formats and writes one record table's CSV next to the main one (writeExports): it
 * formats the packed table (packed-table.ts, values read from the shared arena chunks) as
 * csvByteChunks would (packed-csv.ts), writes the chunks into the file it is given, hashing them as they go, fsyncs it and
 * answers with the sha256 and size. The main thread meanwhile does other work (the health checks):
 * nothing of the table passes through it. A file may also come in parts (early-record-csv.ts: one
 * run's records at a time, while the main thread aligns the next run): `open`, `part`s, then `close`
 * answers as one whole table does.
 */
import { createHash, type Hash } from "node:crypto";
import { closeSync, fsyncSync, openSync, readlinkSync, writeSync } from "node:fs";
import { setPriority } from "node:os";
import { parentPort } from "node:worker_threads";

import { packedCsvChunks } from "./packed-csv";
import type { PackedTable } from "./packed-table";

/** The table to format and the file to write it into (created or truncated). */
export interface CsvWorkerRequest {
  table: PackedTable;
  file: string;
}
/**
 * A file written in parts, several files at once: opened (created or truncated), a part's rows
 * appended (the first part's header first), closed. Each file is answered once, by a {@link CsvPartReply}.
 */
export type CsvPartRequest = { file: string } & ({ open: true } | { part: PackedTable } | { close: true });
/** A file written in parts, closed or stopped at its first failure. */
export type CsvPartReply = { file: string } & CsvWorkerReply;
/** The file written (its sha256 and bytes), or the error that stopped it (`started`: some byte was written). */
export type CsvWorkerReply = { sha256: string; bytes: number } | { error: string; started: boolean };

/** Writes every byte of `chunk` at the file's current position. */
function writeAll(fd: number, chunk: Uint8Array): void {
  for (let off = 0; off < chunk.byteLength; ) off += writeSync(fd, chunk, off, chunk.byteLength - off);
}

/** A file being written: its descriptor, hash and size so far. */
class HashedFile {
  private readonly fd: number;
  private readonly hash: Hash = createHash("sha256");
  private bytes = 0;
  private closed = false;

  constructor(file: string) {
    this.fd = openSync(file, "w");
  }

  /** Appends a packed table's rows (and its header when asked). */
  append(table: PackedTable, header: boolean): void {
    for (const chunk of packedCsvChunks(table, header)) {
      this.hash.update(chunk);
      writeAll(this.fd, chunk);
      this.bytes += chunk.byteLength;
    }
  }

  /** Fsyncs and closes it: its sha256 and size. */
  close(): { sha256: string; bytes: number } {
    fsyncSync(this.fd);
    this.drop();
    return { sha256: this.hash.digest("hex"), bytes: this.bytes };
  }

  /** Closes it without a sync (after a failure). */
  drop(): void {
    if (!this.closed) closeSync(this.fd);
    this.closed = true;
  }
}

/** Formats, writes, hashes and fsyncs the table's CSV file. */
function writeTable(req: CsvWorkerRequest): { sha256: string; bytes: number } {
  const file = new HashedFile(req.file);
  try {
    file.append(req.table, true);
    return file.close();
  } finally {
    file.drop();
  }
}

/**
 * Lowers this thread's priority (Linux: /proc/thread-self names its thread id; elsewhere nothing):
 * the parts come while the main thread aligns, which must not wait for them.
 */
function yieldToMainThread(): void {
  try {
    const tid = Number(readlinkSync("/proc/thread-self").split("/").pop());
    if (Number.isInteger(tid) && tid > 0) setPriority(tid, 10);
  } catch {
    // No such file (not Linux) or not allowed: printed at the same priority.
  }
}

/** The files of part requests: each answered only on `close`, or on its first failure (its later requests then ignored). */
class PartsFiles {
  private readonly files = new Map<string, { file: HashedFile; parts: number } | "failed">();

  /** The reply to send, if this request ends its file. */
  take(req: CsvPartRequest): CsvPartReply | null {
    const open = this.files.get(req.file);
    if (open === "failed") return null;
    try {
      if ("open" in req) {
        if (this.files.size === 0) yieldToMainThread();
        this.files.set(req.file, { file: new HashedFile(req.file), parts: 0 });
      } else if ("part" in req) open!.file.append(req.part, open!.parts++ === 0);
      else {
        this.files.delete(req.file);
        return { file: req.file, ...open!.file.close() };
      }
      return null;
    } catch (e) {
      if (open !== undefined) open.file.drop();
      this.files.set(req.file, "failed");
      return { file: req.file, error: (e as Error).message, started: true };
    }
  }
}

// An if, not an expression statement: tslab's emit captures a module's last top-level expression.
if (parentPort !== null) {
  const port = parentPort;
  const parts = new PartsFiles();
  port.on("message", (req: CsvWorkerRequest | CsvPartRequest) => {
    if (!("table" in req)) {
      const reply = parts.take(req);
      if (reply !== null) port.postMessage(reply);
      return;
    }
    let reply: CsvWorkerReply;
    try {
      reply = writeTable(req);
    } catch (e) {
      reply = { error: (e as Error).message, started: true };
    }
    port.postMessage(reply);
  });
}
