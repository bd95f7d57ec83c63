/**
 * The thread that formats and writes one record table's CSV next to the main one (writeExports): it
 * formats the packed table (packed-table.ts, values read from the shared arena chunks) as
 * csvByteChunks would (packed-csv.ts), writes the chunks into the file it is given, hashing them as they go, fsyncs it and
 * answers with the sha256 and size. The main thread meanwhile does other work (the health checks):
 * nothing of the table passes through it.
 */
import { createHash } from "node:crypto";
import { closeSync, fsyncSync, openSync, writeSync } from "node:fs";
import { parentPort } from "node:worker_threads";

import { packedCsvChunks } from "./packed-csv";
import type { PackedTable } from "./packed-table";

/** The table to format and the file to write it into (created or truncated). */
export interface CsvWorkerRequest {
  table: PackedTable;
  file: string;
}
/** The file written (its sha256 and bytes), or the error that stopped it (`started`: some byte was written). */
export type CsvWorkerReply = { sha256: string; bytes: number } | { error: string; started: boolean };

/** Writes every byte of `chunk` at the file's current position. */
function writeAll(fd: number, chunk: Uint8Array): void {
  for (let off = 0; off < chunk.byteLength; ) off += writeSync(fd, chunk, off, chunk.byteLength - off);
}

/** Formats, writes, hashes and fsyncs the table's CSV file. */
function writeTable(req: CsvWorkerRequest): { sha256: string; bytes: number } {
  const hash = createHash("sha256");
  let bytes = 0;
  const fd = openSync(req.file, "w");
  try {
    for (const chunk of packedCsvChunks(req.table)) {
      hash.update(chunk);
      writeAll(fd, chunk);
      bytes += chunk.byteLength;
    }
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  return { sha256: hash.digest("hex"), bytes };
}

// An if, not an expression statement: tslab's emit captures a module's last top-level expression.
if (parentPort !== null) {
  const port = parentPort;
  port.on("message", (req: CsvWorkerRequest) => {
    let reply: CsvWorkerReply;
    try {
      reply = writeTable(req);
    } catch (e) {
      reply = { error: (e as Error).message, started: true };
    }
    port.postMessage(reply);
  });
}
