/**
 * Fetch benchmark: the local W&B test server holds `runs` slime-shaped runs of `rowsPerRun` rows;
 * our reader (fetchAndFreeze with default settings, and the bare scan) and the official Python
 * client's scan_history read all of them, alternating, each side as its own process. Reports rows/s,
 * the per-repetition ratio official/ours and peak memory against the frozen data size.
 */
import { mkdtempSync, rmSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

import { startWandbTestServer, type WandbTestServer } from "../tools/wandb-test-server/server";
import { runChild, tsxCommand, VENV_PYTHON, type ChildResult } from "./child";
import { median } from "./stats";
import { benchRunSet, generateRun, pyJsonRow, rolloutsForRows } from "./slime-history";

const ENTITY = "bench-entity";
const PROJECT = "bench-fetch";
const API_KEY = "bench-local-key-".padEnd(40, "0");

/** Sides of the fetch benchmark. */
export type FetchSide = "ours-freeze" | "ours-scan" | "official" | "server-raw";

/** Options of {@link runFetchBench}. */
export interface FetchBenchOptions {
  /** History rows per run (the last rollout batch may be cut short). */
  rowsPerRun: number;
  runs: number;
  /** Counted repetitions of each side. */
  reps: number;
  /** Sides to run, in the order of each repetition. */
  sides?: FetchSide[];
  python?: string;
  seed?: number;
  /** Added delay of every HistoryPage answer, ms (a remote server's round trip); default 0. */
  latencyMs?: number;
  /** Progress lines. */
  log?: (line: string) => void;
}

/** What one side reported in one repetition. */
export interface FetchSample {
  side: FetchSide;
  rep: number;
  rows: number[];
  /** Seconds of the fetch itself (process start-up and imports excluded), measured in the child. */
  seconds: number;
  /** Whole process, as the parent saw it. */
  wallSeconds: number;
  peakRssKb: number | null;
  /** Frozen bytes (ours-freeze only). */
  bytes: number | null;
  wandb?: string;
}

/** Summary of one side over the repetitions. */
export interface FetchSideSummary {
  side: FetchSide;
  medianSeconds: number;
  medianWallSeconds: number;
  rowsPerSecond: number;
  maxPeakRssKb: number | null;
}

/** Result of one fetch benchmark configuration. */
export interface FetchBenchResult {
  rowsPerRun: number;
  /** Added delay per HistoryPage answer, ms (0 = the local server as fast as it goes). */
  latencyMs: number;
  runs: number;
  totalRows: number;
  reps: number;
  /** Bytes of the frozen archive (history files), from the manifest. */
  frozenBytes: number | null;
  /** Seconds to generate the rows and load them into the server (not timed against anyone). */
  setupSeconds: number;
  samples: FetchSample[];
  sides: FetchSideSummary[];
  /** Median over repetitions of official.seconds / ours-freeze.seconds (paired by repetition). */
  ratioFreeze: number | null;
  /** Same for the bare scan. */
  ratioScan: number | null;
  /** Same on whole-process wall time (start-up and imports included). */
  ratioFreezeWall: number | null;
  /** Every side read every row of every run. */
  rowsAgree: boolean;
  wandbVersion: string | null;
}

interface ChildReport {
  rows: number[];
  seconds: number;
  peakRssKb: number | null;
  bytes?: number | null;
  wandb?: string;
}

/** Loads the bench runs into a server; returns the run ids and the row counts. */
export function loadBenchRuns(server: WandbTestServer, rowsPerRun: number, runs: number, seed = 20260601): { runIds: string[]; rows: number[] } {
  const set = benchRunSet(runs, rolloutsForRows(rowsPerRun), seed, "bench", rowsPerRun);
  const runIds: string[] = [];
  const counts: number[] = [];
  for (const run of set.runs) {
    const rows: string[] = [];
    generateRun(run.spec, (row) => rows.push(pyJsonRow(row)));
    server.addRun({ entity: ENTITY, project: PROJECT, runId: run.runId, state: "finished", displayName: run.round, rows });
    runIds.push(run.runId);
    counts.push(rows.length);
  }
  return { runIds, rows: counts };
}

/** Runs the fetch benchmark for one size. */
export async function runFetchBench(opts: FetchBenchOptions): Promise<FetchBenchResult> {
  const log = opts.log ?? (() => undefined);
  const sides = opts.sides ?? ["ours-freeze", "official", "ours-scan"];
  const python = opts.python ?? VENV_PYTHON;
  const tmp = mkdtempSync(path.join(os.tmpdir(), "bench-fetch-"));
  const server = await startWandbTestServer({ apiKey: API_KEY });
  try {
    const t0 = performance.now();
    const { runIds, rows: expected } = loadBenchRuns(server, opts.rowsPerRun, opts.runs, opts.seed);
    const setupSeconds = (performance.now() - t0) / 1000;
    const latencyMs = opts.latencyMs ?? 0;
    // Every page waits like a round trip to a remote server would (concurrent pages wait concurrently).
    if (latencyMs > 0) server.injectFault({ kind: "delay", ms: latencyMs, count: Number.MAX_SAFE_INTEGER, operationName: "HistoryPage" });
    const totalRows = expected.reduce((a, b) => a + b, 0);
    log(`fetch ${opts.runs} x ${expected[0]} rows${latencyMs ? `, ${latencyMs} ms per page` : ""}: server loaded in ${setupSeconds.toFixed(1)} s`);
    const baseEnv: NodeJS.ProcessEnv = {
      PATH: process.env.PATH ?? "",
      HOME: tmp,
      TMPDIR: tmp,
      WANDB_BASE_URL: server.url,
      WANDB_API_KEY: API_KEY,
      NO_PROXY: "127.0.0.1,localhost",
      no_proxy: "127.0.0.1,localhost",
    };
    const pyEnv: NodeJS.ProcessEnv = {
      ...baseEnv,
      WANDB_MODE: "online",
      WANDB_SILENT: "true",
      WANDB_ERROR_REPORTING: "false",
      WANDB_DISABLE_GIT: "true",
      WANDB_DIR: tmp,
      WANDB_CONFIG_DIR: path.join(tmp, "wandb-config"),
      WANDB_CACHE_DIR: path.join(tmp, "wandb-cache"),
      WANDB_DATA_DIR: path.join(tmp, "wandb-data"),
      PYTHONWARNINGS: "ignore",
    };
    const projectPath = `${ENTITY}/${PROJECT}`;
    const runSide = async (side: FetchSide, rep: number): Promise<FetchSample> => {
      let res: ChildResult<ChildReport>;
      if (side === "official") {
        res = await runChild<ChildReport>(python, [path.join(__dirname, "fetch_official.py"), projectPath, ...runIds], pyEnv);
      } else {
        const mode = side === "ours-freeze" ? "freeze" : side === "ours-scan" ? "scan" : "raw";
        const out = path.join(tmp, `archive-${rep}`);
        const [cmd, args] = tsxCommand("bench/fetch-ours.ts", [mode, projectPath, mode === "freeze" ? out : "-", ...runIds]);
        res = await runChild<ChildReport>(cmd, args, baseEnv);
        rmSync(out, { recursive: true, force: true });
      }
      const r = res.report;
      return {
        side,
        rep,
        rows: r.rows,
        seconds: r.seconds,
        wallSeconds: res.wallSeconds,
        peakRssKb: r.peakRssKb,
        bytes: r.bytes ?? null,
        wandb: r.wandb,
      };
    };
    // Warm-up (not counted): the server's request path gets compiled, files get into the page cache.
    if (sides.includes("ours-scan")) await runSide("ours-scan", -1);
    const samples: FetchSample[] = [];
    for (let rep = 0; rep < opts.reps; rep++) {
      for (const side of sides) {
        const s = await runSide(side, rep);
        samples.push(s);
        log(`  rep ${rep + 1}/${opts.reps} ${side.padEnd(11)} ${s.seconds.toFixed(2)} s (process ${s.wallSeconds.toFixed(2)} s), peak ${s.peakRssKb === null ? "n/a" : Math.round(s.peakRssKb / 1024)} MiB`);
      }
    }
    const rowsAgree = samples.every((s) => s.rows.length === expected.length && s.rows.every((n, i) => n === expected[i]));
    const summaries: FetchSideSummary[] = sides.map((side) => {
      const xs = samples.filter((s) => s.side === side);
      const sec = median(xs.map((s) => s.seconds));
      const peaks = xs.map((s) => s.peakRssKb).filter((x): x is number => x !== null);
      return {
        side,
        medianSeconds: sec,
        medianWallSeconds: median(xs.map((s) => s.wallSeconds)),
        rowsPerSecond: totalRows / sec,
        maxPeakRssKb: peaks.length ? Math.max(...peaks) : null,
      };
    });
    const pairRatio = (a: FetchSide, field: "seconds" | "wallSeconds"): number | null => {
      if (!sides.includes(a) || !sides.includes("official")) return null;
      const ratios: number[] = [];
      for (let rep = 0; rep < opts.reps; rep++) {
        const x = samples.find((s) => s.side === a && s.rep === rep)!;
        const o = samples.find((s) => s.side === "official" && s.rep === rep)!;
        ratios.push(o[field] / x[field]);
      }
      return median(ratios);
    };
    const frozen = samples.find((s) => s.side === "ours-freeze" && s.bytes !== null);
    return {
      rowsPerRun: expected[0],
      latencyMs,
      runs: opts.runs,
      totalRows,
      reps: opts.reps,
      frozenBytes: frozen ? frozen.bytes : null,
      setupSeconds,
      samples,
      sides: summaries,
      ratioFreeze: pairRatio("ours-freeze", "seconds"),
      ratioScan: pairRatio("ours-scan", "seconds"),
      ratioFreezeWall: pairRatio("ours-freeze", "wallSeconds"),
      rowsAgree,
      wandbVersion: samples.find((s) => s.wandb)?.wandb ?? null,
    };
  } finally {
    await server.close();
    rmSync(tmp, { recursive: true, force: true });
  }
}
