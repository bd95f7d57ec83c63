/**
 * The record tables' CSV files printed while the archive is still aligning: a run's records are final
 * as soon as the aligner has made them (AlignRunsOptions.onRunRecords), so a CSV worker prints them
 * while this thread aligns the next run, on the core that alignment leaves idle. writeExports then
 * takes each file as written, instead of printing it after alignment.
 *
 * A table's columns are those of the first run with records; its file is given up, and written after
 * alignment as before, when a later run logs a key outside them, when its records are not in the
 * table's order (each run in order, each after the last), when its values are not in shared chunks,
 * or when the worker fails. It is taken only when its columns are the finished table's: the bytes are
 * then those of the table printed whole (the same rows, in the same order, by the same printer).
 */
import { randomUUID } from "node:crypto";
import { existsSync, mkdirSync, promises as fsp, rmdirSync } from "node:fs";
import * as path from "node:path";
import type { Worker } from "node:worker_threads";

import type { RunRecords } from "../align/align-options";
import type { AxisRecord, UpdateRecord } from "../types";
import type { Values } from "../values/compact-values";
import { startCsvWorker, type WrittenFile } from "./csv-on-worker";
import type { CsvPartReply, CsvPartRequest, CsvWorkerReply } from "./csv-worker";
import { packBuffers, packRecords } from "./packed-table";
import { type RecordTableSpec, ROLLOUT_TABLE, ROLLOUTS_FILE, recordKeys, UPDATE_TABLE, UPDATES_FILE } from "./record-tables";
import { STAGING_PREFIX } from "./write-files-atomically";

/**
 * Cells (rows x columns) a table's first run must have for its file to be printed early: a worker's
 * start (~0.3 s under tsx) costs more than it saves on a small archive (the bundled sample).
 */
export const FIRST_PART_MIN_CELLS = 500_000;

/**
 * The one worker that prints the early files, started with the first part: one thread, on the core
 * alignment leaves idle (a thread per table slowed alignment down as much as it saved).
 */
class PartsWorker {
  private worker: Worker | null = null;
  private readonly replies = new Map<string, (r: CsvWorkerReply) => void>();
  private failed = false;

  /** Opens `file`; its reply (on close or at its first failure), or null when no worker can start. */
  open(file: string): Promise<CsvWorkerReply> | null {
    const worker = this.started();
    if (worker === null) return null;
    const reply = new Promise<CsvWorkerReply>((resolve) => this.replies.set(file, resolve));
    worker.postMessage({ file, open: true } satisfies CsvPartRequest);
    return reply;
  }

  send(req: CsvPartRequest, transfer: ArrayBuffer[] = []): void {
    this.worker?.postMessage(req, transfer);
  }

  private started(): Worker | null {
    if (this.worker !== null || this.failed) return this.worker;
    this.worker = startCsvWorker();
    if (this.worker === null) {
      this.failed = true;
      return null;
    }
    this.worker.on("message", (r: CsvPartReply) => {
      const { file, ...reply } = r;
      this.replies.get(file)?.(reply);
      this.replies.delete(file);
    });
    const failAll = (error: string) => {
      for (const resolve of this.replies.values()) resolve({ error, started: true });
      this.replies.clear();
    };
    this.worker.on("error", (e) => failAll(e.message));
    this.worker.on("exit", (code) => failAll(`exited with code ${code}`));
    return this.worker;
  }

  async stop(): Promise<void> {
    const w = this.worker;
    this.worker = null;
    this.failed = true;
    if (w !== null) await w.terminate();
  }
}

/** One record table printed run by run on the parts worker. */
class EarlyTable<T extends { values: Values }> {
  private keys: string[] | null = null;
  private keySet = new Set<string>();
  private last = Number.NEGATIVE_INFINITY;
  private reply: Promise<CsvWorkerReply> | null = null;
  /** Why the file was given up (null: still printing, or never started). */
  private givenUp: string | null = null;

  constructor(
    private readonly spec: RecordTableSpec<T>,
    private readonly file: string,
    private readonly worker: PartsWorker,
    private readonly minCells: number,
    /** Makes the file's folder (called before the first part, so that an archive too small for this makes nothing). */
    private readonly makeDir: () => void,
  ) {}

  /** Prints `records[from..)`, one run's (or gives the file up). */
  add(records: readonly T[], from: number): void {
    if (this.givenUp !== null || records.length === from) return;
    const why = this.printPart(records, from);
    if (why !== null) this.giveUp(why);
  }

  /** Sends `records[from..)` to the worker; why not, when they cannot be printed. */
  private printPart(records: readonly T[], from: number): string | null {
    const to = records.length;
    const why = this.refusal(records, from, to);
    if (why !== null) return why;
    if (this.reply === null && (to - from) * (this.spec.axis.length + this.keys!.length) < this.minCells) return "small";
    const order = new Int32Array(to - from);
    for (let i = 0; i < order.length; i++) order[i] = from + i;
    const part = packRecords({ name: this.spec.name, columns: this.columns() }, records, order, this.spec.lead);
    if (part === null) return "values not in shared chunks";
    if (this.reply === null) this.makeDir();
    this.reply ??= this.worker.open(this.file);
    if (this.reply === null) return "no worker";
    this.worker.send({ file: this.file, part }, packBuffers(part));
    return null;
  }

  /** Why records[from..to) cannot be printed after what was: a new key, or out of order; null when they can. */
  private refusal(records: readonly T[], from: number, to: number): string | null {
    const keys = recordKeys(records, from, to);
    if (this.keys === null) {
      this.keys = keys;
      this.keySet = new Set(keys);
    } else if (keys.some((k) => !this.keySet.has(k))) return "a later run logs another key";
    const { sortBy } = this.spec;
    for (let i = from; i < to; i++) {
      const v = sortBy(records[i]);
      if (!(v >= this.last)) return "records out of order";
      this.last = v;
    }
    return null;
  }

  private columns(): string[] {
    return [...this.spec.axis, ...this.keys!];
  }

  giveUp(why: string): void {
    this.givenUp = why;
    // Closed so that the worker lets the file go; the folder is removed with it.
    if (this.reply !== null) this.worker.send({ file: this.file, close: true });
  }

  /** True once printing started and was not given up. */
  printing(): boolean {
    return this.reply !== null && this.givenUp === null;
  }

  /** The file printed, when its columns are `columns` (the finished table's) and nothing failed; else null. */
  async take(columns: readonly string[]): Promise<(WrittenFile & { file: string }) | null> {
    if (!this.printing()) return null;
    if (this.columns().join("\n") !== columns.join("\n")) {
      this.giveUp("columns differ");
      return null;
    }
    this.worker.send({ file: this.file, close: true });
    const r = await this.reply!;
    this.givenUp = "taken";
    return "error" in r ? null : { ...r, file: this.file };
  }
}

/**
 * rollouts.csv and updates.csv printed run by run into a folder of their own inside the export folder
 * (named like writeFilesAtomically's staging folders); `dispose` removes it, and the export folder when
 * this made it and nothing else was written into it.
 */
export class EarlyRecordCsvs {
  private readonly dir: string;
  private madeOut = false;
  private madeDir = false;
  private readonly worker = new PartsWorker();
  private readonly rollouts: EarlyTable<AxisRecord>;
  private readonly updates: EarlyTable<UpdateRecord>;

  /** `minCells`: the cells a table's first run must have for it to be printed early (default FIRST_PART_MIN_CELLS). */
  constructor(
    private readonly outDir: string,
    minCells = FIRST_PART_MIN_CELLS,
  ) {
    this.dir = path.join(outDir, `${STAGING_PREFIX}early-${randomUUID()}`);
    const makeDir = () => this.makeDir();
    this.rollouts = new EarlyTable(ROLLOUT_TABLE, path.join(this.dir, ROLLOUTS_FILE), this.worker, minCells, makeDir);
    this.updates = new EarlyTable(UPDATE_TABLE, path.join(this.dir, UPDATES_FILE), this.worker, minCells, makeDir);
  }

  /** AlignRunsOptions.onRunRecords: prints the run's records. Never throws (the alignment goes on; the files are then written after it). */
  onRun(run: RunRecords): void {
    try {
      this.rollouts.add(run.rollouts, run.rolloutsFrom);
      this.updates.add(run.updates, run.updatesFrom);
    } catch (e) {
      this.rollouts.giveUp((e as Error).message);
      this.updates.giveUp((e as Error).message);
    }
  }

  private makeDir(): void {
    if (this.madeDir) return;
    this.madeOut = !existsSync(this.outDir);
    mkdirSync(this.dir, { recursive: true });
    this.madeDir = true;
  }

  /** The table that prints `name`, if any. */
  private table(name: string): EarlyTable<AxisRecord> | EarlyTable<UpdateRecord> | null {
    return name === ROLLOUTS_FILE ? this.rollouts : name === UPDATES_FILE ? this.updates : null;
  }

  /** True when `name` is being printed early (take it with {@link take}). */
  has(name: string): boolean {
    return this.table(name)?.printing() === true;
  }

  /** Table `name`'s file as printed, when its columns are `columns`; null: write it as usual. */
  async take(name: string, columns: readonly string[]): Promise<(WrittenFile & { file: string }) | null> {
    const taken = (await this.table(name)?.take(columns)) ?? null;
    // The worker's thread and memory go as soon as no file is printing (the health checks come next).
    if (!this.rollouts.printing() && !this.updates.printing()) await this.worker.stop();
    return taken;
  }

  /** Stops the workers and removes the folder (and the export folder when this made it and it stayed empty). */
  async dispose(): Promise<void> {
    await this.worker.stop();
    if (!this.madeDir) return;
    await fsp.rm(this.dir, { recursive: true, force: true });
    if (this.madeOut) {
      try {
        rmdirSync(this.outDir);
      } catch {
        // Not empty: the export wrote into it.
      }
    }
  }
}
