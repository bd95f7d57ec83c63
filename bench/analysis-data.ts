/**
 * Input of the analysis benchmark: a frozen archive (manifest.json + history/*.jsonl, written with
 * the library's own frozen-file writer) of `runs` consecutive slime-shaped runs holding `updates`
 * optimizer updates in total. Both sides (TypeScript library and pandas) read these same files.
 * Archives are cached by size and seed (bench/work/ is git-ignored), so only the first run pays.
 */
import { existsSync, promises as fsp } from "node:fs";
import * as path from "node:path";

import { FrozenFileWriter } from "../lib/archive/frozen-file-writer";
import { HISTORY_DIR, historyFile, MANIFEST_FILE, serializeManifest } from "../lib/archive/manifest";
import type { HistoryRow, ManifestRun, SourceManifest } from "../lib/types";
import { BENCH_N, benchRunSet, generateRun } from "./slime-history";

/** Bump when the generator or the layout changes, so cached archives are rebuilt. */
const DATA_VERSION = 1;

/** A benchmark archive on disk. */
export interface AnalysisArchive {
  dir: string;
  updates: number;
  rows: number;
  /** Bytes of the history files. */
  bytes: number;
  /** Seconds spent writing it now (0 when cached). */
  writeSeconds: number;
}

/** Rollout batches per run for `updates` updates over `runs` runs; throws unless it divides evenly. */
export function rolloutsPerRunFor(updates: number, runs: number): number {
  const per = updates / (runs * BENCH_N);
  if (!Number.isInteger(per) || per < 1) throw new Error(`invalid updates: ${updates} (must be a multiple of runs x N = ${runs * BENCH_N})`);
  return per;
}

/** Writes (or reuses) the archive of `updates` optimizer updates under `workDir`. */
export async function ensureAnalysisArchive(
  updates: number,
  opts: { workDir: string; runs?: number; seed?: number; log?: (line: string) => void },
): Promise<AnalysisArchive> {
  const runs = opts.runs ?? 4;
  const seed = opts.seed ?? 20260601;
  const perRun = rolloutsPerRunFor(updates, runs);
  const dir = path.join(opts.workDir, `analysis-u${updates}-r${runs}-s${seed}-v${DATA_VERSION}`);
  const manifestPath = path.join(dir, MANIFEST_FILE);
  if (existsSync(manifestPath)) {
    const m = JSON.parse(await fsp.readFile(manifestPath, "utf8")) as SourceManifest;
    return { dir, updates, rows: sum(m.runs.map((r) => r.historyEvents)), bytes: sum(m.runs.map((r) => r.bytes)), writeSeconds: 0 };
  }
  const t0 = performance.now();
  const tmp = `${dir}.tmp-${process.pid}`;
  await fsp.rm(tmp, { recursive: true, force: true });
  await fsp.mkdir(path.join(tmp, HISTORY_DIR), { recursive: true });
  const set = benchRunSet(runs, perRun, seed, "ana");
  const manifestRuns: ManifestRun[] = [];
  for (const run of set.runs) {
    const file = historyFile(run.runId);
    const writer = await FrozenFileWriter.create(path.join(tmp, file));
    let batch: HistoryRow[] = [];
    let lastStep = -1;
    const pending: HistoryRow[][] = [];
    // The generator is synchronous and the writer asynchronous: a run's rows are made first (at 10^6
    // updates ~625k rows, a few hundred MB, once: the archive is cached), then written in batches.
    generateRun(run.spec, (row) => {
      batch.push(row);
      lastStep = row._step;
      if (batch.length === 10_000) {
        pending.push(batch);
        batch = [];
      }
    });
    pending.push(batch);
    for (const b of pending) await writer.writeRows(b);
    const info = await writer.close();
    manifestRuns.push({
      entity: "bench-entity",
      project: "bench-analysis",
      runId: run.runId,
      round: run.round,
      state: "finished",
      historyEvents: info.rows,
      lastStep,
      createdAt: null,
      fetchedAt: "2026-06-01T00:00:00.000Z",
      file,
      sha256: info.sha256,
      bytes: info.bytes,
      displayName: run.round,
      droppedKeys: {},
    });
    opts.log?.(`  wrote ${run.runId}: ${info.rows} rows, ${(info.bytes / 2 ** 20).toFixed(0)} MiB`);
  }
  const manifest: SourceManifest = { kind: "wandb-frozen-history", formatVersion: 1, readerVersion: "bench", pageSize: 1000, runs: manifestRuns };
  await fsp.writeFile(path.join(tmp, MANIFEST_FILE), serializeManifest(manifest));
  await fsp.rm(dir, { recursive: true, force: true });
  await fsp.rename(tmp, dir);
  return {
    dir,
    updates,
    rows: sum(manifestRuns.map((r) => r.historyEvents)),
    bytes: sum(manifestRuns.map((r) => r.bytes)),
    writeSeconds: (performance.now() - t0) / 1000,
  };
}

function sum(xs: number[]): number {
  return xs.reduce((a, b) => a + b, 0);
}
