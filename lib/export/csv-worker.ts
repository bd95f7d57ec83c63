/**
 * The thread that formats one record table's CSV next to the main one (writeExports): it rebuilds
 * the rows from the packed table (packed-table.ts, values read from the shared arena chunks) and
 * sends csvByteChunks' chunks back, their buffers transferred, at most MAX_AHEAD ahead of the writer.
 */
import { parentPort } from "node:worker_threads";

import { csvByteChunks } from "./csv-text";
import { type PackedTable, unpackTable } from "./packed-table";

/** Chunks sent but not yet written (about 4 MB each): bounds the memory when the writer is slower. */
const MAX_AHEAD = 8;

/** Messages from the main thread: the table to format, then one ack per chunk written. */
export type CsvWorkerRequest = { table: PackedTable } | { ack: true };
/** Messages to the main thread: a chunk, the end, or the error that stopped it. */
export type CsvWorkerReply = { chunk: Uint8Array } | { done: true } | { error: string };

// An if, not an expression statement: tslab's emit captures a module's last top-level expression.
if (parentPort !== null) {
  const port = parentPort;
  let ahead = 0;
  let wake: (() => void) | null = null;
  const format = async (table: PackedTable) => {
    for (const chunk of csvByteChunks(unpackTable(table))) {
      ahead++;
      port.postMessage({ chunk } satisfies CsvWorkerReply, [chunk.buffer as ArrayBuffer]);
      while (ahead >= MAX_AHEAD) await new Promise<void>((resolve) => (wake = resolve));
    }
    port.postMessage({ done: true } satisfies CsvWorkerReply);
  };
  port.on("message", (m: CsvWorkerRequest) => {
    if ("ack" in m) {
      ahead--;
      wake?.();
      wake = null;
      return;
    }
    format(m.table).catch((e: Error) => port.postMessage({ error: e.message } satisfies CsvWorkerReply));
  });
}
