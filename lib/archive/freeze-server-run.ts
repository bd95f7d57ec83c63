/**
 * Freezing one server run's history into its frozen file: the part of fetchAndFreeze that runs per
 * run, on the calling thread or on a freeze thread (freeze-worker.ts runs this same function).
 */
import type { RunMeta } from "../types";
import type { WandbConnection } from "../wandb/connection";
import { readHistory, type HistoryPathChoice, type HistoryPathTaken } from "../wandb/read-history";
import { type FrozenFileInfo, FrozenFileWriter } from "./frozen-file-writer";

/** One run to freeze: its metadata (read before), the file to create and how to read it. */
export interface ServerRunJob {
  meta: RunMeta;
  /** Absolute path of the frozen file (created; it must not exist). */
  filePath: string;
  pageSize: number;
  historyPath: HistoryPathChoice;
  /** `HistoryPage` windows asked for at once (the run's share of the fetch's concurrency, pagesPerRun). */
  pagesInFlight: number;
}

/** What freezing one run gives the manifest. */
export interface ServerRunFrozen {
  info: FrozenFileInfo;
  droppedKeys: Record<string, number>;
  taken: HistoryPathTaken;
  /** The run's last step in the snapshot the read was complete against (a running run's grows after the Run query). */
  lastStep: number;
  /** The numeric keys frozen, sorted (the fetch decides the run's framework from them). */
  keys: string[];
}

/** Reads the run's complete history into its frozen file (fsynced); a failure leaves the file incomplete, closed. */
export async function freezeServerRun(conn: WandbConnection, job: ServerRunJob, signal?: AbortSignal): Promise<ServerRunFrozen> {
  const writer = await FrozenFileWriter.create(job.filePath);
  try {
    const scan = await readHistory(conn, job.meta, {
      pageSize: job.pageSize,
      historyPath: job.historyPath,
      pagesInFlight: job.pagesInFlight,
      signal,
      onLines: (lines) => writer.writeLines(lines),
    });
    const info = await writer.close();
    return { info, droppedKeys: scan.droppedKeys, taken: scan.path, lastStep: scan.snapshot.lastStep, keys: scan.keys };
  } catch (e) {
    await writer.abandon();
    throw e;
  }
}
