/**
 * Freezing one run from a local `.wandb` transaction log into an archive being written: the same
 * frozen file format and manifest fields as a server run, plus the file's name, sha256, SDK version
 * and exit code under `source` (and no server).
 */
import * as path from "node:path";

import type { HistoryRow, ManifestSource, Reporter } from "../types";
import { keysOf } from "../values/compact-values";
import { peekWandbFileStartMs } from "../wandb-file/locate-wandb-file";
import { type ReadWandbFileOptions, readWandbFile, type WandbFileRun } from "../wandb-file/read-wandb-file";
import { FrozenFileWriter, type FrozenFileInfo } from "./frozen-file-writer";
import { type FrozenEntry, frozenManifestRun, historyFile } from "./manifest";
import { FrozenKeys } from "./frozen-keys";
import { type ConfigFacts, configFacts, requirementsVersions, withRequirements } from "./run-config-facts";

/** A run to freeze from a `.wandb` file: its path, the run id it must hold and the round label. */
export interface WandbFileSelection {
  runId: string;
  round: string;
  /** Path of the `.wandb` file (already located, see lib/wandb-file/locate-wandb-file.ts). */
  file: string;
  /** Other logs of the same run id (resumed into its own id offline); all are read in the order their processes started. */
  resumedIn?: readonly string[];
}

/** The manifest source of a read `.wandb` file. */
function sourceOf(run: WandbFileRun): ManifestSource {
  const source: ManifestSource = {
    kind: "wandb-file",
    file: run.fileName,
    sha256: run.sha256,
    bytes: run.bytes,
    sdkVersion: run.sdkVersion,
    exitCode: run.exitCode,
    server: null,
  };
  // Recorded so that a later fetch can tell a copy cut short from this one (lib/archive/worse-copy.ts).
  if (run.tornTail) source.tornTail = { offset: run.tornTail.offset, bytes: run.tornTail.bytes };
  return source;
}

/**
 * Reads the run's logs (`sel.file` and `sel.resumedIn`, in the order their processes started, see
 * logsInWrittenOrder) and writes their rows to `<archiveTmp>/history/<runId>.jsonl`; returns the
 * run's manifest entry and its keys. A later log that restarts at `_step` 0 (a new process counts
 * from 0 offline, where the SDK cannot ask where the run stopped) gets the offset that makes it
 * continue the run's count, stated per log in `resumedIn`; one that starts later (the framework's
 * own step, as verl's) is kept as logged, so the frozen `_step` may go back once per later log
 * (load-archive.ts allows that, where the run re-logged from its checkpoint). State, exit
 * code and display name are the last log's. Throws `WandbFileError` (file, byte offset) on a damaged
 * or foreign file.
 */
export async function freezeWandbFileRun(
  sel: WandbFileSelection,
  archiveTmp: string,
  fetchedAt: () => string,
  reporter: Reporter,
  signal?: AbortSignal,
  /** The logs may still be written (a followed run; see ReadWandbFileOptions.live). */
  live = false,
): Promise<FrozenEntry> {
  const files = logsInWrittenOrder(sel, reporter);
  const file = historyFile(sel.runId);
  const writer = await FrozenFileWriter.create(path.join(archiveTmp, file));
  const keys = new FrozenKeys();
  let logs: ReadLog[];
  let info: FrozenFileInfo;
  try {
    logs = await readLogsInto(writer, keys, files, { expectRunId: sel.runId, reporter, signal, live });
    info = await writer.close();
  } catch (e) {
    await writer.abandon();
    throw e;
  }
  const [first, ...later] = logs;
  const last = logs[logs.length - 1].run;
  const identity = {
    ...last,
    createdAt: first.run.startedAt,
    lastStep: Math.max(...logs.map((l) => (l.run.lastStep < 0 ? -1 : l.run.lastStep + l.stepOffset))),
    droppedKeys: mergedCounts(logs.map((l) => l.run.droppedKeys)),
  };
  const extra =
    later.length === 0
      ? { source: sourceOf(first.run) }
      : { source: sourceOf(first.run), resumedIn: later.map((l) => ({ ...sourceOf(l.run), stepOffset: l.stepOffset })) };
  const facts = await factsOf(
    logs.map((l) => l.run),
    files[0],
  );
  return { run: { ...frozenManifestRun(identity, sel.round, file, info, fetchedAt(), extra), ...facts }, keys: keys.sorted() };
}

/** A log as read, and the offset its `_step` was frozen with. */
interface ReadLog {
  run: WandbFileRun;
  stepOffset: number;
}

/**
 * A run's logs in the order their processes started (each log's run record start time), whatever
 * order they were given in, so that the same logs always freeze to the same archive; logs without a
 * start time keep their place after the others. Said when the order given was another.
 */
function logsInWrittenOrder(sel: WandbFileSelection, reporter: Reporter): string[] {
  const given = [sel.file, ...(sel.resumedIn ?? [])];
  if (given.length === 1) return given;
  const started = given.map((file, i) => ({ file, i, ms: peekWandbFileStartMs(file) ?? Infinity }));
  const ordered = started.sort((a, b) => a.ms - b.ms || a.i - b.i).map((s) => s.file);
  if (ordered.some((f, i) => f !== given[i])) {
    reporter.info?.(
      `run ${sel.runId}: its logs read in the order their processes started: ${ordered.map((f) => path.basename(f)).join(", ")} (given in another order)`,
    );
  }
  return ordered;
}

/** Reads each log in turn into `writer`, a later log's steps continuing the run's count (see freezeWandbFileRun). */
async function readLogsInto(
  writer: FrozenFileWriter,
  keys: FrozenKeys,
  files: readonly string[],
  opts: Pick<ReadWandbFileOptions, "expectRunId" | "reporter" | "signal" | "live">,
): Promise<ReadLog[]> {
  const logs: ReadLog[] = [];
  let nextStep = 0;
  for (const log of files) {
    let offset: number | null = logs.length === 0 ? 0 : null;
    const onRows = async (rows: HistoryRow[]) => {
      if (rows.length === 0) return;
      offset ??= laterLogOffset(rows[0]._step, nextStep);
      const shifted = offset === 0 ? rows : rows.map((r) => withStep(r, r._step + offset!));
      nextStep = shifted[shifted.length - 1]._step + 1;
      keys.add(shifted);
      await writer.writeRows(shifted);
    };
    const run = await readWandbFile(log, { ...opts, onRows });
    logs.push({ run, stepOffset: offset ?? 0 });
  }
  return logs;
}

/**
 * The shift of a later log's `_step`, from where its first row stands: a log that restarts at 0
 * (transformers' WandbCallback lets wandb count calls, and offline a new process counts from 0)
 * continues after the last step frozen; one that starts later was stamped by the framework (verl's
 * Tracking passes step=global_steps, from the checkpoint's step on) and is kept as logged, even where
 * it goes back over steps the earlier log holds: shifting it would move its rows off their steps.
 */
function laterLogOffset(firstStep: number, nextStep: number): number {
  return firstStep === 0 ? nextStep : 0;
}

/**
 * The flags of the logs' configs (a later log's value wins), the versions their telemetry records
 * (the last log's), and the frameworks' versions in the first log's run folder's requirements.txt.
 */
async function factsOf(runs: readonly WandbFileRun[], firstFile: string): Promise<ConfigFacts> {
  const facts = configFacts(
    runs.map((r) => r.config),
    runs[runs.length - 1].versions,
  );
  return withRequirements(facts, await requirementsVersions(firstFile));
}

/** A row with another `_step` (the row's other keys as they are; views are read, not spread). */
function withStep(row: HistoryRow, step: number): HistoryRow {
  const out: HistoryRow = {} as HistoryRow;
  for (const k of keysOf(row)) out[k] = row[k];
  out._step = step;
  return out;
}

/** Key -> sum of counts, keys sorted. */
function mergedCounts(counts: readonly Record<string, number>[]): Record<string, number> {
  const sum = new Map<string, number>();
  for (const c of counts) for (const [k, n] of Object.entries(c)) sum.set(k, (sum.get(k) ?? 0) + n);
  return Object.fromEntries([...sum].sort(([a], [b]) => (a < b ? -1 : 1)));
}
