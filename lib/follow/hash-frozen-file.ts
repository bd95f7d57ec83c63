/** The hash state of a frozen file found in an archive, so that a follow can append to it without hashing it again. */
import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";

import type { ManifestRun } from "../types";
import type { FrozenFileState } from "../archive/frozen-file-writer";

/**
 * Hashes `file` in one streamed pass; throws naming run and file unless its size and sha256 are the
 * manifest's (a file changed after it was frozen is never appended to).
 */
export async function hashFrozenFile(file: string, entry: ManifestRun): Promise<FrozenFileState> {
  const hash = createHash("sha256");
  let bytes = 0;
  for await (const chunk of createReadStream(file)) {
    hash.update(chunk as Buffer);
    bytes += (chunk as Buffer).length;
  }
  const sha256 = hash.copy().digest("hex");
  if (bytes !== entry.bytes || sha256 !== entry.sha256) {
    throw new Error(
      `run ${entry.runId}: ${file} has ${bytes} bytes hashing to ${sha256.slice(0, 12)}, the manifest froze ${entry.bytes} bytes hashing to ${entry.sha256.slice(0, 12)}: changed after it was frozen, not appended to`,
    );
  }
  return { hash, bytes, rows: entry.historyEvents };
}
