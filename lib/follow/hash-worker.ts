/**
 * The thread that hashes a followed archive's history files while the follow's own thread parses the
 * new bytes and aligns (lib/follow/file-hasher.ts): every byte streamed through sha256, with the
 * digest of the first `prefix` bytes taken on the way.
 */
import { parentPort } from "node:worker_threads";

import { hashFilePrefixes } from "../archive/snapshot-chain";

/** A file to hash, and how many of its first bytes to hash apart. */
export interface HashJob {
  id: number;
  filePath: string;
  prefix: number;
}

// An if, not an expression statement: tslab's emit captures a module's last top-level expression.
if (parentPort !== null) {
  const port = parentPort;
  port.on("message", (job: HashJob) => {
    hashFilePrefixes(job.filePath, [job.prefix]).then(
      (hashed) => port.postMessage({ id: job.id, hashed }),
      (e: NodeJS.ErrnoException) => port.postMessage({ id: job.id, error: e.message, code: e.code ?? null }),
    );
  });
}
