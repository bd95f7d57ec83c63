/**
 * The thread that reads history files next to the main one (loadArchive's compact mode): each file is
 * read, hashed and parsed exactly as on the main thread (the WebAssembly reader, else readHistoryInto),
 * and its rows sent back packed (compact-values PackedViews), their number chunks transferred, not copied.
 */
import { parentPort } from "node:worker_threads";

import type { ManifestRun } from "../types";
import { type PackedViews, PackedRows, ValuesArena } from "../values/compact-values";
import { ValuesBuilder } from "../values/values-builder";
import { readCanonicalHistory } from "./frozen-reader";
import { ArchiveChangedError, readHistoryInto } from "./load-archive";

/** A file to read. */
export interface LoadJob {
  id: number;
  filePath: string;
  run: ManifestRun;
}

/** A file's rows packed: by the WebAssembly reader, or by the JSON.parse reader when that one gives the file up. */
async function readPacked(job: LoadJob): Promise<PackedViews> {
  const fast = await readCanonicalHistory(job.filePath, job.run);
  if (fast !== null) return fast;
  // Packed as parsed: the views die young, so the collector never walks millions of live rows here.
  const rows = new PackedRows();
  await readHistoryInto(job.filePath, job.run, {}, new ValuesBuilder(new ValuesArena()), rows);
  // This job's arena made these chunks and no other: the receiver owns them.
  return { ...rows.packed(), own: true };
}

// An if, not an expression statement: tslab's emit captures a module's last top-level expression.
if (parentPort !== null) {
  const port = parentPort;
  port.on("message", (job: LoadJob) => {
    readPacked(job).then(
      (packed) => port.postMessage({ id: job.id, packed }, packed.chunks),
      (e: Error) => port.postMessage({ id: job.id, error: e.message, changed: e instanceof ArchiveChangedError }),
    );
  });
}
