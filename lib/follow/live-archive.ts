/**
 * A followed archive kept in memory between snapshots (docs/follow.md, "Cost of the analysis per
 * poll"): each run's rows parsed so far, its byte length and sha256. At each snapshot only the bytes
 * appended to a history file are parsed; the whole file is still hashed (a streamed sha256, on a
 * thread of its own while this one parses and aligns: file-hasher.ts) and checked before anything is
 * returned, so that a byte changed on disk before the new ones is refused, never analysed. A run whose
 * file no longer extends what was read (a new lineage: rewind, resume in place, deletion) is read
 * whole. Then the same alignment and health checks as `analyseSnapshot` run on the closed records,
 * and with `exportsDir` (npm run follow --report) the exports are planned from that same alignment
 * (poll-analysis.ts, `planAnalysis`) and written once every byte is verified: no reload.
 */
import { promises as fsp } from "node:fs";
import * as path from "node:path";

import type { AlignRunsOptions } from "../align/align-options";
import { alignRuns } from "../align/align-runs";
import { AlignMemo } from "../align/pass-memo";
import { FILE_START, HistoryLineParser } from "../archive/history-lines";
import { historyMetaOf } from "../archive/load-archive";
import { HISTORY_DIR, MANIFEST_FILE, parseManifest } from "../archive/manifest";
import { type FileHashes, sha256Hex, snapshotFile, verifySnapshotChain } from "../archive/snapshot-chain";
import type { HealthParams } from "../health/health-params";
import { checkExportDirs, writePlannedExports } from "../export/write-exports";
import { archiveRefusal } from "../pipeline/open-archive";
import { profileForArchive } from "../registry/profile-choice";
import type { HistoryRow, ManifestRun, Reporter, RunHistory, SourceManifest } from "../types";
import { ValuesArena } from "../values/compact-values";
import { ValuesBuilder } from "../values/values-builder";
import { FileHasher } from "./file-hasher";
import { planAnalysis, type SnapshotAnalysis } from "./poll-analysis";

/** Chunks of the new bytes read (the whole file when a run is read whole). */
const READ_CHUNK_BYTES = 1 << 20;

/** One run as read so far: its file, how many bytes of it, their sha256, and the rows they hold. */
interface ReadRun {
  file: string;
  bytes: number;
  sha256: string;
  rows: HistoryRow[];
  lastStep: number;
  /** Times `_step` went back in the rows read (a later log of a run resumed in place, kept at its framework's steps). */
  goBacks: number;
}

/** What one analysis read: runs read whole (first analysis, new lineage) and rows parsed. */
export interface LiveReadStats {
  /** Runs whose file was read whole this time, with the reason. */
  reloaded: { runId: string; why: string }[];
  /** Rows parsed this time over all runs (the new ones when nothing was reloaded). */
  rowsParsed: number;
  /** Milliseconds reading (hash + parse), aligning, running the health checks and planning the exports, and writing them. */
  ms: { read: number; align: number; health: number; write: number };
}

/** Options of {@link LiveArchive}. */
export interface LiveArchiveOptions {
  /** Health thresholds (default: the declared defaults), as `npm run export` reads them. */
  health?: HealthParams;
  reporter?: Reporter;
  /** What the data cannot decide, stated (npm run follow --profile, --n, --always-use-train-step), as for `npm run export`. */
  align?: Pick<AlignRunsOptions, "n" | "alwaysUseTrainStep" | "profile">;
}

/** The follow's archive in memory; `analyse()` after each snapshot. See the module doc. */
export class LiveArchive {
  private runs = new Map<string, ReadRun>();
  /** The manifest bytes last analysed (null before the first analysis). */
  private lastText: string | null = null;
  /**
   * Rows as compact views (lib/values/compact-values.ts), as an export loads them: alignment reads
   * them about 3x faster than plain objects at 10^5 rows (bench/RESULTS.md, "Follow").
   */
  private readonly vb = new ValuesBuilder(new ValuesArena());
  /** What the last alignment built, reused where a run's rows are unchanged (same row objects). */
  private readonly memo = new AlignMemo();
  /** Hashes every byte of the runs' files on a thread of its own while this one parses and aligns. */
  private readonly hasher = new FileHasher();
  /** What the last `analyse()` read. */
  stats: LiveReadStats = { reloaded: [], rowsParsed: 0, ms: { read: 0, align: 0, health: 0, write: 0 } };

  constructor(
    private readonly dataDir: string,
    private readonly opts: LiveArchiveOptions = {},
  ) {}

  /**
   * Reads what the archive gained since the last call (verified as above) and runs alignment and
   * the health checks on the closed records (thresholds `health`, default the options'); equal to
   * `analyseSnapshot(dataDir, { health, exportsDir })`, exports byte for byte.
   * Throws, naming run and file, when the archive does not verify; the state read before stays.
   * @example const live = new LiveArchive("data/live"); const { health, open } = await live.analyse();
   */
  async analyse(health: HealthParams | undefined = this.opts.health, exportsDir?: string): Promise<SnapshotAnalysis> {
    const reporter = this.opts.reporter ?? {};
    if (exportsDir !== undefined) checkExportDirs(this.dataDir, exportsDir);
    const t0 = performance.now();
    const { manifest, text } = await this.readManifest();
    await this.checkChain(manifest, text);
    if (manifest.runs.length === 0) throw archiveRefusal("analyse", this.dataDir, `${MANIFEST_FILE} lists no runs (empty archive)`);
    await this.checkListed(manifest);
    const stats: LiveReadStats = { reloaded: [], rowsParsed: 0, ms: { read: 0, align: 0, health: 0, write: 0 } };
    const next = new Map<string, ReadRun>();
    const hashed: Promise<void>[] = [];
    for (const entry of manifest.runs) {
      const { run, verified } = await this.readRun(entry, stats);
      // Never rejected unobserved (a later run's read or the analysis may throw first): awaited below.
      verified.catch(() => undefined);
      next.set(entry.runId, run);
      hashed.push(verified);
    }
    const allHashed = Promise.all(hashed);
    allHashed.catch(() => undefined);
    const t1 = performance.now();
    const histories: RunHistory[] = manifest.runs.map((entry) => ({ ...historyMetaOf(entry), rows: next.get(entry.runId)!.rows }));
    const profile = profileForArchive(this.opts.align?.profile, this.dataDir);
    const aligned = alignRuns(histories, { ...this.opts.align, profile, reporter, compact: true, memo: this.memo });
    if (aligned.issues.length > 0) reporter.warn?.(`alignment found ${aligned.issues.length} issue(s); first: ${aligned.issues[0].message}`);
    const t2 = performance.now();
    const exports = exportsDir === undefined ? undefined : { manifest, reporter };
    const { health: report, open, plan } = planAnalysis(aligned, { health, exports });
    const t3 = performance.now();
    // Every byte hashed (on the hashing thread, meanwhile) and checked before anything is said, written or kept.
    await allHashed;
    const t4 = performance.now();
    const written = plan === null ? null : await writePlannedExports(exportsDir!, plan);
    this.runs = next;
    this.lastText = text;
    stats.ms = { read: t1 - t0 + (t4 - t3), align: t2 - t1, health: t3 - t2, write: performance.now() - t4 };
    this.stats = stats;
    return { health: report, open, exports: written };
  }

  /** Ends the hashing thread (a follow's end). */
  async close(): Promise<void> {
    await this.hasher.close();
  }

  private async readManifest(): Promise<{ manifest: SourceManifest; text: string }> {
    const file = path.join(this.dataDir, MANIFEST_FILE);
    const text = await fsp.readFile(file, "utf8").catch((e: NodeJS.ErrnoException) => {
      if (e.code === "ENOENT") throw new Error(`archive ${this.dataDir} has no ${MANIFEST_FILE} (not a frozen archive, or never fetched)`);
      throw e;
    });
    return { manifest: parseManifest(text, file), text };
  }

  /**
   * The snapshot chain: a snapshot that links to the one analysed last (its `previous`, and its copy
   * in snapshots/ equal to manifest.json) is checked alone; anything else (first analysis, snapshots
   * skipped) verifies the whole chain as an export does.
   */
  private async checkChain(manifest: SourceManifest, text: string): Promise<void> {
    if (this.lastText !== null && text === this.lastText) return;
    const seq = manifest.snapshot?.sequence;
    if (this.lastText !== null && seq !== undefined && manifest.previous === sha256Hex(this.lastText)) {
      const copy = await fsp.readFile(path.join(this.dataDir, snapshotFile(seq)), "utf8").catch(() => null);
      if (copy === text) return;
      throw archiveRefusal("analyse", this.dataDir, `its snapshot chain is broken: ${snapshotFile(seq)} is not ${MANIFEST_FILE}`);
    }
    const chain = await verifySnapshotChain(this.dataDir);
    if (!chain.ok) throw archiveRefusal("analyse", this.dataDir, `its snapshot chain is broken: ${chain.problems.join("; ")}`);
  }

  /** As loadArchive: a history file the manifest does not list refuses the archive. */
  private async checkListed(manifest: SourceManifest): Promise<void> {
    const listed = new Set(manifest.runs.map((r) => r.file));
    const names = await fsp.readdir(path.join(this.dataDir, HISTORY_DIR)).catch(() => [] as string[]);
    const unlisted = names.map((n) => `${HISTORY_DIR}/${n}`).filter((f) => !listed.has(f));
    if (unlisted.length > 0) {
      throw new Error(
        `archive ${this.dataDir}: ${unlisted.map((f) => path.join(this.dataDir, f)).join(", ")} not listed in ${MANIFEST_FILE} (mixed or tampered archive)`,
      );
    }
  }

  /**
   * One run: its new bytes parsed onto the rows read before when its `frozenBefore` is what was read
   * (same file), else its file read whole; meanwhile the hashing thread hashes every byte, and
   * `verified` settles once the hashes are checked (the first bytes against what was read, the whole
   * file against the manifest).
   */
  private async readRun(entry: ManifestRun, stats: LiveReadStats): Promise<{ run: ReadRun; verified: Promise<void> }> {
    const had = this.runs.get(entry.runId);
    const fb = entry.frozenBefore;
    let from: ReadRun | null = null;
    if (had === undefined) stats.reloaded.push({ runId: entry.runId, why: "first read" });
    else if (had.file !== entry.file) stats.reloaded.push({ runId: entry.runId, why: `file ${entry.file}, was ${had.file}` });
    else if (had.bytes === entry.bytes && had.sha256 === entry.sha256) from = had;
    else if (fb === undefined || fb.bytes !== had.bytes || fb.sha256 !== had.sha256)
      stats.reloaded.push({ runId: entry.runId, why: "it does not extend what was read (a new lineage)" });
    else from = had;
    const filePath = path.join(this.dataDir, entry.file);
    const where = `run ${entry.runId}: archive file ${filePath}`;
    const hashes = this.hasher.hash(filePath, from?.bytes ?? 0);
    // A read that fails (a file too short or missing) says so plainly; the hash is then not awaited.
    hashes.catch(() => undefined);
    const run = await readNewBytes(filePath, where, entry, from, this.vb);
    stats.rowsParsed += run.rows.length - (from?.rows.length ?? 0);
    return {
      run,
      verified: hashes.then(
        (h) => checkHashes(h, where, entry, from),
        (e: Error) => Promise.reject(missingOr(e, where)),
      ),
    };
  }
}

/** A file the hashing thread could not find is named as such (listed in the manifest); other errors as they are. */
function missingOr(e: Error, where: string): Error {
  return (e as { code?: string | null }).code === "ENOENT" ? new Error(`${where} is missing (listed in ${MANIFEST_FILE})`) : e;
}

/** The hashes of a run's file against what was read before (its first bytes) and the manifest (all of it). */
function checkHashes(h: FileHashes, where: string, entry: ManifestRun, from: ReadRun | null): void {
  const start = from?.bytes ?? 0;
  if (h.bytes < start) throw new Error(`${where}: ${h.bytes} bytes, fewer than the ${start} read before; not analysed`);
  if (from !== null && h.prefixes[0] !== from.sha256) {
    throw new Error(`${where}: its first ${start} bytes changed since they were read (sha256 no longer ${from.sha256.slice(0, 12)}); not analysed`);
  }
  if (h.sha256 !== entry.sha256)
    throw new Error(`${where}: sha256 mismatch (expected ${entry.sha256}, actual ${h.sha256}); the file changed after it was frozen`);
  if (h.bytes !== entry.bytes) throw new Error(`${where}: ${h.bytes} bytes, ${MANIFEST_FILE} says ${entry.bytes}`);
}

/**
 * Reads and parses a run's bytes past `from` up to the manifest's size (rows appended to a copy of
 * its rows) with the archive's line parser (lib/archive/history-lines.ts: its checks and line cap);
 * the row count must be the manifest's. Its hashes are checked apart (checkHashes).
 */
async function readNewBytes(filePath: string, where: string, entry: ManifestRun, from: ReadRun | null, vb: ValuesBuilder): Promise<ReadRun> {
  const start = from?.bytes ?? 0;
  const rows = from ? from.rows.slice() : [];
  const at = from === null ? FILE_START : { lineNo: from.rows.length, lastStep: from.lastStep, goBacks: from.goBacks };
  const parser = new HistoryLineParser(entry, rows, vb, at);
  const refuse = (problem: string | null) => {
    if (problem !== null) throw new Error(`${where} ${problem}`);
  };
  let pos = start;
  const fh = await fsp.open(filePath, "r").catch((e: NodeJS.ErrnoException) => {
    throw e.code === "ENOENT" ? new Error(`${where} is missing (listed in ${MANIFEST_FILE})`) : e;
  });
  try {
    const buf = Buffer.allocUnsafe(Math.min(READ_CHUNK_BYTES, Math.max(1, entry.bytes - start)));
    while (pos < entry.bytes) {
      const { bytesRead } = await fh.read(buf, 0, Math.min(buf.length, entry.bytes - pos), pos);
      if (bytesRead === 0) break;
      pos += bytesRead;
      refuse(parser.write(buf.subarray(0, bytesRead)));
    }
  } finally {
    await fh.close();
  }
  if (pos < start) throw new Error(`${where}: ${pos} bytes, fewer than the ${start} read before; not analysed`);
  if (pos < entry.bytes) throw new Error(`${where}: ${pos} bytes, ${MANIFEST_FILE} says ${entry.bytes}`);
  refuse(parser.end());
  if (rows.length !== entry.historyEvents) throw new Error(`${where}: holds ${rows.length} rows, ${MANIFEST_FILE} says historyEvents ${entry.historyEvents}`);
  const end = parser.position();
  return { file: entry.file, bytes: entry.bytes, sha256: entry.sha256, rows, lastStep: end.lastStep, goBacks: end.goBacks };
}
