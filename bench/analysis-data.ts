/**
 * Input of the analysis benchmark: a frozen archive (manifest.json + history/*.jsonl, rows written
 * with the library's own frozen-row serializer, the bytes its frozen-file writer makes) of `runs`
 * consecutive slime-shaped runs holding `updates` optimizer updates in total. All sides read these
 * same files. Archives are cached by size and seed (bench/work/ is git-ignored), so only the first
 * run pays.
 */
import { createHash } from "node:crypto";
import { closeSync, existsSync, fsyncSync, openSync, promises as fsp, writeSync } from "node:fs";
import * as path from "node:path";

import { frozenRowSerializer } from "../lib/values/frozen-row";
import { HISTORY_DIR, historyFile, MANIFEST_FILE, serializeManifest } from "../lib/archive/manifest";
import type { ManifestRun, SourceManifest } from "../lib/types";
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
    // Streamed as generated (the generator is synchronous): at 10^7 updates a run is 6 M rows,
    // more than a default heap holds as objects.
    const info = writeGeneratedRun(path.join(tmp, file), run.spec);
    const lastStep = info.lastStep;
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

/** Bytes of serialized rows buffered before each write. */
const FLUSH_CHARS = 1 << 24;

/** Generates one run straight into its frozen file: rows, sha256, bytes and the last `_step`. */
function writeGeneratedRun(file: string, spec: Parameters<typeof generateRun>[0]): { rows: number; sha256: string; bytes: number; lastStep: number } {
  const serialize = frozenRowSerializer();
  const hash = createHash("sha256");
  const fd = openSync(file, "w");
  let pending = "";
  let rows = 0;
  let bytes = 0;
  let lastStep = -1;
  const flush = () => {
    const buf = Buffer.from(pending, "utf8");
    pending = "";
    hash.update(buf);
    for (let off = 0; off < buf.length; ) off += writeSync(fd, buf, off);
    bytes += buf.length;
  };
  try {
    generateRun(spec, (row) => {
      pending += serialize(row) + "\n";
      rows++;
      lastStep = row._step;
      if (pending.length >= FLUSH_CHARS) flush();
    });
    flush();
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  return { rows, sha256: hash.digest("hex"), bytes, lastStep };
}
