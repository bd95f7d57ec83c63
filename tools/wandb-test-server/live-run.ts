/**
 * The test server's live mode: a run that grows while it is read, driven tick by tick. Each tick logs
 * the next `rowsPerTick` rows of a history file (a frozen `history/<run>.jsonl`, e.g. the bundled
 * sample), either straight into the server's store or through the real `@wandb/sdk` (`via: "sdk"`),
 * and applies the events scheduled for that tick: a rewind (`resume_from`: rows after a step dropped,
 * logged again from the next tick), a resume in place (the last rows logged again at once with other
 * values: the counts look unchanged), a deletion. When the file is replayed the run is finished.
 *
 * Tests call `tick()` themselves (no timing in tests); `tools/wandb-test-server/cli.ts --live` calls it
 * every `--every` seconds, for use by hand with `npm run follow` (docs/follow.md, "A live run by hand").
 */
import * as fs from "node:fs";
import wandb from "@wandb/sdk";

import type { WandbTestServer } from "./server";

/** Something a live run does at a tick, besides logging its rows. */
export type LiveEvent =
  /** Rows after `toStep` dropped (W&B `resume_from`); the replay goes on from the row after `toStep` at the next tick. */
  | { kind: "rewind"; tick: number; toStep: number }
  /** Rows after `toStep` dropped and logged again in the same tick with other values (a crashed run resumed into its own id). */
  | { kind: "resume"; tick: number; toStep: number }
  /** The run deleted from the server (its rows are gone; later ticks log nothing). */
  | { kind: "delete"; tick: number };

/** Options of a live run. */
export interface LiveRunOptions {
  entity: string;
  project: string;
  runId: string;
  /** JSON Lines history to replay, one row per line, in `_step` order. */
  historyFile: string;
  /** Rows logged per tick (default 5). */
  rowsPerTick?: number;
  events?: LiveEvent[];
  /** "store" (default): rows go into the server's store as they are in the file; "sdk": logged by `@wandb/sdk` (which numbers `_step` and stamps `_runtime` itself). */
  via?: "store" | "sdk";
}

/** What one tick did. */
export interface TickResult {
  tick: number;
  /** Rows logged this tick, and the `_step`s of the first and last (null when none). */
  rows: number;
  steps: [number, number] | null;
  /** Events applied this tick, in words. */
  events: string[];
  /** The run's state after the tick (finished once the file is replayed; deleted after a deletion). */
  state: string;
}

/** Seconds added to `_runtime` of rows logged again after a rewind or resume: a restarted process's clock, so they differ from the rows they replace. */
const RESTART_RUNTIME = 1000;

/**
 * One run growing on a test server, a tick at a time.
 * @example const live = await LiveRun.start(server, { entity: "e", project: "p", runId: "live", historyFile: "data/wandb/history/sim-r2-85gs.jsonl" }); await live.tick();
 */
export class LiveRun {
  private ticks = 0;
  /** Index of the next file row to log. */
  private next = 0;
  /** Added to `_runtime` of every row logged from now on (grows at each rewind or resume). */
  private runtimeShift = 0;
  private state = "running";

  private constructor(
    private readonly server: WandbTestServer,
    private readonly opts: Required<Omit<LiveRunOptions, "events">> & { events: LiveEvent[] },
    private readonly rows: Record<string, unknown>[],
    readonly sdkRun: Awaited<ReturnType<typeof wandb.init>> | null,
  ) {}

  /** Reads the history file and creates the run (empty, running): by `addRun`, or by `wandb.init` through the SDK. */
  static async start(server: WandbTestServer, given: LiveRunOptions): Promise<LiveRun> {
    const opts = { rowsPerTick: 5, events: [] as LiveEvent[], via: "store" as const, ...given };
    if (!Number.isInteger(opts.rowsPerTick) || opts.rowsPerTick < 1) throw new Error(`invalid rowsPerTick: ${opts.rowsPerTick}`);
    if (opts.via !== "store" && opts.via !== "sdk") throw new Error(`invalid via: ${String(opts.via)} (store or sdk)`);
    for (const e of opts.events) if (!Number.isInteger(e.tick) || e.tick < 1) throw new Error(`invalid ${e.kind} tick: ${e.tick} (ticks count from 1)`);
    if (opts.via === "sdk" && opts.events.length > 0) {
      throw new Error(
        `invalid events with via sdk: ${opts.events.map((e) => e.kind).join(", ")} (the SDK numbers the steps it logs; rewind, resume and delete act on the server's store: use via store)`,
      );
    }
    const rows = readHistoryRows(opts.historyFile);
    const { entity, project, runId } = opts;
    let sdkRun: LiveRun["sdkRun"] = null;
    if (opts.via === "sdk") {
      sdkRun = await wandb.init({
        entity,
        project,
        id: runId,
        name: runId,
        settings: { baseUrl: server.url, apiKey: server.apiKey, offline: false, silent: true },
      });
    } else {
      server.addRun({ entity, project, runId, state: "running", rows: [] });
    }
    return new LiveRun(server, opts, rows, sdkRun);
  }

  /** The run's state: running, finished (the file replayed) or deleted. */
  runState(): string {
    return this.state;
  }

  /**
   * Logs the next rows, applies this tick's events; finishes the run once the file is replayed. In
   * the store it awaits nothing: all of it is done when the call returns (a test's `onRequest` hook
   * can tick before the request is answered).
   */
  async tick(): Promise<TickResult> {
    const tick = ++this.ticks;
    const result: TickResult = { tick, rows: 0, steps: null, events: [], state: this.state };
    if (this.state !== "running") return result;
    const events = this.opts.events.filter((e) => e.tick === tick);
    if (events.some((e) => e.kind === "delete")) {
      this.server.deleteRun(this.opts.entity, this.opts.project, this.opts.runId);
      this.state = "deleted";
      return { ...result, state: "deleted" };
    }
    const logged = this.rows.slice(this.next, this.next + this.opts.rowsPerTick);
    this.next += logged.length;
    if (this.sdkRun === null)
      this.server.appendRows(
        this.opts.entity,
        this.opts.project,
        this.opts.runId,
        logged.map((r) => this.shifted(r)),
      );
    else logBySdk(this.sdkRun, logged);
    for (const e of events) if (e.kind !== "delete") result.events.push(this.rewrite(e));
    if (this.next >= this.rows.length) {
      // The file is replayed: the run is finished (by the SDK's exit record, or in the store).
      if (this.sdkRun === null) this.server.setState(this.opts.entity, this.opts.project, this.opts.runId, "finished");
      else await this.sdkRun.finish();
      this.state = "finished";
    }
    return { ...result, rows: logged.length, steps: logged.length ? [stepOf(logged[0]), stepOf(logged[logged.length - 1])] : null, state: this.state };
  }

  /** A rewind or a resume in place: rows after `toStep` dropped; a resume logs them again at once, a rewind from the next tick. */
  private rewrite(e: Exclude<LiveEvent, { kind: "delete" }>): string {
    const { entity, project, runId } = this.opts;
    this.server.rewindRun(entity, project, runId, e.toStep);
    // The replay goes back to the first file row after toStep (none logged yet: it stays where it is).
    const from = this.rows.findIndex((r) => stepOf(r) > e.toStep);
    const back = from < 0 || from >= this.next ? this.next : from;
    const dropped = this.next - back;
    this.next = back;
    this.runtimeShift += RESTART_RUNTIME;
    if (e.kind === "rewind") return `rewound to step ${e.toStep} (${dropped} rows dropped; logged again from the next tick)`;
    const again = this.rows.slice(this.next, this.next + dropped);
    this.next += again.length;
    this.server.appendRows(
      entity,
      project,
      runId,
      again.map((r) => this.shifted(r)),
    );
    return `resumed in place after step ${e.toStep} (${again.length} rows logged again with _runtime + ${this.runtimeShift})`;
  }

  private shifted(r: Record<string, unknown>): Record<string, unknown> {
    const runtime = r._runtime;
    return this.runtimeShift === 0 || typeof runtime !== "number" ? r : { ...r, _runtime: runtime + this.runtimeShift };
  }
}

/** The frozen files' spelling of the values JSON cannot hold. */
const NON_FINITE: Record<string, number> = { NaN: NaN, Infinity: Infinity, "-Infinity": -Infinity };

/** Logs rows through the SDK: their values without W&B's own `_` keys (the SDK numbers `_step` and stamps the time itself). */
function logBySdk(run: NonNullable<LiveRun["sdkRun"]>, rows: readonly Record<string, unknown>[]): void {
  for (const r of rows) {
    const values: Record<string, unknown> = {};
    for (const k in r) {
      const v = r[k];
      if (!k.startsWith("_")) values[k] = typeof v === "string" && v in NON_FINITE ? NON_FINITE[v] : v;
    }
    run.log(values as Record<string, number>);
  }
}

function stepOf(row: Record<string, unknown>): number {
  return row._step as number;
}

/** The rows of a JSON Lines history file (NaN and ±Infinity as the frozen files write them: strings). */
function readHistoryRows(file: string): Record<string, unknown>[] {
  const lines = fs
    .readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "");
  if (lines.length === 0) throw new Error(`invalid history file: ${file} has no rows`);
  return lines.map((l, i) => {
    const row = JSON.parse(l) as Record<string, unknown>;
    if (typeof row._step !== "number") throw new Error(`invalid history file: ${file} line ${i + 1} has no _step`);
    return row;
  });
}
