/**
 * Following runs while they train (`npm run follow`, docs/follow.md): each poll reads every run's
 * state and counts, freezes only the rows after the archive's last frozen step, and writes a new
 * snapshot of the archive (atomic replace, as fetch does) chained to the previous one by hash. A
 * failed poll leaves the last snapshot as it was and is retried at the next interval.
 *
 * Three parts, one file each: reading the states (poll-states.ts), writing the snapshot
 * (snapshot-writer.ts) and the loop (follow-loop.ts); `Follower` opens them over the same runs and
 * joins them into one poll.
 */
import { resolveClock } from "../archive/clock";
import { checkRunId } from "../archive/manifest";
import { checkArchiveDir } from "../archive/replace-dir";
import { joinResumedLogs, type RunSelection } from "../archive/run-selection";
import type { Reporter, SourceManifest } from "../types";
import { connectWandb, type WandbReaderOptions } from "../wandb/connection";
import { checkHistoryPath, type HistoryPathChoice } from "../wandb/read-history";
import { checkPageSize, DEFAULT_PAGE_SIZE } from "../wandb/scan-history";
import { type FollowLoopOptions, type FollowSummary, followLoop, type PollResult } from "./follow-loop";
import { DEFAULT_OVERLAP_ROWS } from "./overlap-window";
import { DEFAULT_STALE_SECONDS, PollStates } from "./poll-states";
import { type FrozenRun, NO_TAIL } from "./run-tail";
import { SnapshotWriter } from "./snapshot-writer";
import type { CatchUp } from "./spare-catch-up";

export type { FollowLoopOptions, FollowSummary, PollResult } from "./follow-loop";
export { DEFAULT_STALE_SECONDS } from "./poll-states";

/** Run states after which a run's history no longer grows ("deleted": the server no longer has the run). */
export const ENDED_STATES: readonly string[] = ["finished", "failed", "crashed", "killed", "deleted"];

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

/** Follows the selected runs into one archive folder; see the module doc. */
export class Follower {
  private constructor(
    private readonly runs: readonly FrozenRun[],
    private readonly states: PollStates,
    private readonly writer: SnapshotWriter,
    private readonly clock: () => Date,
    private readonly reporter: Reporter,
  ) {}

  /** Checks the options, connects (only when a server run is selected) and reads the archive's last snapshot. */
  static async open(given: FollowOptions): Promise<Follower> {
    const opts = { ...given, runs: joinResumedLogs(given.runs) };
    if (opts.runs.length === 0) throw new Error("invalid runs: no run selected");
    for (const r of opts.runs) checkRunId(r.runId);
    const server = opts.runs.some((r) => !r.file);
    if (server && !opts.entity) throw new Error(`invalid entity: ${JSON.stringify(opts.entity)}`);
    if (server && !opts.project) throw new Error(`invalid project: ${JSON.stringify(opts.project)}`);
    const overlapRows = opts.overlapRows ?? DEFAULT_OVERLAP_ROWS;
    if (!Number.isInteger(overlapRows) || overlapRows < 0) throw new Error(`invalid overlapRows: ${overlapRows}`);
    const env = opts.env ?? process.env;
    const reporter = opts.reporter ?? {};
    const conn = server ? connectWandb({ ...opts, reporter, env }) : null;
    const pageSize = checkPageSize(opts.pageSize ?? DEFAULT_PAGE_SIZE);
    const historyPath = checkHistoryPath(opts.historyPath ?? "auto");
    const clock = resolveClock(opts.now, env);
    // One list of runs shared by both parts: the writer updates each entry once its snapshot is in place.
    const runs: FrozenRun[] = opts.runs.map((sel) => ({ sel, entry: null, file: null, stamp: null, tail: NO_TAIL }));
    const { entity, project, outDir } = opts;
    const states = new PollStates(runs, { entity, project, conn, pageSize, staleSeconds: opts.staleSeconds ?? DEFAULT_STALE_SECONDS, reporter });
    const writer = new SnapshotWriter(runs, { outDir, entity, project, conn, pageSize, historyPath, overlapRows, reporter });
    await checkArchiveDir(outDir);
    await writer.readArchive();
    return new Follower(runs, states, writer, clock, reporter);
  }

  /** The runs' entries in the last snapshot (null while nothing was frozen). */
  lastManifest(): SourceManifest | null {
    return this.writer.manifest();
  }

  /** Bytes the last snapshot wrote to start from the spare copy (null: it copied the archive whole). */
  get lastCatchUp(): CatchUp | null {
    return this.writer.lastCatchUp;
  }

  /** One poll: read states, and when anything changed write the next snapshot. */
  async poll(signal?: AbortSignal, final = false): Promise<PollResult> {
    const now = this.clock();
    const takenAt = now.toISOString();
    const { plan, stamps, stale } = await this.states.plan(now.getTime(), final, signal);
    const rowsAdded: Record<string, number> = {};
    let sequence: number | null = null;
    if (plan.changed.some((c) => c)) {
      const snapshot = await this.writer.write(plan, takenAt, signal);
      snapshot.written.forEach((w, i) => {
        if (w !== null) rowsAdded[w.entry.runId] = w.entry.historyEvents - (this.runs[i].entry?.historyEvents ?? 0);
      });
      this.writer.commit(snapshot, stamps);
      sequence = snapshot.manifest.snapshot!.sequence;
    }
    const states: Record<string, string> = {};
    this.runs.forEach((run, i) => {
      states[run.sel.runId] = plan.waiting[i] ? "waiting" : (plan.metas[i]?.state ?? run.entry?.state ?? "unknown");
    });
    const ended = this.runs.every((run, i) => ENDED_STATES.indexOf(states[run.sel.runId]) >= 0 || stale[i]);
    return { sequence, takenAt, rowsAdded, states, ended, stale: this.runs.filter((_, i) => stale[i]).map((r) => r.sel.runId) };
  }

  /** The last snapshot's sequence (0 before any). */
  lastSequence(): number {
    return this.writer.manifest()?.snapshot?.sequence ?? 0;
  }

  /** Removes the spare copy (the end of a follow: it is only worth keeping between polls). */
  async close(): Promise<void> {
    await this.writer.close();
  }

  /**
   * Polls every `intervalSeconds` until the stop rule holds or `signal` aborts (follow-loop.ts). A failed
   * poll is reported and retried at the next interval; the archive keeps its last snapshot. The spare
   * copy kept between polls is removed at the end.
   */
  async follow(loop: FollowLoopOptions): Promise<FollowSummary> {
    try {
      return await followLoop(this, loop, this.reporter);
    } finally {
      await this.close();
    }
  }
}
