/**
 * A record table's CSV chunks formatted on a worker thread (csv-worker.ts), so that writeExports
 * formats the two record tables at once on two cores. Same bytes as csvByteChunks on this thread
 * (the worker runs it on the same cells); when the worker cannot start, the table is formatted here.
 */
import { Worker } from "node:worker_threads";

import { workerCode } from "../archive/worker-code";
import type { CsvWorkerReply, CsvWorkerRequest } from "./csv-worker";
import { packBuffers, type PackedTable } from "./packed-table";

/**
 * The CSV bytes of `table` in chunks made on a worker, acknowledged as the caller consumes them
 * (the worker stays a few chunks ahead). Falls back to `here()` when the worker fails before its
 * first chunk; a later failure throws, naming the table.
 */
export async function* csvChunksOnWorker(table: PackedTable, here: () => Iterable<Uint8Array>): AsyncGenerator<Uint8Array, void, undefined> {
  const queue: CsvWorkerReply[] = [];
  let failure: Error | null = null;
  let wake: (() => void) | null = null;
  const notify = () => {
    wake?.();
    wake = null;
  };
  let worker: Worker;
  try {
    worker = new Worker(workerCode("csv-worker"), { eval: true });
  } catch {
    yield* here();
    return;
  }
  let finished = false;
  worker.on("message", (m: CsvWorkerReply) => {
    queue.push(m);
    notify();
  });
  worker.on("error", (e) => {
    failure ??= e;
    notify();
  });
  worker.on("exit", (code) => {
    if (!finished) failure ??= new Error(`exited with code ${code}`);
    notify();
  });
  // Transferred (this thread does not need them again); the value chunks are shared.
  worker.postMessage({ table } satisfies CsvWorkerRequest, packBuffers(table));
  let received = 0;
  try {
    for (;;) {
      while (queue.length === 0 && failure === null) await new Promise<void>((resolve) => (wake = resolve));
      const m = queue.shift();
      if (m === undefined || "error" in m) {
        const why = m !== undefined && "error" in m ? m.error : (failure as Error | null)?.message;
        if (received > 0) throw new Error(`invalid export of ${table.name}: the CSV worker failed after ${received} chunk(s): ${why}`);
        finished = true;
        yield* here();
        return;
      }
      if ("done" in m) {
        finished = true;
        return;
      }
      received++;
      yield m.chunk;
      worker.postMessage({ ack: true } satisfies CsvWorkerRequest);
    }
  } finally {
    finished = true;
    await worker.terminate();
  }
}
