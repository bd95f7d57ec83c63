/**
 * Freezing one run from a local `.wandb` transaction log into an archive being written: the same
 * frozen file format and manifest fields as a server run, plus the file's name, sha256, SDK version
 * and exit code under `source` (and no server).
 */
import * as path from "node:path";

import type { ManifestRun, Reporter } from "../types";
import { readWandbFile, type WandbFileRun } from "../wandb-file/read-wandb-file";
import { FrozenFileWriter, type FrozenFileInfo } from "./frozen-file-writer";
import { frozenManifestRun, historyFile } from "./manifest";

/** A run to freeze from a `.wandb` file: its path, the run id it must hold and the round label. */
export interface WandbFileSelection {
  runId: string;
  round: string;
  /** Path of the `.wandb` file (already located, see lib/wandb-file/locate-wandb-file.ts). */
  file: string;
}

/**
 * Reads `sel.file` and writes its rows to `<archiveTmp>/history/<runId>.jsonl`; returns the run's
 * manifest entry. Throws `WandbFileError` (file, byte offset) on a damaged or foreign file.
 */
export async function freezeWandbFileRun(
  sel: WandbFileSelection,
  archiveTmp: string,
  fetchedAt: () => string,
  reporter: Reporter,
  signal?: AbortSignal,
): Promise<ManifestRun> {
  const file = historyFile(sel.runId);
  const writer = await FrozenFileWriter.create(path.join(archiveTmp, file));
  let info: FrozenFileInfo;
  let run: WandbFileRun;
  try {
    run = await readWandbFile(sel.file, { expectRunId: sel.runId, reporter, signal, onRows: (rows) => writer.writeRows(rows) });
    info = await writer.close();
  } catch (e) {
    await writer.abandon();
    throw e;
  }
  const source = {
    kind: "wandb-file" as const,
    file: run.fileName,
    sha256: run.sha256,
    bytes: run.bytes,
    sdkVersion: run.sdkVersion,
    exitCode: run.exitCode,
    server: null,
  };
  return frozenManifestRun({ ...run, createdAt: run.startedAt }, sel.round, file, info, fetchedAt(), { source });
}
