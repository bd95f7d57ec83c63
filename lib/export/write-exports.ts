/**
 * The export pipeline from frozen data only: verify the archive's hashes -> load -> align ->
 * build -> write all files atomically. Refuses, naming the file, when a frozen file changed.
 */
import { promises as fsp } from "node:fs";
import * as path from "node:path";

import type { AlignRunsOptions } from "../align/align-runs";
import { openArchive } from "../pipeline/open-archive";
import type { HealthParams } from "../health/health-params";
import type { HealthReport } from "../health/run-health-checks";
import type { AlignedRuns, Reporter, SourceManifest } from "../types";
import { csvEntry, planExports, type ExportPlan } from "./build-exports";
import { writeCsvOnWorker } from "./csv-on-worker";
import { csvByteChunks, type AnyTable } from "./csv-text";
import { EarlyRecordCsvs, FIRST_PART_MIN_CELLS } from "./early-record-csv";
import { EXPORT_MANIFEST_FILE, serializeExportManifest, type ExportFileEntry } from "./export-manifest";
import type { PackedTable } from "./packed-table";
import { loadParquetWriter, type ParquetLayout } from "./parquet-file";
import { writeFilesAtomically, writeHashed, type FileToWrite } from "./write-files-atomically";

/** Every path a Parquet export may write (both layouts): an export removes those it does not write, so no stale Parquet outlives it. */
export const PARQUET_OUTPUTS: readonly string[] = ["rollouts.parquet", "updates.parquet", "rollouts", "updates"];

/** Options of {@link writeExports}. */
export interface WriteExportsOptions {
  /** Frozen archive folder (manifest.json + history/). */
  dataDir: string;
  /** Folder the exports are written into (created if missing; other files in it are kept). */
  outDir: string;
  /** Progress of loading and aligning, warnings (alignment issues, excluded values). */
  reporter?: Reporter;
  /** Export although the axis mapping does not hold for some run (recorded in the manifest). Default false: refuse. */
  allowIssues?: boolean;
  /** Axis overrides for runs whose N or rollout/step reading the data does not decide (see alignRuns). */
  align?: Pick<AlignRunsOptions, "n" | "alwaysUseTrainStep" | "profile">;
  /** Thresholds of the health checks (health.csv). Default: the declared defaults. */
  health?: HealthParams;
  /** Also write rollouts and updates as Parquet in this layout. Default: CSV only. */
  parquet?: { layout: ParquetLayout };
  /**
   * Print rollouts.csv and updates.csv run by run while the archive aligns (early-record-csv.ts; same
   * bytes): "auto" from FIRST_PART_MIN_CELLS cells in a table's first run, "always", or "never". Default "auto".
   */
  printWhileAligning?: "auto" | "always" | "never";
}

/** What {@link writeExports} wrote. */
export interface ExportResult {
  outDir: string;
  /** The CSV files (then the Parquet files, when asked): name, sha256, bytes, data rows and header columns. */
  files: ExportFileEntry[];
  /** The export manifest file. */
  manifest: { name: string; sha256: string; bytes: number };
  /** The health report written to health.csv. */
  health: HealthReport;
}

/** The export files as written: plain files, the hive layout's files grouped into their top folders, and the Parquet paths to remove. */
function writeSet(files: readonly FileToWrite[]): { plain: FileToWrite[]; folders: { name: string; files: FileToWrite[] }[]; remove: string[] } {
  const plain: FileToWrite[] = [];
  const folders = new Map<string, FileToWrite[]>();
  for (const f of files) {
    const slash = f.name.indexOf("/");
    if (slash < 0) {
      plain.push(f);
      continue;
    }
    const top = f.name.slice(0, slash);
    const inside = { ...f, name: f.name.slice(slash + 1) };
    const list = folders.get(top);
    if (list) list.push(inside);
    else folders.set(top, [inside]);
  }
  const written = new Set([...plain.map((f) => f.name), ...folders.keys()]);
  return {
    plain,
    folders: Array.from(folders, ([name, list]) => ({ name, files: list })),
    remove: PARQUET_OUTPUTS.filter((name) => !written.has(name)),
  };
}

/** True when `child` is `parent` or inside it. */
function isInside(child: string, parent: string): boolean {
  const rel = path.relative(parent, child);
  return rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel));
}

/**
 * Loads (each file read once, hashed as parsed) and aligns the archive through the archive pipeline
 * (lib/pipeline/open-archive.ts, refusals `refusing to export from <dir>: ...`). Only the manifest
 * and the alignment come back: the history rows are garbage once aligned, which halves the export's
 * peak. A follow's analysis (lib/follow/poll-analysis.ts) loads through it too, so its exports are these.
 */
export async function loadAndAlign(
  opts: Pick<WriteExportsOptions, "dataDir" | "align">,
  reporter: Reporter,
  onRunRecords?: AlignRunsOptions["onRunRecords"],
): Promise<{ manifest: SourceManifest; aligned: AlignedRuns }> {
  const { profile, ...align } = opts.align ?? {};
  // Compact rows and records: the export reads values only through lib/ (keysOf, [key]).
  const open = { purpose: "export from", profile, align, reporter, compact: true, releaseRows: true, onRunRecords };
  const { manifest, aligned } = await openArchive(opts.dataDir, open);
  if (aligned.issues.length > 0) {
    reporter.warn?.(
      `alignment found ${aligned.issues.length} issue(s), listed in ${EXPORT_MANIFEST_FILE} (alignmentIssues); first: ${aligned.issues[0].message}`,
    );
  }
  return { manifest, aligned };
}

/**
 * The files of a plan as written: each CSV streamed in chunks (hashed as written, its entry recorded),
 * then the Parquet files, then manifest.json made from the entries once the CSVs are on disk.
 */
function streamedFiles(
  plan: ExportPlan,
  written: { entries: ExportFileEntry[]; manifest: { sha256: string; bytes: number } | null },
  csvWorkers: boolean | undefined,
  early: EarlyRecordCsvs | undefined,
): FileToWrite[] {
  const csv: FileToWrite[] = plan.tables.map((t, i) => ({
    name: t.name,
    chunks: () => csvByteChunks(t),
    // By table index: a worker's file may finish after the files written alongside it.
    onWritten: (sha256, bytes) => {
      written.entries[i] = csvEntry(t, sha256, bytes);
    },
  }));
  // Record tables written by worker threads are started first and written alongside the rest: the
  // formatting's garbage then never meets this thread's heap, which holds the records, and this
  // thread meanwhile makes the other tables (the health checks of health.csv). Each is packed when
  // its write starts, so the first table's worker prints while the next one is packed.
  const printedEarly = (name: string) => early?.has(name) === true;
  const onWorkers = csvWorkers === false ? [] : workerTables(plan.tables, csvWorkers === true ? 0 : WORKER_MIN_CELLS, printedEarly);
  for (const { index, pack } of onWorkers) {
    const here = csv[index];
    const table = plan.tables[index];
    const printed = async (file: string) => {
      // Printed while the archive aligned (early-record-csv.ts): moved into place when it is this table.
      const taken = (await early?.take(table.name, table.columns)) ?? null;
      if (taken === null) return null;
      await fsp.rename(taken.file, file);
      return { sha256: taken.sha256, bytes: taken.bytes };
    };
    const write = async (file: string) => {
      const done = await printed(file);
      if (done !== null) return done;
      const packed = pack();
      return packed === null ? writeHashed(file, here) : writeCsvOnWorker(packed, file, () => writeHashed(file, here));
    };
    csv[index] = { ...here, concurrent: true, write };
  }
  csv.sort((a, b) => Number(b.concurrent === true) - Number(a.concurrent === true));
  // The other CSVs are written alongside the workers' too (none reads another), so this thread makes
  // them, health.csv's checks included, while the workers write; the last one is not concurrent: the
  // manifest waits for every CSV's entry.
  if (onWorkers.length > 0) for (let i = 0; i < csv.length - 1; i++) csv[i] = { ...csv[i], concurrent: true };
  const manifest: FileToWrite = {
    name: EXPORT_MANIFEST_FILE,
    chunks: () => [serializeExportManifest(plan.manifest(written.entries))],
    onWritten: (sha256, bytes) => {
      written.manifest = { sha256, bytes };
    },
  };
  return [...csv, ...plan.parquet.map((p) => p.file), manifest];
}

/** Cells below which a table is formatted here: a worker's start (~0.3 s under tsx) would cost more. */
const WORKER_MIN_CELLS = 2_000_000;

/**
 * The tables formatted on CSV workers (one each): the record tables that can pack (values in shared
 * chunks; `pack` gives null when they cannot after all, and the table is then written here) and have
 * at least `minCells` cells, or are printed early already.
 */
function workerTables(
  tables: readonly AnyTable[],
  minCells: number,
  printedEarly: (name: string) => boolean,
): { index: number; pack: () => PackedTable | null }[] {
  const out: { index: number; pack: () => PackedTable | null }[] = [];
  tables.forEach((t, index) => {
    if (!("pack" in t) || t.pack === undefined || (t.rowCount * t.columns.length < minCells && !printedEarly(t.name))) return;
    out.push({ index, pack: t.pack });
  });
  return out;
}

/** Refuses an empty folder name, and exports inside the archive folder (they would change the frozen archive). */
export function checkExportDirs(dataDir: string, outDir: string): void {
  if (typeof dataDir !== "string" || dataDir === "") throw new Error(`invalid dataDir: ${JSON.stringify(dataDir)}`);
  if (typeof outDir !== "string" || outDir === "") throw new Error(`invalid outDir: ${JSON.stringify(outDir)}`);
  if (isInside(path.resolve(outDir), path.resolve(dataDir))) {
    throw new Error(`invalid outDir: ${outDir} is inside the archive folder ${dataDir} (exports would change the frozen archive)`);
  }
}

/**
 * Verifies, loads and aligns the archive in `dataDir`, then writes rollouts.csv, updates.csv,
 * summary.csv, health.csv and manifest.json (and the Parquet files when asked) into `outDir` all or
 * nothing, removing the PARQUET_OUTPUTS it does not write. CSVs are formatted and hashed in chunks as
 * they are written: no file exists whole in memory.
 * @example const result = await writeExports({ dataDir: "data/wandb", outDir: "exports" });
 */
export async function writeExports(opts: WriteExportsOptions): Promise<ExportResult> {
  const reporter = opts.reporter ?? {};
  checkExportDirs(opts.dataDir, opts.outDir);
  // The record tables print run by run while the archive aligns; given up (and removed) on any failure.
  const when = opts.printWhileAligning ?? "auto";
  if (!["auto", "always", "never"].includes(when)) throw new Error(`invalid printWhileAligning: ${JSON.stringify(when)} (auto, always or never)`);
  const early = new EarlyRecordCsvs(opts.outDir, when === "always" ? 0 : FIRST_PART_MIN_CELLS);
  try {
    const { manifest, aligned } = await loadAndAlign(opts, reporter, when === "never" ? undefined : (run) => early.onRun(run));
    if (opts.parquet) await loadParquetWriter();
    // The summary is made (and may refuse) while the record tables' workers print.
    const planOpts = { reporter, allowIssues: opts.allowIssues, health: opts.health, parquet: opts.parquet, deferSummary: true };
    const plan = planExports({ manifest }, aligned, planOpts);
    return await writePlannedExports(opts.outDir, plan, { early });
  } finally {
    await early.dispose();
  }
}

/**
 * Writes a planned export set into `outDir` all or nothing (CSVs streamed and hashed in chunks, then
 * Parquet, then manifest.json), removing the PARQUET_OUTPUTS it does not write. Record tables of
 * 2 M cells or more are formatted on worker threads (`csvWorkers`: true for every record table that
 * packs, false for none; same bytes either way).
 * @example await writePlannedExports("exports", planExports(archive, alignRuns(archive.runs)));
 */
export async function writePlannedExports(
  outDir: string,
  plan: ExportPlan,
  opts: { csvWorkers?: boolean; early?: EarlyRecordCsvs } = {},
): Promise<ExportResult> {
  const written: { entries: ExportFileEntry[]; manifest: { sha256: string; bytes: number } | null } = { entries: [], manifest: null };
  const set = writeSet(streamedFiles(plan, written, opts.csvWorkers, opts.early));
  await writeFilesAtomically(outDir, set.plain, { folders: set.folders, remove: set.remove });
  return {
    outDir,
    files: [...written.entries, ...plan.parquet.map((p) => p.entry)],
    manifest: { name: EXPORT_MANIFEST_FILE, sha256: written.manifest!.sha256, bytes: written.manifest!.bytes },
    health: plan.health,
  };
}
