/**
 * Loading a frozen archive: every history file is checked against the manifest's sha256 before a
 * row is read, and every line must be a JSON object of numbers (or "NaN"/"Infinity"/"-Infinity")
 * with a strictly increasing integer `_step` (except where a later log of a run resumed in place starts
 * back at its checkpoint's step, once per log in `resumedIn`). Any violation refuses the whole archive with an
 * error naming the file (and line, key, hashes).
 */
import { createHash } from "node:crypto";
import { createReadStream, promises as fsp } from "node:fs";
import * as path from "node:path";
import { Worker } from "node:worker_threads";

import type { Archive, HistoryRow, ManifestRun, Reporter, RunHistory, SourceManifest } from "../types";
import { type PackedViews, ValuesArena, type ViewClass } from "../values/compact-values";
import { packedRun } from "../values/packed-run";
import { ValuesBuilder } from "../values/values-builder";
import { readCanonicalHistory } from "./frozen-reader";
import { HistoryLineParser, READ_CHUNK_BYTES, type RowSink } from "./history-lines";
import { HISTORY_DIR, MANIFEST_FILE, parseManifest } from "./manifest";
import { workerCode } from "./worker-code";

/** A frozen file whose bytes are not those the manifest hashed (changed after it was frozen). */
export class ArchiveChangedError extends Error {}

/** Result of checking one file of an archive. */
export interface VerifiedFile {
  /** Archive-relative path. */
  file: string;
  /** Run the file belongs to ("" for a file the manifest does not list, or the manifest itself). */
  runId: string;
  /** sha256 from the manifest ("" when the manifest does not list the file). */
  expected: string;
  /** sha256 of the bytes on disk, null when the file is missing. */
  actual: string | null;
  ok: boolean;
  /** Why not ok, in words. */
  problem?: string;
}

/** Per-file verification report. */
export interface VerifyReport {
  ok: boolean;
  files: VerifiedFile[];
}

async function readManifest(dir: string): Promise<SourceManifest> {
  return (await readManifestBytes(dir)).manifest;
}

/** The manifest and the sha256 of its bytes as read (names the frozen data a comparison read). */
async function readManifestBytes(dir: string): Promise<{ manifest: SourceManifest; sha256: string }> {
  const file = path.join(dir, MANIFEST_FILE);
  let bytes: Buffer;
  try {
    bytes = await fsp.readFile(file);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") throw new Error(`archive ${dir} has no ${MANIFEST_FILE} (not a frozen archive, or never fetched)`);
    throw e;
  }
  return { manifest: parseManifest(bytes.toString("utf8"), file), sha256: createHash("sha256").update(bytes).digest("hex") };
}

/** History files on disk that the manifest does not list. */
async function unlistedFiles(dir: string, manifest: SourceManifest): Promise<string[]> {
  const listed = new Set(manifest.runs.map((r) => r.file));
  let names: string[];
  try {
    names = await fsp.readdir(path.join(dir, HISTORY_DIR));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw e;
  }
  return names
    .map((n) => `${HISTORY_DIR}/${n}`)
    .filter((f) => !listed.has(f))
    .sort();
}

/** sha256 of a file, streamed (files can exceed the 2 GB readFile limit); null when missing. */
async function hashFile(file: string): Promise<string | null> {
  const hash = createHash("sha256");
  try {
    for await (const chunk of createReadStream(file, { highWaterMark: READ_CHUNK_BYTES })) hash.update(chunk as Buffer);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw e;
  }
  return hash.digest("hex");
}

/**
 * Checks every file of the archive in `dir` against its manifest without throwing (a missing or
 * invalid manifest is reported as a failed `manifest.json` entry).
 */
export async function verifyArchive(dir: string): Promise<VerifyReport> {
  let manifest: SourceManifest;
  try {
    manifest = await readManifest(dir);
  } catch (e) {
    return { ok: false, files: [{ file: MANIFEST_FILE, runId: "", expected: "", actual: null, ok: false, problem: (e as Error).message }] };
  }
  const files: VerifiedFile[] = [];
  for (const run of manifest.runs) {
    const actual = await hashFile(path.join(dir, run.file));
    const ok = actual === run.sha256;
    const entry: VerifiedFile = { file: run.file, runId: run.runId, expected: run.sha256, actual, ok };
    if (!ok) entry.problem = actual === null ? "missing" : "sha256 mismatch";
    files.push(entry);
  }
  for (const file of await unlistedFiles(dir, manifest)) {
    files.push({ file, runId: "", expected: "", actual: await hashFile(path.join(dir, file)), ok: false, problem: `not listed in ${MANIFEST_FILE}` });
  }
  return { ok: files.every((f) => f.ok), files };
}

/** Reads, hashes and parses one history file (plain rows, or compact views made by `vb`); also run by load-worker.ts. */
export async function readHistoryFile(filePath: string, run: ManifestRun, reporter: Reporter, vb: ValuesBuilder | null): Promise<HistoryRow[]> {
  const rows: HistoryRow[] = [];
  await readHistoryInto(filePath, run, reporter, vb, rows);
  return rows;
}

/**
 * readHistoryFile into `rows` (filled only as far as it got when it throws): one streamed pass that
 * hashes every byte and parses lines as they come (history-lines.ts). A parse problem is remembered,
 * not thrown, so that a hash mismatch (the more basic fault) is the one reported; rows are only
 * complete when the hash matched and every line parsed.
 */
export async function readHistoryInto(filePath: string, run: ManifestRun, reporter: Reporter, vb: ValuesBuilder | null, rows: RowSink): Promise<void> {
  const task = `load ${run.runId}`;
  const hash = createHash("sha256");
  const parser = new HistoryLineParser(run, rows, vb);
  let bytes = 0;
  reporter.progress?.(task, 0, run.historyEvents);
  try {
    for await (const buf of fileChunks(filePath)) {
      hash.update(buf);
      bytes += buf.length;
      // After a problem the parser parses nothing more; hashing goes on (a hash mismatch outranks it).
      parser.write(buf);
      reporter.progress?.(task, rows.length, run.historyEvents);
    }
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT")
      throw new Error(`archive file ${filePath} is missing (listed in ${MANIFEST_FILE} for run ${run.runId})`);
    throw e;
  }
  const actual = hash.digest("hex");
  if (actual !== run.sha256) {
    throw new ArchiveChangedError(`archive file ${filePath}: sha256 mismatch (expected ${run.sha256}, actual ${actual}); the file changed after it was frozen`);
  }
  if (bytes !== run.bytes) throw new ArchiveChangedError(`archive file ${filePath}: ${bytes} bytes, ${MANIFEST_FILE} says ${run.bytes}`);
  const problem = parser.end();
  if (problem !== null) throw new Error(`archive file ${filePath} ${problem}`);
  if (rows.length !== run.historyEvents) {
    throw new Error(`archive file ${filePath}: holds ${rows.length} rows, ${MANIFEST_FILE} says historyEvents ${run.historyEvents}`);
  }
}

/**
 * A file's bytes in chunks of READ_CHUNK_BYTES, read into one buffer reused for every chunk (each
 * chunk is valid until the next is asked for): a read stream's fresh 16 MB buffer per chunk left
 * hundreds of MB of freed buffers in the reading thread's allocator at 10^6 updates.
 */
async function* fileChunks(filePath: string): AsyncGenerator<Buffer> {
  const handle = await fsp.open(filePath, "r");
  try {
    const buf = Buffer.allocUnsafe(READ_CHUNK_BYTES);
    for (;;) {
      const { bytesRead } = await handle.read(buf, 0, buf.length, null);
      if (bytesRead === 0) return;
      yield buf.subarray(0, bytesRead);
    }
  } finally {
    await handle.close();
  }
}

/** Options of {@link loadArchive}. */
export interface LoadArchiveOptions {
  /**
   * Rows as compact views (lib/values/compact-values.ts): read like plain rows, 8 bytes per value
   * outside the JS heap instead of one boxed number each. Default false: plain objects.
   */
  compact?: boolean;
  /**
   * Compact mode: true reads every second file on a worker thread, and from 1 GiB of history every
   * file on one of two; "all" always the latter; false reads every file here. Default: true from
   * WORKER_MIN_BYTES of history on, false below.
   */
  worker?: boolean | "all";
}

/**
 * Loads and verifies the archive in `dir`: refuses on a missing or unlisted file, a sha256 or size
 * mismatch, corrupt or truncated JSON, or a non-numeric value. Values "NaN"/"Infinity"/"-Infinity"
 * come back as NaN/±Infinity.
 * @example const archive = await loadArchive("data/archive");
 */
export async function loadArchive(dir: string, reporter: Reporter = {}, opts: LoadArchiveOptions = {}): Promise<Archive> {
  const { manifest, sha256: manifestSha256 } = await readManifestBytes(dir);
  const unlisted = await unlistedFiles(dir, manifest);
  if (unlisted.length > 0) {
    throw new Error(`archive ${dir}: ${unlisted.map((f) => path.join(dir, f)).join(", ")} not listed in ${MANIFEST_FILE} (mixed or tampered archive)`);
  }
  const files = manifest.runs.map((run) => path.join(dir, run.file));
  const rowsOf = opts.compact
    ? await readCompact(files, manifest.runs, reporter, opts.worker ?? historyBytes(manifest.runs) >= WORKER_MIN_BYTES)
    : await readPlain(files, manifest.runs, reporter);
  const classes = new Map<string, ViewClass>();
  const runs: RunHistory[] = manifest.runs.map((run, i) => {
    const meta = historyMetaOf(run);
    const rows = rowsOf[i];
    // Rows a worker parsed stay packed until read (lib/values/packed-run.ts): alignment reads them as they are.
    return Array.isArray(rows) ? { ...meta, rows } : packedRun(meta, rows, classes);
  });
  return { dir, manifest, runs, manifestSha256 };
}

/** A run's fields besides its rows, from its manifest entry (also a follow's in-memory archive, lib/follow/live-archive.ts). */
export function historyMetaOf(run: ManifestRun): Omit<RunHistory, "rows"> {
  const meta: Omit<RunHistory, "rows"> = { runId: run.runId, round: run.round, entity: run.entity, project: run.project, state: run.state };
  if (run.source?.kind === "tensorboard") meta.sourceKind = "tensorboard";
  if (run.flags) meta.flags = run.flags;
  if (run.versions) meta.versions = run.versions;
  if (run.profile) meta.profile = run.profile;
  return meta;
}

/** True when `file` exists (any kind). */
async function present(file: string): Promise<boolean> {
  return fsp.stat(file).then(
    () => true,
    (e: NodeJS.ErrnoException) => {
      if (e.code === "ENOENT") return false;
      throw e;
    },
  );
}

/**
 * Loads the archive reading each file once (hashed as it is parsed), or, when it does not verify,
 * returns the full {@link verifyArchive} report instead (every missing, changed and unlisted file, so
 * the caller can name them all). Only that failure path reads the files a second time.
 * @example const r = await loadOrReport("data/wandb"); if ("report" in r) ...; else r.archive
 */
export async function loadOrReport(
  dir: string,
  reporter: Reporter = {},
  opts: LoadArchiveOptions = {},
): Promise<{ archive: Archive } | { report: VerifyReport }> {
  let manifest: SourceManifest;
  try {
    manifest = await readManifest(dir);
  } catch {
    return { report: await verifyArchive(dir) };
  }
  const missing = await Promise.all(manifest.runs.map(async (r) => !(await present(path.join(dir, r.file)))));
  if (missing.some((m) => m) || (await unlistedFiles(dir, manifest)).length > 0) return { report: await verifyArchive(dir) };
  try {
    return { archive: await loadArchive(dir, reporter, opts) };
  } catch (e) {
    if (e instanceof ArchiveChangedError) return { report: await verifyArchive(dir) };
    throw e;
  }
}

/** Every file on this thread, in order (the first failing file throws). */
async function readPlain(files: readonly string[], runs: readonly ManifestRun[], reporter: Reporter): Promise<HistoryRow[][]> {
  const out: HistoryRow[][] = [];
  for (let i = 0; i < files.length; i++) out.push(await readHistoryFile(files[i], runs[i], reporter, null));
  return out;
}

/**
 * History bytes from which every file is read on a worker (two, taking turns) and this thread only
 * unpacks rows: parsing here makes garbage while the heap fills with rows, and at 10^7 updates
 * (13 GB) the garbage collector then walks ~1 GB of live rows again and again (48 s of 146 s).
 */
const ALL_ON_WORKERS_BYTES = 2 ** 30;

/**
 * History bytes from which a worker reads half the files by default. Starting one costs ~0.1 s of wall
 * and more of CPU, more than it saves on a small archive (measured: 5 MB, 0.15 s with a worker against
 * 0.06 s without; 16 MB, 0.30 s against 0.20 s), and the main command opens the sample in every notebook.
 */
const WORKER_MIN_BYTES = 32 * 2 ** 20;

const historyBytes = (runs: readonly ManifestRun[]): number => runs.reduce((a, r) => a + r.bytes, 0);

/**
 * Compact rows, reading every second file on a second thread while this one reads the others (JSON
 * parsing is most of a load; 2 cores halve it), or from ALL_ON_WORKERS_BYTES on every file on one of
 * two workers. Same rows, same errors: when several files fail, the first in manifest order is
 * thrown. Without a worker (it cannot start), its files are read here.
 */
async function readCompact(
  files: readonly string[],
  runs: readonly ManifestRun[],
  reporter: Reporter,
  useWorker: boolean | "all",
): Promise<(HistoryRow[] | PackedViews)[]> {
  // One builder for the files read here: runs share their few key sequences.
  const vb = new ValuesBuilder(new ValuesArena());
  const all = useWorker === "all" || historyBytes(runs) >= ALL_ON_WORKERS_BYTES;
  const workers = useWorker === false || files.length < 2 ? [] : all ? [startLoadWorker(), startLoadWorker()] : [null, startLoadWorker()];
  // Settled as they finish (a worker file failing while this thread reads is not an unhandled rejection).
  type Settled = { rows: HistoryRow[] | PackedViews } | { error: unknown };
  const settle = (p: Promise<HistoryRow[] | PackedViews>) =>
    p.then(
      (rows): Settled => ({ rows }),
      (error: unknown) => ({ error }),
    );
  const results: Promise<Settled>[] = [];
  for (let i = 0; i < files.length; i++) {
    const worker = workers.length > 0 ? workers[i % 2] : null;
    if (worker !== null) {
      const task = `load ${runs[i].runId}`;
      const rows = worker.read(files[i], runs[i]).then(
        (packed) => {
          reporter.progress?.(task, packed.at.length, runs[i].historyEvents);
          return packed;
        },
        (e) => (e instanceof LoadWorkerUnavailable ? readCompactFile(files[i], runs[i], reporter, vb) : Promise.reject(e)),
      );
      results[i] = settle(rows);
    }
  }
  const settled: Settled[] = [];
  for (let i = 0; i < files.length; i++) {
    if (results[i] === undefined) results[i] = settle(readCompactFile(files[i], runs[i], reporter, vb));
    settled[i] = await results[i];
  }
  await Promise.all(workers.map((w) => w?.close()));
  return settled.map((s) => {
    if ("error" in s) throw s.error;
    return s.rows;
  });
}

/**
 * One file's compact rows read on this thread: packed by the WebAssembly reader (frozen-reader.ts),
 * or, for a file it gives up, views made by `vb` with the JSON.parse reader (same rows, its messages).
 */
async function readCompactFile(file: string, run: ManifestRun, reporter: Reporter, vb: ValuesBuilder): Promise<HistoryRow[] | PackedViews> {
  const shown = new ShownProgress(reporter);
  return (await readCanonicalHistory(file, run, shown.passing())) ?? readHistoryFile(file, run, shown.held(), vb);
}

/**
 * Progress of one file read twice: the JSON.parse reader counts a file the WebAssembly reader gave up
 * from 0 again (after every row of a changed file was counted, say), so its progress is held until it
 * passes what the first reader showed: a bar never goes back.
 */
class ShownProgress {
  private readonly most = new Map<string, number>();
  constructor(private readonly reporter: Reporter) {}

  /** The reporter, noting the progress shown. */
  passing(): Reporter {
    return this.withProgress((task, done, total) => {
      this.most.set(task, Math.max(this.most.get(task) ?? 0, done));
      this.reporter.progress?.(task, done, total);
    });
  }

  /** The reporter, showing a task's progress only from where it was shown before. */
  held(): Reporter {
    return this.withProgress((task, done, total) => {
      if (done >= (this.most.get(task) ?? 0)) this.reporter.progress?.(task, done, total);
    });
  }

  /** The reporter's warnings and info as they are, with `progress` instead of its own. */
  private withProgress(progress: NonNullable<Reporter["progress"]>): Reporter {
    return { warn: (m) => this.reporter.warn?.(m), info: (m) => this.reporter.info?.(m), progress };
  }
}

/** The load worker could not start or stopped: its files are read on the main thread instead. */
class LoadWorkerUnavailable extends Error {}

/** The worker of load-worker.ts: one file at a time, results by job id. */
function startLoadWorker(): { read(filePath: string, run: ManifestRun): Promise<PackedViews>; close(): Promise<void> } | null {
  let worker: Worker;
  try {
    worker = new Worker(workerCode("load-worker"), { eval: true, resourceLimits: { maxYoungGenerationSizeMb: 8 } });
  } catch {
    return null;
  }
  const pending = new Map<number, { resolve: (p: PackedViews) => void; reject: (e: Error) => void }>();
  let next = 0;
  const failAll = (why: string) => {
    for (const p of pending.values()) p.reject(new LoadWorkerUnavailable(why));
    pending.clear();
  };
  worker.on("message", (m: { id: number; packed?: PackedViews; error?: string; changed?: boolean }) => {
    const p = pending.get(m.id);
    if (p === undefined) return;
    pending.delete(m.id);
    if (m.packed !== undefined) p.resolve(m.packed);
    else p.reject(m.changed ? new ArchiveChangedError(m.error) : new Error(m.error));
  });
  worker.on("error", (e) => failAll(e.message));
  worker.on("exit", () => failAll("load worker exited"));
  return {
    read(filePath, run) {
      return new Promise((resolve, reject) => {
        const id = next++;
        pending.set(id, { resolve, reject });
        worker.postMessage({ id, filePath, run });
      });
    },
    async close() {
      await worker.terminate();
    },
  };
}
