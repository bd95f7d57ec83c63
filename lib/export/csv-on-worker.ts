/**
 * A record table's CSV file formatted and written on a worker thread (csv-worker.ts), so that
 * writeExports writes the two record tables at once on two cores while this thread goes on (the health
 * checks). Same bytes as csvByteChunks on this thread (the worker runs it on the same cells); when the
 * worker cannot start or stops, the file is written here from scratch.
 */
import { Worker } from "node:worker_threads";

import { workerCode } from "../archive/worker-code";
import type { CsvWorkerReply, CsvWorkerRequest } from "./csv-worker";
import { packBuffers, type PackedTable } from "./packed-table";

/**
 * A CSV worker thread (csv-worker.ts), or null when it cannot start. A small young generation: the
 * printer's garbage is short-lived, and every MB of it is resident beside the main thread's heap.
 */
export function startCsvWorker(): Worker | null {
  try {
    return new Worker(workerCode("csv-worker"), { eval: true, resourceLimits: { maxYoungGenerationSizeMb: 8 } });
  } catch {
    return null;
  }
}

/** What a written file is: its sha256 (hex) and size. */
export interface WrittenFile {
  sha256: string;
  bytes: number;
}

/**
 * Writes `table` as CSV into `file` on a worker (the worker hashes and fsyncs it). When the worker
 * cannot start, exits or fails, `here(file)` writes the whole file on this thread instead: a table
 * that cannot be formatted then throws there, with this thread's message.
 */
export async function writeCsvOnWorker(table: PackedTable, file: string, here: (file: string) => Promise<WrittenFile>): Promise<WrittenFile> {
  const worker = startCsvWorker();
  if (worker === null) return here(file);
  const reply = new Promise<CsvWorkerReply>((resolve) => {
    worker.on("message", resolve);
    worker.on("error", (e) => resolve({ error: e.message, started: false }));
    worker.on("exit", (code) => resolve({ error: `exited with code ${code}`, started: false }));
  });
  try {
    // Transferred (this thread does not need them again); the value chunks are shared.
    worker.postMessage({ table, file } satisfies CsvWorkerRequest, packBuffers(table));
    const r = await reply;
    return "error" in r ? await here(file) : r;
  } finally {
    await worker.terminate();
  }
}
