/**
 * The thread that reads history files next to the main one (loadArchive's compact mode): each file is
 * read, hashed and parsed exactly as on the main thread (readHistoryInto), and its rows sent back
 * packed (compact-values PackedRows), their number chunks transferred, not copied.
 */
import { parentPort } from "node:worker_threads";

import type { ManifestRun } from "../types";
import { PackedRows, ValuesArena } from "../values/compact-values";
import { ValuesBuilder } from "../values/values-builder";
import { ArchiveChangedError, readHistoryInto } from "./load-archive";

/** A file to read. */
export interface LoadJob {
  id: number;
  filePath: string;
  run: ManifestRun;
}

// An if, not an expression statement: tslab's emit captures a module's last top-level expression.
if (parentPort !== null) {
  const port = parentPort;
  port.on("message", (job: LoadJob) => {
    // Packed as parsed: the views die young, so the collector never walks millions of live rows here.
    const rows = new PackedRows();
    readHistoryInto(job.filePath, job.run, {}, new ValuesBuilder(new ValuesArena()), rows).then(
      () => {
        // This job's arena made these chunks and no other: the receiver owns them.
        const packed = { ...rows.packed(), own: true };
        port.postMessage({ id: job.id, packed }, packed.chunks);
      },
      (e: Error) => port.postMessage({ id: job.id, error: e.message, changed: e instanceof ArchiveChangedError }),
    );
  });
}
