/**
 * What a poll reads before anything is written (docs/follow.md, "What a poll does", 1-3): each server
 * run's state and counts (one Run query), each `.wandb` log's size and time, rewrites seen in the
 * overlap window, logs still waiting for their run record or gone quiet. The plan it returns is what
 * snapshot-writer.ts writes; nothing here touches the archive folder.
 */
import { promises as fsp } from "node:fs";

import type { RunSelection } from "../archive/run-selection";
import type { Reporter, RunMeta } from "../types";
import type { WandbConnection } from "../wandb/connection";
import { DEFAULT_CONCURRENCY } from "../wandb/fetch-runs";
import { mapConcurrent } from "../wandb/map-concurrent";
import { readRunMeta } from "../wandb/read-run-meta";
import { WandbError } from "../wandb/wandb-error";
import { peekRunIdOfLogBeingWritten } from "../wandb-file/locate-wandb-file";
import { checkOverlap } from "./overlap-window";
import { describeRun, type FrozenRun } from "./run-tail";

/** Seconds without writes after which a `.wandb` log without an exit record is reported (`staleSeconds`). */
export const DEFAULT_STALE_SECONDS = 600;

/** What a poll found before writing: each run's metadata (null for a `.wandb` run), whether it changed, and why it was rewritten (or null). */
export interface PollPlan {
  metas: readonly (RunMeta | null)[];
  changed: readonly boolean[];
  /** `.wandb` runs whose log holds no run record yet: left out of the snapshot until it does. */
  waiting: readonly boolean[];
  rewrites: readonly (string | null)[];
  /** `.wandb` runs called crashed by this (last) poll. */
  crashed: readonly boolean[];
}

/** What the states are read with: the server (null when every run is a `.wandb` log) and the follow's settings. */
export interface PollContext {
  entity: string;
  project: string;
  conn: WandbConnection | null;
  pageSize: number;
  staleSeconds: number;
  reporter: Reporter;
}

/** The reading side of a poll, for the follower's runs (their entries updated by the snapshot writer). */
export class PollStates {
  /** Per `.wandb` run: when its logs last grew (clock ms) and whether "no writes" was said since. */
  private readonly quiet = new Map<string, { since: number; said: boolean }>();
  /** `.wandb` runs said to be waiting for their run record (said once per run). */
  private readonly saidWaiting = new Set<string>();

  constructor(
    private readonly runs: readonly FrozenRun[],
    private readonly ctx: PollContext,
  ) {}

  /**
   * Reads every run's state and decides what a snapshot would write; also each `.wandb` log's stamp
   * (kept once written) and which logs are quiet. `final`: the follow's last poll calls quiet logs crashed.
   */
  async plan(nowMs: number, final: boolean, signal?: AbortSignal): Promise<{ plan: PollPlan; stamps: (string | null)[]; stale: boolean[] }> {
    const metas = await this.readStates(signal);
    const stamps = await Promise.all(this.runs.map((run) => (run.sel.file ? logStamp(run.sel) : Promise.resolve(null))));
    const stale = this.staleRuns(stamps, nowMs);
    // Called crashed only at the end: a log can pause for a long checkpoint and go on.
    const crashed = stale.map((st) => final && st);
    const rewrites = await this.findRewrites(metas, signal);
    const waiting = this.waitingForRunRecord();
    const changed = this.changedRuns(metas, stamps).map((c, i) => !waiting[i] && (c || rewrites[i] !== null || crashed[i]));
    return { plan: { metas, changed, waiting, rewrites, crashed }, stamps, stale };
  }

  private describe(run: FrozenRun): string {
    return describeRun(run, this.ctx.entity, this.ctx.project);
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
        this.ctx.reporter.info?.(`run ${this.describe(run)}: its log holds no run record yet (its writer has not written its first block): waiting for it`);
      }
      return true;
    });
  }

  /**
   * Which `.wandb` runs are still "running" (no exit record) with logs that did not grow for the
   * stale time; each is reported once ("no writes for T") until it grows again.
   */
  private staleRuns(stamps: readonly (string | null)[], nowMs: number): boolean[] {
    const limit = this.ctx.staleSeconds * 1000;
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
        this.ctx.reporter.warn?.(
          `run ${this.describe(run)}: no writes for ${Math.round((nowMs - q.since) / 1000)} s and no exit record; called crashed if it stays so until the follow ends`,
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
    const { entity, project } = this.ctx;
    return mapConcurrent(
      this.runs,
      DEFAULT_CONCURRENCY,
      async (run, _i, s) => {
        if (run.sel.file) return null;
        try {
          return await readRunMeta(this.ctx.conn!, { entity, project, runId: run.sel.runId }, s);
        } catch (e) {
          const entry = run.entry;
          if (entry === null || !(e instanceof WandbError) || e.operation !== "Run" || !/ not found/.test(e.message)) throw e;
          if (entry.state !== "deleted")
            this.ctx.reporter.warn?.(`run ${this.describe(run)}: the server no longer has it (deleted); its ${entry.historyEvents} frozen rows stay as frozen`);
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
        return checkOverlap(this.ctx.conn!, meta, run.tail, entry.lastStep, this.ctx.pageSize, s);
      },
      signal,
    );
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
