/**
 * Following runs while they train (`npm run follow`, docs/follow.md): each poll reads every run's
 * state and counts, freezes only the rows after the archive's last frozen step, and writes a new
 * snapshot of the archive (atomic replace, as fetch does) chained to the previous one by hash. A
 * failed poll leaves the last snapshot as it was and is retried at the next interval.
 *
 * The loop is an object with named steps: `open` (options, connection, the archive's last snapshot),
 * `poll` = `readStates` -> `changedRuns` -> `writeSnapshot`, and `follow` (interval, stop rule, abort).
 */
import { promises as fsp } from "node:fs";
import * as path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { writeSynced } from "../archive/write-synced";

import type { Reporter, RunMeta, SourceManifest } from "../types";
import { resolveClock } from "../archive/clock";
import { joinResumedLogs, type RunSelection } from "../archive/run-selection";
import { checkRunId, MANIFEST_FILE, parseManifest, serializeManifest } from "../archive/manifest";
import { checkArchiveDir, replaceDirAtomically, type SpareCopy } from "../archive/replace-dir";
import { connectWandb, type WandbConnection, type WandbReaderOptions } from "../wandb/connection";
import { DEFAULT_CONCURRENCY } from "../wandb/fetch-runs";
import { mapConcurrent } from "../wandb/map-concurrent";
import { checkHistoryPath, type HistoryPathChoice } from "../wandb/read-history";
import { readRunMeta } from "../wandb/read-run-meta";
import { WandbError } from "../wandb/wandb-error";
import { checkPageSize, DEFAULT_PAGE_SIZE } from "../wandb/scan-history";
import { READER_VERSION } from "../wandb/version";
import { checkOverlap, DEFAULT_OVERLAP_ROWS, readFileTail } from "./overlap-window";
import { appendServerRun, describeRun, type FrozenRun, NO_TAIL, refreezeWandbFileRun, type RunFrozenNow, unchangedRun } from "./run-tail";
import { sha256Hex, snapshotFile, supersededFile } from "../archive/snapshot-chain";
import { hashFrozenFile } from "./hash-frozen-file";
import { peekRunIdOfLogBeingWritten } from "../wandb-file/locate-wandb-file";
import { type CatchUp, catchUpSpare, copyArchiveFiles } from "./spare-catch-up";

/** Run states after which a run's history no longer grows ("deleted": the server no longer has the run). */
export const ENDED_STATES: readonly string[] = ["finished", "failed", "crashed", "killed", "deleted"];

/** Seconds without writes after which a `.wandb` log without an exit record is reported (`staleSeconds`). */
export const DEFAULT_STALE_SECONDS = 600;

/** Options of `Follower.open`. */
export interface FollowOptions extends Pick<WandbReaderOptions, "baseUrl" | "apiKey" | "netrcPath" | "retry" | "limits" | "env"> {
  /** Server runs' entity and project ("" when every run is a `.wandb` file). */
  entity: string;
  project: string;
  /** Runs in round order, as for fetchAndFreeze (server runs, or `.wandb` logs with `file`). */
  runs: RunSelection[];
  /** Archive folder: new, or one this follow (or a fetch of the same runs) wrote. */
  outDir: string;
  /** `HistoryPage` window in steps, default 1000. */
  pageSize?: number;
  /** Path of a run's first read (auto: exported parquet files when listed); later polls page the new steps. */
  historyPath?: HistoryPathChoice;
  reporter?: Reporter;
  /** Clock of `takenAt` and `fetchedAt`; default SOURCE_DATE_EPOCH if set, else the wall clock. */
  now?: () => Date;
  /** Last frozen rows of each server run read again at every poll to detect rewrites (default 100; 0: none). */
  overlapRows?: number;
  /** A `.wandb` log without an exit record and without new bytes for this long is reported "no writes for T" (default 600 s). */
  staleSeconds?: number;
}

/** What one poll did. */
export interface PollResult {
  /** The snapshot written, or null when no run changed (the last snapshot stands). */
  sequence: number | null;
  /** When the poll began (the snapshot's `takenAt`). */
  takenAt: string;
  /** Rows each run gained in this snapshot. */
  rowsAdded: Record<string, number>;
  /** Each run's state as read by this poll. */
  states: Record<string, string>;
  /** Every run is finished, failed, crashed, killed or deleted, or a `.wandb` log with no writes for the stale time. */
  ended: boolean;
  /** `.wandb` runs without an exit record and without writes for the stale time (called crashed when the follow ends). */
  stale: string[];
}

/** How `follow` polls and when it stops. */
export interface FollowLoopOptions {
  intervalSeconds: number;
  /** "finished": until every run ended (then one last poll must find nothing new); or a number of polls. */
  until: "finished" | { polls: number };
  signal?: AbortSignal;
  /** Called after each poll that did not fail (the CLI prints and rebuilds reports here). */
  onPoll?: (result: PollResult, poll: number) => void | Promise<void>;
}

/** How a follow ended. */
export interface FollowSummary {
  polls: number;
  failedPolls: number;
  snapshots: number;
  /** Why it stopped: every run ended, the poll count was reached, or it was interrupted. */
  stopped: "ended" | "polls" | "interrupted";
}

/** The last snapshot the follower wrote or found: its manifest, its bytes' sha256, and the run states. */
interface LastSnapshot {
  manifest: SourceManifest | null;
  sha256: string | null;
  /** Manifest bytes of a one-shot archive the follow started from, written as snapshot 0 with the first snapshot. */
  base: string | null;
}

/** What a poll found before writing: each run's metadata (null for a `.wandb` run), whether it changed, and why it was rewritten (or null). */
interface PollPlan {
  metas: readonly (RunMeta | null)[];
  changed: readonly boolean[];
  /** `.wandb` runs whose log holds no run record yet: left out of the snapshot until it does. */
  waiting: readonly boolean[];
  rewrites: readonly (string | null)[];
  /** `.wandb` runs called crashed by this (last) poll. */
  crashed: readonly boolean[];
}

/** A snapshot written by a poll: each run's entry and file state (null: a run still waiting for its run record), the manifest and its bytes. */
interface WrittenSnapshot {
  written: (RunFrozenNow | null)[];
  manifest: SourceManifest;
  text: string;
}

/** Follows the selected runs into one archive folder; see the module doc. */
export class Follower {
  private last: LastSnapshot = { manifest: null, sha256: null, base: null };
  private readonly runs: FrozenRun[];
  private readonly overlapRows: number;
  /** Per `.wandb` run: when its logs last grew (clock ms) and whether "no writes" was said since. */
  private readonly quiet = new Map<string, { since: number; said: boolean }>();
  /** `.wandb` runs said to be waiting for their run record (said once per run). */
  private readonly saidWaiting = new Set<string>();
  /** The archive as of the snapshot before the last, kept beside it: the next snapshot starts from it (spare-catch-up.ts). */
  private readonly spare: SpareCopy = { dir: null };
  /** Bytes the last snapshot wrote to start from the spare (null: it copied the archive whole). */
  lastCatchUp: CatchUp | null = null;

  private constructor(
    private readonly opts: FollowOptions,
    private readonly conn: WandbConnection | null,
    private readonly pageSize: number,
    private readonly historyPath: HistoryPathChoice,
    private readonly clock: () => Date,
    private readonly reporter: Reporter,
  ) {
    this.runs = opts.runs.map((sel) => ({ sel, entry: null, file: null, stamp: null, tail: NO_TAIL }));
    this.overlapRows = opts.overlapRows ?? DEFAULT_OVERLAP_ROWS;
    if (!Number.isInteger(this.overlapRows) || this.overlapRows < 0) throw new Error(`invalid overlapRows: ${this.overlapRows}`);
  }

  /** Checks the options, connects (only when a server run is selected) and reads the archive's last snapshot. */
  static async open(given: FollowOptions): Promise<Follower> {
    const opts = { ...given, runs: joinResumedLogs(given.runs) };
    if (opts.runs.length === 0) throw new Error("invalid runs: no run selected");
    for (const r of opts.runs) checkRunId(r.runId);
    const server = opts.runs.some((r) => !r.file);
    if (server && !opts.entity) throw new Error(`invalid entity: ${JSON.stringify(opts.entity)}`);
    if (server && !opts.project) throw new Error(`invalid project: ${JSON.stringify(opts.project)}`);
    const env = opts.env ?? process.env;
    const reporter = opts.reporter ?? {};
    const conn = server ? connectWandb({ ...opts, reporter, env }) : null;
    const follower = new Follower(
      opts,
      conn,
      checkPageSize(opts.pageSize ?? DEFAULT_PAGE_SIZE),
      checkHistoryPath(opts.historyPath ?? "auto"),
      resolveClock(opts.now, env),
      reporter,
    );
    await checkArchiveDir(opts.outDir);
    await follower.readArchive();
    return follower;
  }

  /** The runs' entries in the last snapshot (null while nothing was frozen). */
  lastManifest(): SourceManifest | null {
    return this.last.manifest;
  }

  // ---- open: the archive as the last snapshot left it

  /** Reads the archive's manifest (if any): its runs must be the selected ones; their files are hashed to append later. */
  private async readArchive(): Promise<void> {
    const text = await fsp.readFile(path.join(this.opts.outDir, MANIFEST_FILE), "utf8").catch((e: NodeJS.ErrnoException) => {
      if (e.code === "ENOENT") return null;
      throw e;
    });
    if (text === null) return;
    const manifest = parseManifest(text, path.join(this.opts.outDir, MANIFEST_FILE));
    const byId = new Map(manifest.runs.map((r) => [r.runId, r]));
    const selected = new Set(this.runs.map((r) => r.sel.runId));
    const unselected = manifest.runs.filter((r) => !selected.has(r.runId)).map((r) => r.runId);
    if (unselected.length > 0)
      throw new Error(`invalid runs: the archive ${this.opts.outDir} also holds run ${unselected.join(", ")}; select it too, or follow into another folder`);
    for (const run of this.runs) {
      const entry = byId.get(run.sel.runId) ?? null;
      if (entry && entry.round !== run.sel.round) {
        throw new Error(`invalid runs: run ${run.sel.runId} is round ${entry.round} in the archive ${this.opts.outDir}, ${run.sel.round} here`);
      }
      run.entry = entry;
      if (entry && !run.sel.file) {
        run.file = await hashFrozenFile(path.join(this.opts.outDir, entry.file), entry);
        run.tail = await readFileTail(path.join(this.opts.outDir, entry.file), this.overlapRows);
      }
    }
    this.last = { manifest, sha256: sha256Hex(text), base: manifest.snapshot ? null : text };
  }

  // ---- poll

  /** One poll: read states, and when anything changed write the next snapshot. */
  async poll(signal?: AbortSignal, final = false): Promise<PollResult> {
    const now = this.clock();
    const takenAt = now.toISOString();
    const metas = await this.readStates(signal);
    const stamps = await Promise.all(this.runs.map((run) => (run.sel.file ? logStamp(run.sel) : Promise.resolve(null))));
    const stale = this.staleRuns(stamps, now.getTime());
    // Called crashed only at the end: a log can pause for a long checkpoint and go on.
    const crashed = stale.map((st) => final && st);
    const rewrites = await this.findRewrites(metas, signal);
    const waiting = this.waitingForRunRecord();
    const changed = this.changedRuns(metas, stamps).map((c, i) => !waiting[i] && (c || rewrites[i] !== null || crashed[i]));
    const rowsAdded: Record<string, number> = {};
    let sequence: number | null = null;
    if (changed.some((c) => c)) {
      const snapshot = await this.writeSnapshot({ metas, changed, waiting, rewrites, crashed }, takenAt, signal);
      snapshot.written.forEach((w, i) => {
        if (w !== null) rowsAdded[w.entry.runId] = w.entry.historyEvents - (this.runs[i].entry?.historyEvents ?? 0);
      });
      this.commit(snapshot, stamps);
      sequence = snapshot.manifest.snapshot!.sequence;
    }
    const states: Record<string, string> = {};
    this.runs.forEach((run, i) => {
      states[run.sel.runId] = waiting[i] ? "waiting" : (metas[i]?.state ?? run.entry?.state ?? "unknown");
    });
    const ended = this.runs.every((run, i) => ENDED_STATES.indexOf(states[run.sel.runId]) >= 0 || stale[i]);
    return { sequence, takenAt, rowsAdded, states, ended, stale: this.runs.filter((_, i) => stale[i]).map((r) => r.sel.runId) };
  }

  /**
   * Which `.wandb` runs not frozen yet have a log without its run record (its writer has only begun
   * it: wandb-core writes 32 KiB blocks): they wait, said once per run, instead of failing the poll.
   */
  private waitingForRunRecord(): boolean[] {
    return this.runs.map((run) => {
      if (!run.sel.file || run.entry !== null || peekRunIdOfLogBeingWritten(run.sel.file) !== null) return false;
      if (!this.saidWaiting.has(run.sel.runId)) {
        this.saidWaiting.add(run.sel.runId);
        this.reporter.info?.(
          `run ${describeRun(run, this.opts.entity, this.opts.project)}: its log holds no run record yet (its writer has not written its first block): waiting for it`,
        );
      }
      return true;
    });
  }

  /**
   * Which `.wandb` runs are still "running" (no exit record) with logs that did not grow for the
   * stale time; each is reported once ("no writes for T") until it grows again.
   */
  private staleRuns(stamps: readonly (string | null)[], nowMs: number): boolean[] {
    const limit = (this.opts.staleSeconds ?? DEFAULT_STALE_SECONDS) * 1000;
    return this.runs.map((run, i) => {
      if (!run.sel.file) return false;
      const q = this.quiet.get(run.sel.runId);
      if (q === undefined || stamps[i] !== run.stamp) {
        this.quiet.set(run.sel.runId, { since: nowMs, said: false });
        return false;
      }
      if (run.entry?.state !== "running" || nowMs - q.since < limit) return false;
      if (!q.said) {
        q.said = true;
        this.reporter.warn?.(
          `run ${describeRun(run, this.opts.entity, this.opts.project)}: no writes for ${Math.round((nowMs - q.since) / 1000)} s and no exit record; called crashed if it stays so until the follow ends`,
        );
      }
      return true;
    });
  }

  /**
   * Each server run's metadata (one Run query: state, historyLineCount, last step); null for `.wandb`
   * runs. A frozen run the server no longer finds is "deleted" (its frozen rows stay as they are).
   */
  private async readStates(signal?: AbortSignal): Promise<(RunMeta | null)[]> {
    const { entity, project } = this.opts;
    return mapConcurrent(
      this.runs,
      DEFAULT_CONCURRENCY,
      async (run, _i, s) => {
        if (run.sel.file) return null;
        try {
          return await readRunMeta(this.conn!, { entity, project, runId: run.sel.runId }, s);
        } catch (e) {
          const entry = run.entry;
          if (entry === null || !(e instanceof WandbError) || e.operation !== "Run" || !/ not found/.test(e.message)) throw e;
          if (entry.state !== "deleted")
            this.reporter.warn?.(
              `run ${describeRun(run, entity, project)}: the server no longer has it (deleted); its ${entry.historyEvents} frozen rows stay as frozen`,
            );
          return {
            entity,
            project,
            runId: entry.runId,
            displayName: entry.displayName ?? null,
            state: "deleted",
            createdAt: entry.createdAt,
            heartbeatAt: null,
            historyLineCount: entry.historyEvents,
            lastStep: entry.lastStep,
          };
        }
      },
      signal,
    );
  }

  /** Which runs have something new: counts or state (server), size or modification time of a log (`.wandb`). */
  private changedRuns(metas: readonly (RunMeta | null)[], stamps: readonly (string | null)[]): boolean[] {
    return this.runs.map((run, i) => {
      const entry = run.entry;
      if (entry === null) return true;
      const meta = metas[i];
      if (meta === null) return stamps[i] !== run.stamp;
      return meta.historyLineCount !== entry.historyEvents || meta.lastStep !== entry.lastStep || meta.state !== entry.state;
    });
  }

  /**
   * Why each server run's logged history was rewritten since the last snapshot, or null: fewer rows
   * or an earlier last step than frozen, or (a running run, or one whose counts changed) the overlap
   * window no longer holding the rows frozen there.
   */
  private async findRewrites(metas: readonly (RunMeta | null)[], signal?: AbortSignal): Promise<(string | null)[]> {
    return mapConcurrent(
      this.runs,
      DEFAULT_CONCURRENCY,
      async (run, i, s) => {
        const meta = metas[i];
        const entry = run.entry;
        if (meta === null || entry === null) return null;
        if (meta.historyLineCount < entry.historyEvents || meta.lastStep < entry.lastStep) {
          return `the server now holds ${meta.historyLineCount} rows up to step ${meta.lastStep}, the archive froze ${entry.historyEvents} up to step ${entry.lastStep}`;
        }
        const grew = meta.historyLineCount !== entry.historyEvents || meta.lastStep !== entry.lastStep;
        if (meta.state !== "running" && !grew) return null;
        return checkOverlap(this.conn!, meta, run.tail, entry.lastStep, this.pageSize, s);
      },
      signal,
    );
  }

  /** Writes the next snapshot: the last one's files copied, each changed run's new rows added (a rewritten run read anew), manifests chained. */
  private async writeSnapshot(plan: PollPlan, takenAt: string, signal?: AbortSignal): Promise<WrittenSnapshot> {
    const { metas, changed, rewrites } = plan;
    const superseded = this.last.manifest?.snapshot?.lineage ?? 1;
    return replaceDirAtomically(
      this.opts.outDir,
      async (tmp, recycled) => {
        await this.checkUnchanged();
        await this.startFrom(tmp, recycled);
        const opts = { pageSize: this.pageSize, historyPath: this.historyPath, signal, fetchedAt: takenAt, overlapRows: this.overlapRows };
        const written = await mapConcurrent(
          this.runs,
          DEFAULT_CONCURRENCY,
          async (run, i, s) => {
            if (plan.waiting[i]) return null;
            if (!changed[i]) return unchangedRun(run, metas[i], takenAt);
            if (run.sel.file) {
              const frozen = await refreezeWandbFileRun(tmp, run, takenAt, this.reporter, s);
              return plan.crashed[i] && frozen.entry.state === "running" ? { ...frozen, entry: { ...frozen.entry, state: "crashed" } } : frozen;
            }
            if (rewrites[i] === null) return appendServerRun(this.conn!, tmp, run, metas[i]!, { ...opts, signal: s });
            // The superseded lineage's file stays in the chain, beside the snapshots that froze it.
            await fsp.rename(path.join(tmp, run.entry!.file), path.join(tmp, supersededFile(superseded, run.sel.runId)));
            return appendServerRun(this.conn!, tmp, { ...run, entry: null, file: null, tail: NO_TAIL }, metas[i]!, { ...opts, signal: s });
          },
          signal,
        );
        const reasons = this.runs.flatMap((run, i) =>
          rewrites[i] === null ? [] : [`run ${describeRun(run, this.opts.entity, this.opts.project)}: ${rewrites[i]}`],
        );
        return { written, ...(await this.writeManifests(tmp, written, takenAt, reasons)) };
      },
      this.reporter,
      this.spare,
    );
  }

  /** The new snapshot's folder holds the last snapshot: the spare caught up when there is one, else a copy. */
  private async startFrom(tmp: string, recycled: boolean): Promise<void> {
    this.lastCatchUp = recycled && this.last.manifest !== null ? await catchUpSpare(tmp, this.opts.outDir, this.last.manifest) : null;
    if (this.lastCatchUp === null) await copyArchiveFiles(tmp, this.opts.outDir);
  }

  /** Removes the spare copy (the end of a follow: it is only worth keeping between polls). */
  async close(): Promise<void> {
    const dir = this.spare.dir;
    this.spare.dir = null;
    if (dir !== null) await fsp.rm(dir, { recursive: true, force: true });
  }

  /** Refuses to write when the archive's manifest is not the last snapshot this follower knows (another fetch replaced it). */
  private async checkUnchanged(): Promise<void> {
    const text = await fsp.readFile(path.join(this.opts.outDir, MANIFEST_FILE), "utf8").catch(() => null);
    const now = text === null ? null : sha256Hex(text);
    if (now !== this.last.sha256) {
      throw new Error(
        `archive ${this.opts.outDir} was changed by someone else since snapshot ${this.last.manifest?.snapshot?.sequence ?? 0}: not following into it`,
      );
    }
  }

  /** Writes `manifest.json` and `snapshots/<sequence>.json` (and snapshot 0, a one-shot archive the follow started from). */
  private async writeManifests(
    tmp: string,
    written: readonly (RunFrozenNow | null)[],
    takenAt: string,
    rewrites: readonly string[],
  ): Promise<{ manifest: SourceManifest; text: string }> {
    const prev = this.last.manifest?.snapshot;
    const sequence = (prev?.sequence ?? 0) + 1;
    const lineage = (prev?.lineage ?? 1) + (rewrites.length > 0 ? 1 : 0);
    const lineageReason =
      rewrites.length > 0 ? `logged history was rewritten (a rewind, a resume in place or a deletion): ${rewrites.join("; ")}` : (prev?.lineageReason ?? null);
    if (rewrites.length > 0) this.reporter.warn?.(`snapshot ${sequence} starts lineage ${lineage}: ${lineageReason}`);
    const manifest: SourceManifest = {
      kind: "wandb-frozen-history",
      formatVersion: 1,
      readerVersion: READER_VERSION,
      pageSize: this.pageSize,
      snapshot: { sequence, takenAt, lineage, lineageReason },
      previous: this.last.sha256,
      runs: written.flatMap((w) => (w === null ? [] : [w.entry])),
    };
    const text = serializeManifest(manifest);
    if (this.last.base !== null) await writeSynced(path.join(tmp, snapshotFile(0)), this.last.base);
    await writeSynced(path.join(tmp, snapshotFile(sequence)), text);
    await writeSynced(path.join(tmp, MANIFEST_FILE), text);
    return { manifest, text };
  }

  /** After the swap: the written snapshot becomes the last one. */
  private commit(snapshot: WrittenSnapshot, stamps: readonly (string | null)[]): void {
    snapshot.written.forEach((w, i) => {
      if (w === null) return;
      this.runs[i].entry = w.entry;
      this.runs[i].file = w.file;
      this.runs[i].stamp = stamps[i];
      this.runs[i].tail = w.tail;
    });
    this.last = { manifest: snapshot.manifest, sha256: sha256Hex(snapshot.text), base: null };
  }

  // ---- the loop

  /**
   * Polls every `intervalSeconds` until the stop rule holds or `signal` aborts. A failed poll is
   * reported and retried at the next interval; the archive keeps its last snapshot. The spare copy kept between polls is removed at the end.
   */
  async follow(loop: FollowLoopOptions): Promise<FollowSummary> {
    try {
      return await this.loop(loop);
    } finally {
      await this.close();
    }
  }

  /** The loop of `follow`. */
  private async loop(loop: FollowLoopOptions): Promise<FollowSummary> {
    if (!(loop.intervalSeconds >= 0) || !Number.isFinite(loop.intervalSeconds)) throw new Error(`invalid interval: ${loop.intervalSeconds}`);
    const limit = loop.until === "finished" ? Infinity : loop.until.polls;
    if (loop.until !== "finished" && (!Number.isInteger(limit) || limit < 1)) throw new Error(`invalid polls: ${limit}`);
    const summary: FollowSummary = { polls: 0, failedPolls: 0, snapshots: 0, stopped: "polls" };
    let endedBefore = false;
    let last: PollResult | null = null;
    while (summary.polls < limit) {
      if (loop.signal?.aborted) return { ...summary, stopped: "interrupted" };
      const result = await this.pollOnce(loop, summary);
      if (loop.signal?.aborted) return { ...summary, stopped: "interrupted" };
      if (result && loop.until === "finished" && result.ended) {
        // One more poll after every run ended must find nothing new: the last full completeness check.
        if (endedBefore && result.sequence === null) return this.finish(loop, summary, result, "ended");
        endedBefore = true;
        continue;
      }
      endedBefore = false;
      if (summary.polls < limit) await sleep(loop.intervalSeconds * 1000, undefined, { signal: loop.signal }).catch(() => undefined);
      last = result ?? last;
    }
    return this.finish(loop, summary, last, "polls");
  }

  /** The end of a follow: `.wandb` runs still without writes are called crashed in one last snapshot. */
  private async finish(loop: FollowLoopOptions, summary: FollowSummary, last: PollResult | null, stopped: FollowSummary["stopped"]): Promise<FollowSummary> {
    if (last !== null && last.stale.length > 0) await this.pollOnce(loop, summary, true);
    return { ...summary, stopped };
  }

  /** One poll of the loop: counted, reported through `onPoll`, a failure turned into a warning. */
  private async pollOnce(loop: FollowLoopOptions, summary: FollowSummary, final = false): Promise<PollResult | null> {
    summary.polls++;
    try {
      const result = await this.poll(loop.signal, final);
      if (result.sequence !== null) summary.snapshots++;
      await loop.onPoll?.(result, summary.polls);
      return result;
    } catch (e) {
      if (loop.signal?.aborted) return null;
      summary.failedPolls++;
      this.reporter.warn?.(
        `poll ${summary.polls} failed: ${(e as Error).message}; the archive keeps snapshot ${this.last.manifest?.snapshot?.sequence ?? 0}, retrying in ${loop.intervalSeconds} s`,
      );
      return null;
    }
  }
}

/** Size and modification time of a run's `.wandb` logs, to tell whether they grew since the last read. */
async function logStamp(sel: RunSelection): Promise<string> {
  const parts: string[] = [];
  for (const file of [sel.file!, ...(sel.resumedIn ?? [])]) {
    const st = await fsp.stat(file);
    parts.push(`${st.size}:${st.mtimeMs}`);
  }
  return parts.join(",");
}
