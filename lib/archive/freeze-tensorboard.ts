/**
 * Freezing one run from TensorBoard event files (a log directory or one file) into an archive being
 * written: the same frozen file format as a W&B run, one row per step (each tag a key, `_step` = the
 * event step, `_timestamp` = the wall time), the values a restart re-logged before the re-logged steps,
 * and a `source` naming every file with its sha256 and size, the scalars superseded, the restarts and
 * the summaries dropped. No server.
 */
import * as path from "node:path";

import type { Reporter, TensorboardSource } from "../types";
import { allConfigTextTags } from "../registry/profiles";
import { readTensorboardRun, type TensorboardRun } from "../tensorboard/read-tensorboard-run";
import { configFacts } from "./run-config-facts";
import { FrozenFileWriter, type FrozenFileInfo } from "./frozen-file-writer";
import { type FrozenEntry, frozenManifestRun, historyFile } from "./manifest";
import { FrozenKeys } from "./frozen-keys";

/** A run to freeze from TensorBoard event files: the path, the run id to file it under and the round label. */
export interface TensorboardSelection {
  runId: string;
  round: string;
  /** A run's log directory (its event files, read in file-name order) or one event file. */
  path: string;
}

/** The manifest source of a read TensorBoard run. */
function sourceOf(run: TensorboardRun): TensorboardSource {
  return {
    kind: "tensorboard",
    files: run.files.map((f) => ({
      file: f.fileName,
      sha256: f.sha256,
      bytes: f.bytes,
      fileVersion: f.fileVersion,
      events: f.events,
      tornTail: f.tornTail && { offset: f.tornTail.offset, bytes: f.tornTail.bytes },
    })),
    scalarValues: run.scalarValues,
    supersededValues: run.superseded.reduce((n, s) => n + s.values, 0),
    restarts: run.restarts.map((r) => ({
      file: run.files[r.file].fileName,
      by: run.files[r.by].fileName,
      fromStep: r.fromStep,
      toStep: r.toStep,
      values: r.values,
    })),
    droppedSummaries: run.droppedKinds,
    server: null,
  };
}

/** `YYYY-MM-DDTHH:MM:SS` (UTC), the style of W&B's `createdAt`. */
function wandbTime(seconds: number): string {
  return new Date(seconds * 1000).toISOString().slice(0, 19);
}

/**
 * Reads the run at `sel.path` and writes its rows to `<archiveTmp>/history/<runId>.jsonl`; returns the
 * run's manifest entry and its keys. State: "crashed" when a file ends in a torn record (its writer was killed),
 * else "unknown" (event files record no exit). `droppedKeys`: the tags of non-scalar summaries.
 * Throws `TensorboardError` (file, byte offset) on a damaged file.
 */
export async function freezeTensorboardRun(
  sel: TensorboardSelection,
  archiveTmp: string,
  fetchedAt: () => string,
  reporter: Reporter,
  signal?: AbortSignal,
): Promise<FrozenEntry> {
  const run = await readTensorboardRun(sel.path, { reporter, signal, configTags: new Set(allConfigTextTags()) });
  const file = historyFile(sel.runId);
  const writer = await FrozenFileWriter.create(path.join(archiveTmp, file));
  let info: FrozenFileInfo;
  try {
    await writer.writeRows(run.rows);
    info = await writer.close();
  } catch (e) {
    await writer.abandon();
    throw e;
  }
  const identity = {
    entity: "",
    project: "",
    runId: sel.runId,
    displayName: path.basename(path.resolve(sel.path)),
    state: run.files.some((f) => f.tornTail) ? "crashed" : "unknown",
    lastStep: run.lastStep,
    createdAt: run.firstWallTime === null ? null : wandbTime(run.firstWallTime),
    droppedKeys: run.droppedTags,
  };
  const entry = frozenManifestRun(identity, sel.round, file, info, fetchedAt(), { source: sourceOf(run) });
  const keys = new FrozenKeys();
  keys.add(run.rows);
  // Flags only where the files carry a config (hparams, a config text); else they stay unknown.
  return { run: run.configs.length === 0 ? entry : { ...entry, ...configFacts(run.configs) }, keys: keys.sorted() };
}
