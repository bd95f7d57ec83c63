/**
 * Fetch benchmark: the local W&B test server holds `runs` slime-shaped runs of `rowsPerRun` rows;
 * our reader (fetchAndFreeze with default settings, and the bare scan), the current official Python
 * client (wandb 0.31, `.venv-wandb-current`) on both of its paths, the legacy client (wandb 0.21.0,
 * `.venv`) and a lean sequential reader of the same protocol in plain Python read all of them,
 * alternating, each side as its own process. The `*-parquet` sides run while the server offers W&B-
 * style parquet exports of every run (the other sides while it offers none, so they page). Reports
 * rows/s, per-repetition ratios (theirs / ours) and peak memory against the frozen data size.
 */
import { mkdtempSync, rmSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

import { startWandbTestServer, type WandbTestServer } from "../tools/wandb-test-server/server";
import { CURRENT_PYTHON, prebuiltCommand, runChild, VENV_PYTHON, type ChildResult } from "./child";
import { median } from "./stats";
import { benchRunSet, generateRun, pyJsonRow, rolloutsForRows } from "./slime-history";

const ENTITY = "bench-entity";
const PROJECT = "bench-fetch";
const API_KEY = "benchlocalkey".padEnd(40, "0");

/** Sides of the fetch benchmark. `official` is the current client (0.31) on the HistoryPage path. */
export type FetchSide = "ours-freeze" | "ours-scan" | "official" | "server-raw" | "official-legacy" | "lean" | "ours-freeze-parquet" | "official-parquet";

/** Every side, in the order a repetition runs them by default. */
export const ALL_FETCH_SIDES: readonly FetchSide[] = [
  "ours-freeze",
  "official",
  "ours-freeze-parquet",
  "official-parquet",
  "official-legacy",
  "lean",
  "ours-scan",
  "server-raw",
];

/** A whole official-client process longer than this is taken as hung (killed, then run once more). */
const OFFICIAL_TIMEOUT_MS = 5 * 60_000;

/** Sides read while the server offers parquet exports. */
const PARQUET_SIDES: ReadonlySet<FetchSide> = new Set(["ours-freeze-parquet", "official-parquet"]);

/** Ratio pairs reported: theirs / ours, per repetition, median. */
export const FETCH_PAIRS: readonly { theirs: FetchSide; ours: FetchSide; label: string }[] = [
  { theirs: "official", ours: "ours-freeze", label: "current official client, HistoryPage path" },
  { theirs: "official-parquet", ours: "ours-freeze-parquet", label: "current official client, parquet path" },
  { theirs: "official-legacy", ours: "ours-freeze", label: "wandb 0.21.0 (legacy)" },
  { theirs: "lean", ours: "ours-freeze", label: "lean sequential reader (plain Python)" },
];

/** One reported ratio: medians over repetitions of theirs / ours, in-process and whole-process. */
export interface PairRatio {
  theirs: FetchSide;
  ours: FetchSide;
  label: string;
  inProcess: number;
  wall: number;
}

/** Options of {@link runFetchBench}. */
export interface FetchBenchOptions {
  /** History rows per run (the last rollout batch may be cut short). */
  rowsPerRun: number;
  runs: number;
  /** Counted repetitions of each side. */
  reps: number;
  /** Sides to run, in the order of each repetition. */
  sides?: FetchSide[];
  /** Python of the legacy client and the lean reader (default .venv). */
  python?: string;
  /** Python of the current official client (default .venv-wandb-current). */
  currentPython?: string;
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
  /** Theirs / ours for each pair in FETCH_PAIRS whose two sides ran (absent in older results). */
  pairs?: PairRatio[];
  /** wandb version of the legacy side. */
  legacyWandbVersion?: string | null;
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
  const currentPython = opts.currentPython ?? CURRENT_PYTHON;
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
      server.setParquetExports({ enabled: PARQUET_SIDES.has(side) });
      if (side === "official" || side === "official-parquet" || side === "official-legacy") {
        // A fresh cache per process: the current client caches downloaded exports (WANDB_CACHE_DIR).
        const py = side === "official-legacy" ? python : currentPython;
        const attempt = async (n: number) => {
          const env = { ...pyEnv, WANDB_CACHE_DIR: path.join(tmp, `wandb-cache-${side}-${rep}-${n}`) };
          try {
            return await runChild<ChildReport>(py, [path.join(__dirname, "fetch_official.py"), projectPath, ...runIds], env, undefined, OFFICIAL_TIMEOUT_MS);
          } finally {
            rmSync(env.WANDB_CACHE_DIR, { recursive: true, force: true });
          }
        };
        try {
          res = await attempt(1);
        } catch (e) {
          // Seen on the loaded 2-core machine: the client loses its wandb-core service and hangs.
          log(`  rep ${rep + 1} ${side}: failed or hung (${(e as Error).message.split("\n")[0]}); run again once`);
          res = await attempt(2);
        }
      } else if (side === "lean") {
        const out = path.join(tmp, `lean-${rep}`);
        res = await runChild<ChildReport>(python, [path.join(__dirname, "fetch_lean.py"), projectPath, out, ...runIds], baseEnv);
        rmSync(out, { recursive: true, force: true });
      } else {
        const mode = side === "ours-freeze" || side === "ours-freeze-parquet" ? "freeze" : side === "ours-scan" ? "scan" : "raw";
        const out = path.join(tmp, `archive-${rep}`);
        // Prebuilt, as `npm run fetch` starts: no TypeScript compile in the whole-process time.
        const [cmd, args] = prebuiltCommand("bench/fetch-ours.ts", [mode, projectPath, mode === "freeze" ? out : "-", ...runIds]);
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
    // Warm-up (not counted): the server's request path gets compiled, files get into the page cache,
    // and the server writes its parquet exports once (they are cached, as W&B's are).
    if (sides.includes("ours-scan")) await runSide("ours-scan", -1);
    if (sides.some((s) => PARQUET_SIDES.has(s))) await runSide("ours-freeze-parquet", -1);
    const samples: FetchSample[] = [];
    for (let rep = 0; rep < opts.reps; rep++) {
      for (const side of sides) {
        const s = await runSide(side, rep);
        samples.push(s);
        log(
          `  rep ${rep + 1}/${opts.reps} ${side.padEnd(11)} ${s.seconds.toFixed(2)} s (process ${s.wallSeconds.toFixed(2)} s), peak ${s.peakRssKb === null ? "n/a" : Math.round(s.peakRssKb / 1024)} MiB`,
        );
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
    const frozen = samples.find((s) => (s.side === "ours-freeze" || s.side === "ours-freeze-parquet") && s.bytes !== null);
    const pairs: PairRatio[] = [];
    for (const p of FETCH_PAIRS) {
      if (!sides.includes(p.theirs) || !sides.includes(p.ours)) continue;
      const ratio = (field: "seconds" | "wallSeconds") => {
        const xs: number[] = [];
        for (let rep = 0; rep < opts.reps; rep++) {
          const a = samples.find((s) => s.side === p.theirs && s.rep === rep)!;
          const b = samples.find((s) => s.side === p.ours && s.rep === rep)!;
          xs.push(a[field] / b[field]);
        }
        return median(xs);
      };
      pairs.push({ ...p, inProcess: ratio("seconds"), wall: ratio("wallSeconds") });
    }
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
      wandbVersion: samples.find((s) => (s.side === "official" || s.side === "official-parquet") && s.wandb)?.wandb ?? null,
      pairs,
      legacyWandbVersion: samples.find((s) => s.side === "official-legacy" && s.wandb)?.wandb ?? null,
    };
  } finally {
    await server.close();
    rmSync(tmp, { recursive: true, force: true });
  }
}
