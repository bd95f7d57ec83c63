/**
 * Reads one W&B transaction log (`run-<id>.wandb`) in a single streaming pass: every chunk's CRC is
 * verified, the file's sha256 is computed from the same bytes, history rows go out in batches
 * (memory stays one read buffer plus one batch), and the run's identity, start time, SDK version,
 * summary and exit code are collected. No server is involved.
 */
import { createHash } from "node:crypto";
import { promises as fsp } from "node:fs";
import * as path from "node:path";

import type { HistoryRow, Reporter } from "../types";
import type { DroppedKeyCounts } from "../wandb/parse-history-row";
import { sortedCounts } from "../wandb/scan-history";
import { applySummary, historyRow, ItemValueError } from "./history-rows";
import { recordedVersionsOf } from "../registry/versions";
import { applyConfig } from "./run-config";
import { checkFileHeader, HEADER_BYTES, LOG_BLOCK_BYTES, LogRecordSplitter, type LogRecord, type TornTail } from "./log-records";
import { decodeRecord, type DecodedRecord, type DecodedRun } from "./record-messages";
import { WandbFileError } from "./wandb-file-error";

/** Bytes read at a time: a whole number of blocks. */
const READ_BYTES = 32 * LOG_BLOCK_BYTES;

/** Run states a transaction log can show. */
export type WandbFileState = "finished" | "failed" | "crashed";

/** Options of `readWandbFile`. */
export interface ReadWandbFileOptions {
  /** Receives the rows in file order, one batch per read buffer; when given, rows are not collected. */
  onRows?: (rows: HistoryRow[]) => void | Promise<void>;
  /** Run id the caller expects; a file of another run is refused. */
  expectRunId?: string;
  /** Torn tails, unknown record kinds and summary/history disagreements are reported here. */
  reporter?: Reporter;
  signal?: AbortSignal;
  /**
   * The file may still be written (a followed run): a torn tail is a record being written, noted as
   * info, not warned about as the torn end of a killed run. Default false.
   */
  live?: boolean;
}

/** What a `.wandb` file holds, as far as the archive needs it. */
export interface WandbFileRun {
  /** File name only (no folder: it goes into shared manifests). */
  fileName: string;
  sha256: string;
  bytes: number;
  runId: string;
  /** "" when the SDK did not know it (offline runs without an explicit entity). */
  entity: string;
  project: string;
  displayName: string | null;
  /** Run start time, UTC, W&B style `YYYY-MM-DDTHH:MM:SS`; null when the run record has none. */
  startedAt: string | null;
  /** SDK version that wrote the file (telemetry `cli_version`, else the header's producer), null when absent. */
  sdkVersion: string | null;
  /**
   * Versions the log records (telemetry): `wandb` (the SDK, as sdkVersion), `python`, `transformers`;
   * a package absent when not recorded.
   */
  versions: Record<string, string>;
  /** Exit code of the exit record; null when there is none. */
  exitCode: number | null;
  /** finished (exit code 0), failed (non-zero), crashed (no exit record: killed, or still running). */
  state: WandbFileState;
  /** Rows in file order (empty when `onRows` took them). */
  rows: HistoryRow[];
  rowCount: number;
  /** Highest `_step`, -1 without history. */
  lastStep: number;
  /** Non-numeric keys left out: key -> rows, keys sorted. */
  droppedKeys: Record<string, number>;
  /** Numeric top-level summary values after the last summary record. */
  summary: Record<string, number>;
  /**
   * The run's config after the last config record, in memory only: the freezer keeps nothing of it
   * but the declared semantic flags (lib/registry/semantic-flags.ts).
   */
  config: Record<string, unknown>;
  /** Records per kind (record_type name; "unknown" for kinds this reader does not know). */
  recordCounts: Record<string, number>;
  /** The end of the file that held no whole record (a killed run), or null. */
  tornTail: TornTail | null;
}

/** Run id in a `run-<id>.wandb` file name, or null for other names. */
export function runIdOfFileName(file: string): string | null {
  const m = /^run-([^.]+)\.wandb$/.exec(path.basename(file));
  return m ? m[1] : null;
}

/** `YYYY-MM-DDTHH:MM:SS` (UTC), the style of W&B's `createdAt`. */
function wandbTime(ms: number): string {
  return new Date(ms).toISOString().slice(0, 19);
}

/** Mutable state of one read. */
interface ReadState {
  file: string;
  opts: ReadWandbFileOptions;
  run: DecodedRun | null;
  exitCode: number | null;
  producer: string;
  telemetryVersion: string;
  /** The first telemetry record's python and transformers versions (the run record's win). */
  telemetry: { python: string; transformers: string };
  dropped: DroppedKeyCounts;
  summary: Map<string, number>;
  /** The run's config (memory only: see run-config.ts). */
  config: Record<string, unknown>;
  counts: Map<string, number>;
  unknownFields: Set<number>;
  batch: HistoryRow[];
  collected: HistoryRow[];
  rowCount: number;
  lastStep: number;
}

function fail(st: ReadState, offset: number | null, detail: string, cause?: unknown): WandbFileError {
  return new WandbFileError({ file: st.file, offset, runId: st.run?.runId ?? st.opts.expectRunId ?? null, detail, cause });
}

/** Checks a run record against what the caller and the file name expect. */
function takeRun(st: ReadState, run: DecodedRun, offset: number): void {
  if (st.run) {
    if (run.runId !== st.run.runId) throw fail(st, offset, `a second run record holds run ${JSON.stringify(run.runId)}: one file, one run`);
    return;
  }
  const expected = st.opts.expectRunId ?? runIdOfFileName(st.file);
  if (expected !== null && run.runId !== expected) {
    throw new WandbFileError({
      file: st.file,
      offset,
      detail: `the file holds run ${JSON.stringify(run.runId)}, not ${JSON.stringify(expected)}: a file of another run`,
    });
  }
  st.run = run;
  if (run.summary) applySummary(st.summary, run.summary);
  if (run.config) applyConfig(st.config, run.config);
}

/** One history record -> one row, `_step` checked. */
function takeHistory(st: ReadState, rec: Extract<DecodedRecord, { kind: "history" }>, offset: number): void {
  let row: HistoryRow;
  try {
    row = historyRow(rec.history, st.dropped);
  } catch (e) {
    if (e instanceof ItemValueError) throw fail(st, offset, `history record: ${e.message}`, e);
    throw e;
  }
  const step = row._step;
  if (typeof step !== "number" || !Number.isInteger(step) || step < 0) {
    throw fail(st, offset, `history record without a non-negative integer _step (${JSON.stringify(step)})`);
  }
  if (step <= st.lastStep) throw fail(st, offset, `_step ${step} does not increase (previous ${st.lastStep})`);
  st.lastStep = step;
  st.rowCount++;
  st.batch.push(row);
}

function takeRecord(st: ReadState, rec: LogRecord): void {
  let decoded: DecodedRecord;
  try {
    decoded = decodeRecord(rec.data);
  } catch (e) {
    throw fail(st, rec.offset, `record of ${rec.data.length} bytes is not a valid protobuf Record (${(e as Error).message})`, e);
  }
  const name = decoded.kind === "other" ? decoded.name : decoded.kind;
  st.counts.set(name, (st.counts.get(name) ?? 0) + 1);
  if (decoded.kind === "history") takeHistory(st, decoded, rec.offset);
  else if (decoded.kind === "run") takeRun(st, decoded.run, rec.offset);
  else if (decoded.kind === "summary") applySummary(st.summary, decoded.summary);
  else if (decoded.kind === "config") applyConfig(st.config, decoded.config);
  else if (decoded.kind === "exit") st.exitCode = decoded.exitCode;
  else if (decoded.kind === "header") st.producer ||= decoded.producer;
  else if (decoded.kind === "telemetry") {
    st.telemetryVersion ||= decoded.cliVersion;
    st.telemetry.python ||= decoded.telemetry.pythonVersion;
    st.telemetry.transformers ||= decoded.telemetry.huggingfaceVersion;
  } else if (decoded.kind === "unknown") for (const f of decoded.fields) st.unknownFields.add(f);
}

async function flushRows(st: ReadState): Promise<void> {
  if (st.batch.length === 0) return;
  const rows = st.batch;
  st.batch = [];
  if (st.opts.onRows) await st.opts.onRows(rows);
  else for (const row of rows) st.collected.push(row);
}

/** Reads the whole file block by block, feeding records to `st`; returns sha256, size and torn tail. */
async function readBlocks(st: ReadState): Promise<{ sha256: string; bytes: number; tornTail: TornTail | null }> {
  let handle: fsp.FileHandle;
  try {
    handle = await fsp.open(st.file, "r");
  } catch (e) {
    throw fail(st, null, `cannot open (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`, e);
  }
  try {
    const size = (await handle.stat()).size; // a file still growing is read up to its size now
    const hash = createHash("sha256");
    const splitter = new LogRecordSplitter(st.file);
    const buf = Buffer.alloc(READ_BYTES);
    const records: LogRecord[] = [];
    let pos = 0;
    while (pos < size || pos === 0) {
      st.opts.signal?.throwIfAborted();
      const want = Math.min(READ_BYTES, size - pos);
      let got = 0;
      while (got < want) {
        const { bytesRead } = await handle.read(buf, got, want - got, pos + got);
        if (bytesRead === 0) break;
        got += bytesRead;
      }
      const chunk = buf.subarray(0, got);
      hash.update(chunk);
      if (pos === 0) checkFileHeader(chunk.subarray(0, HEADER_BYTES), st.file);
      try {
        for (let b = 0; b < got; b += LOG_BLOCK_BYTES) {
          const block = chunk.subarray(b, Math.min(b + LOG_BLOCK_BYTES, got));
          splitter.block(block, pos + b, pos + b + block.length >= size, records);
        }
      } catch (e) {
        // Records before the damage are handed on first (they are whole), then the error names the run.
        for (const rec of records) takeRecord(st, rec);
        if (e instanceof WandbFileError && st.run) throw fail(st, e.offset, e.detail);
        throw e;
      }
      for (const rec of records) takeRecord(st, rec);
      records.length = 0;
      await flushRows(st);
      pos += got;
      if (got < want || got === 0) break;
    }
    return { sha256: hash.digest("hex"), bytes: pos, tornTail: splitter.finish() };
  } finally {
    await handle.close();
  }
}

/** What the reading left to say: a torn tail, records of unknown kinds, a summary ahead of the history (notes while the file is live). */
function reportReading(st: ReadState, name: string, tornTail: WandbFileRun["tornTail"]): void {
  const { opts } = st;
  const reporter = opts.reporter ?? {};
  if (tornTail && opts.live) {
    reporter.info?.(`${name}: the last ${tornTail.bytes} bytes hold no whole record yet (a record being written): read up to the last whole record`);
  } else if (tornTail) {
    reporter.warn?.(
      `${name}: the last ${tornTail.bytes} bytes (from byte ${tornTail.offset}) hold no whole record (${tornTail.reason}): the torn end of a killed run; read up to the last whole record`,
    );
  }
  if (st.unknownFields.size > 0) {
    const fields = Array.from(st.unknownFields)
      .sort((a, b) => a - b)
      .join(", ");
    reporter.info?.(`${name}: skipped ${st.counts.get("unknown")} records of a kind this reader does not know (Record field ${fields})`);
  }
  const summaryStep = st.summary.get("_step");
  if (summaryStep !== undefined && summaryStep > st.lastStep && opts.live) {
    reporter.info?.(`${name}: the summary reached _step ${summaryStep}, the history so far ends at _step ${st.lastStep} (the file is still being written)`);
  } else if (summaryStep !== undefined && summaryStep > st.lastStep) {
    reporter.warn?.(
      `${name}: the summary reached _step ${summaryStep} but the history in the file ends at _step ${st.lastStep}: later rows are not in the file`,
    );
  }
}

/**
 * Reads a `.wandb` file; throws `WandbFileError` naming file and byte offset for a wrong header, a
 * damaged chunk inside the file, a record that is not protobuf, a bad history value, a `_step`
 * that does not increase, a file of another run than expected, or a file without a run record.
 * @example const run = await readWandbFile("wandb/offline-run-20260101_120000-abc123/run-abc123.wandb");
 */
export async function readWandbFile(file: string, opts: ReadWandbFileOptions = {}): Promise<WandbFileRun> {
  const st: ReadState = {
    file,
    opts,
    run: null,
    exitCode: null,
    producer: "",
    telemetryVersion: "",
    telemetry: { python: "", transformers: "" },
    dropped: new Map(),
    summary: new Map(),
    config: {},
    counts: new Map(),
    unknownFields: new Set(),
    batch: [],
    collected: [],
    rowCount: 0,
    lastStep: -1,
  };
  const { sha256, bytes, tornTail } = await readBlocks(st);
  const run = st.run;
  if (!run) throw fail(st, null, `no run record in ${bytes} bytes: cannot tell which run it holds`);
  reportReading(st, `W&B file ${file} (run ${run.runId})`, tornTail);
  const producer = st.producer.split("+")[0];
  const counts: Record<string, number> = {};
  for (const key of Array.from(st.counts.keys()).sort()) counts[key] = st.counts.get(key)!;
  const summary: Record<string, number> = {};
  for (const key of Array.from(st.summary.keys()).sort()) summary[key] = st.summary.get(key)!;
  return {
    fileName: path.basename(file),
    sha256,
    bytes,
    runId: run.runId,
    entity: run.entity,
    project: run.project,
    displayName: run.displayName || null,
    startedAt: run.startTimeMs === null ? null : wandbTime(run.startTimeMs),
    sdkVersion: run.cliVersion || st.telemetryVersion || producer || null,
    // The telemetry record's field names are the `_wandb` entry's keys.
    versions: recordedVersionsOf({
      cli_version: run.cliVersion || st.telemetryVersion,
      python_version: run.telemetry.pythonVersion || st.telemetry.python,
      huggingface_version: run.telemetry.huggingfaceVersion || st.telemetry.transformers,
    }),
    exitCode: st.exitCode,
    state: st.exitCode === null ? "crashed" : st.exitCode === 0 ? "finished" : "failed",
    rows: st.collected,
    rowCount: st.rowCount,
    lastStep: st.lastStep,
    droppedKeys: sortedCounts(st.dropped),
    summary,
    config: st.config,
    recordCounts: counts,
    tornTail,
  };
}
