/**
 * One poll's work on one run of a followed archive: the rows after its last frozen step appended to a
 * copy of its frozen file (a server run), or its `.wandb` logs frozen again into the copy and checked
 * to extend what was frozen (a local file). Either way the file holds the same bytes a one-shot fetch
 * of the run at that moment would write.
 */
import { promises as fsp } from "node:fs";
import * as path from "node:path";

import type { ManifestRun, Reporter, RunMeta } from "../types";
import { freezeWandbFileRun } from "../archive/freeze-wandb-file";
import { type FrozenFileState, FrozenFileWriter } from "../archive/frozen-file-writer";
import { frozenManifestRun, historyFile } from "../archive/manifest";
import { readConfigFacts } from "../archive/run-config-facts";
import { type RunSelection, withStated } from "../archive/run-selection";
import { frozenRowSerializer } from "../values/frozen-row";
import type { WandbConnection } from "../wandb/connection";
import { type HistoryPathChoice, readHistory } from "../wandb/read-history";
import { runPath } from "../wandb/read-run-meta";
import { scanHistory } from "../wandb/scan-history";
import { type FrozenTail, lastLines, tailOf } from "./overlap-window";
import { checkFilePrefixes, EMPTY_SHA256 } from "../archive/snapshot-chain";

/** The tail of a run that keeps none (a `.wandb` log is checked whole instead). */
export const NO_TAIL: FrozenTail = { lines: [], steps: [] };

/** What a poll knows of a run before it reads: its last snapshot's entry and frozen file state. */
export interface FrozenRun {
  sel: RunSelection;
  /** The last snapshot's manifest entry; null while nothing was frozen. */
  entry: ManifestRun | null;
  /** Hash state of the frozen file (server runs; null until the first freeze). */
  file: FrozenFileState | null;
  /** `.wandb` runs: size and modification time of the logs when last frozen (null: not read by this follower yet). */
  stamp: string | null;
  /** Server runs: the last frozen rows, read again at each poll (the overlap window). */
  tail: FrozenTail;
}

/** A run after a poll froze it: its new entry, file state and last rows. */
export interface RunFrozenNow {
  entry: ManifestRun;
  file: FrozenFileState | null;
  tail: FrozenTail;
}

/** How server runs are read. */
export interface TailReadOptions {
  pageSize: number;
  historyPath: HistoryPathChoice;
  signal?: AbortSignal;
  fetchedAt: string;
  /** Rows of the overlap window kept for the next poll. */
  overlapRows: number;
  /** `HistoryPage` windows asked for at once (the run's share of the poll's concurrency, pagesPerRun). */
  pagesInFlight: number;
}

/** `frozenBefore` of a run: what its last snapshot froze (nothing for a new run). */
export function frozenBeforeOf(entry: ManifestRun | null): { bytes: number; sha256: string } {
  return entry ? { bytes: entry.bytes, sha256: entry.sha256 } : { bytes: 0, sha256: EMPTY_SHA256 };
}

/** Key -> sum of counts, keys sorted. */
function addCounts(a: Record<string, number>, b: Record<string, number>): Record<string, number> {
  const sum = new Map(Object.entries(a));
  for (const [k, n] of Object.entries(b)) sum.set(k, (sum.get(k) ?? 0) + n);
  return Object.fromEntries(Array.from(sum).sort(([x], [y]) => (x < y ? -1 : 1)));
}

/**
 * Appends a server run's new rows to its file in the snapshot being written (`dir`; the file there is
 * a copy of the last snapshot's). The first freeze reads the whole history over the chosen path; later
 * polls page only the steps after the last frozen one (`HistoryPage` from lastStep + 1), checked
 * against `meta`'s historyLineCount less the rows frozen before.
 */
export async function appendServerRun(conn: WandbConnection, dir: string, run: FrozenRun, meta: RunMeta, opts: TailReadOptions): Promise<RunFrozenNow> {
  const file = historyFile(run.sel.runId);
  const target = path.join(dir, file);
  const { entry } = run;
  const writer = entry && run.file ? await FrozenFileWriter.append(target, run.file) : await FrozenFileWriter.create(target);
  let kept = entry ? run.tail.lines : [];
  const write = (lines: string[]) => {
    kept = lastLines(kept, lines, opts.overlapRows);
    return writer.writeLines(lines);
  };
  let lastStep: number;
  let dropped: Record<string, number>;
  let taken: ManifestRun["historyPath"];
  try {
    if (!entry) {
      const scan = await readHistory(conn, meta, {
        pageSize: opts.pageSize,
        historyPath: opts.historyPath,
        signal: opts.signal,
        pagesInFlight: opts.pagesInFlight,
        onLines: write,
      });
      ({ lastStep } = scan.snapshot);
      dropped = scan.droppedKeys;
      taken = scan.path === "pages" ? undefined : scan.path;
    } else {
      const serialize = frozenRowSerializer();
      const scan = await scanHistory(conn, meta, {
        pageSize: opts.pageSize,
        signal: opts.signal,
        pagesInFlight: opts.pagesInFlight,
        fromStep: entry.lastStep + 1,
        expectedRows: meta.historyLineCount - entry.historyEvents,
        rowsBefore: entry.historyEvents,
        onRows: (rows) => write(rows.map(serialize)),
      });
      lastStep = Math.max(entry.lastStep, meta.lastStep);
      dropped = addCounts(entry.droppedKeys ?? {}, scan.droppedKeys);
      taken = entry.historyPath && scan.rowCount > 0 ? "parquet+pages" : entry.historyPath;
    }
  } catch (e) {
    await writer.abandon();
    throw e;
  }
  const info = await writer.close();
  const identity = { ...meta, lastStep, droppedKeys: dropped };
  const extra = taken ? { historyPath: taken } : {};
  const next = frozenManifestRun(identity, run.sel.round, file, info, opts.fetchedAt, extra);
  // The config is read at every poll that freezes rows (a run may update it while it trains); a
  // deleted run keeps what was read before.
  const facts =
    meta.state === "deleted"
      ? { flags: entry?.flags, flagsDropped: entry?.flagsDropped, versions: entry?.versions }
      : await readConfigFacts(conn, { entity: meta.entity, project: meta.project, runId: meta.runId }, opts.signal);
  return { entry: withStated({ ...next, ...facts, frozenBefore: frozenBeforeOf(entry) }, run.sel), file: writer.closedState(), tail: tailOf(kept) };
}

/**
 * Freezes a followed `.wandb` run again from its logs into the snapshot being written (the copied file
 * is replaced), then checks that the new file starts with exactly the bytes frozen before. A log with
 * no exit record is a run still being written: "running", not "crashed", while it is followed.
 */
export async function refreezeWandbFileRun(dir: string, run: FrozenRun, fetchedAt: string, reporter: Reporter, signal?: AbortSignal): Promise<RunFrozenNow> {
  const sel = run.sel;
  const target = path.join(dir, historyFile(sel.runId));
  await fsp.rm(target, { force: true });
  const { run: fresh } = await freezeWandbFileRun(
    { runId: sel.runId, round: sel.round, file: sel.file!, resumedIn: sel.resumedIn },
    dir,
    () => fetchedAt,
    reporter,
    signal,
    true,
  );
  const before = frozenBeforeOf(run.entry);
  const problems = await checkFilePrefixes(target, [{ ...before, label: `run ${sel.runId} (${sel.file})` }]);
  if (problems.length > 0) {
    throw new Error(`run ${sel.runId}: its .wandb log no longer holds the rows frozen before (${problems[0]}): the log was rewritten or replaced`);
  }
  const live = fresh.source !== undefined && fresh.source.kind !== "tensorboard" && fresh.source.exitCode === null;
  const state = live && fresh.state === "crashed" ? "running" : fresh.state;
  return { entry: withStated({ ...fresh, state, frozenBefore: before }, sel), file: null, tail: NO_TAIL };
}

/** A run's entry in a snapshot where the poll froze nothing new for it: same file, fresh stamps. */
export function unchangedRun(run: FrozenRun, meta: RunMeta | null, fetchedAt: string): RunFrozenNow {
  const entry = run.entry!;
  const state = meta ? meta.state : entry.state;
  return { entry: { ...entry, state, fetchedAt, frozenBefore: frozenBeforeOf(entry) }, file: run.file, tail: run.tail };
}

/** `entity/project/runId` of a server run, the file of a `.wandb` run: for messages. */
export function describeRun(run: FrozenRun, entity: string, project: string): string {
  return run.sel.file ? `${run.sel.runId} (${run.sel.file})` : runPath({ entity, project, runId: run.sel.runId });
}
