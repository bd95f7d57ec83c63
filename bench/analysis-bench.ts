/**
 * Analysis benchmark: the workspace pipeline (bench/analysis-ours.ts: load -> align -> summaries ->
 * export) against the same analysis in pandas (bench/analysis_pandas.py) and in DuckDB SQL
 * (bench/analysis_duckdb.py) on the same frozen archive, and beside them the export alone as `npm run
 * export` runs it (bench/analysis-ours-export.ts) and the least DuckDB job that writes the two record
 * CSVs (bench/analysis_duckdb_minimal.py), alternating, each side its own process.
 * Outputs are compared with ours before any time is reported: the summary numbers of every
 * repetition (relative 1e-9) and the CSVs cell by cell (first repetition).
 */
import { closeSync, mkdirSync, mkdtempSync, openSync, readSync, rmSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { readFileSync } from "node:fs";

import { ensureAnalysisArchive } from "./analysis-data";
import { runChild, tsxCommand, VENV_PYTHON } from "./child";
import { median } from "./stats";
import { diffCsv, diffJson } from "./summary-json";

/** Sides of the analysis benchmark. */
export type AnalysisSide = "ours" | "pandas" | "duckdb" | "ours-export" | "duckdb-minimal";

/** All sides, in the order they run in each repetition. */
export const ALL_ANALYSIS_SIDES: readonly AnalysisSide[] = ["ours", "pandas", "duckdb", "ours-export", "duckdb-minimal"];

/** Our sides: the full job, and the export alone (issue 42's comparison with the minimal DuckDB job). */
const OUR_SCRIPT: Record<"ours" | "ours-export", string> = { ours: "bench/analysis-ours.ts", "ours-export": "bench/analysis-ours-export.ts" };

/** True for our sides (TypeScript), false for the Python ones. */
function isOurs(side: AnalysisSide): side is "ours" | "ours-export" {
  return side === "ours" || side === "ours-export";
}

/** Script of each Python side. */
const PYTHON_SCRIPT: Record<Exclude<AnalysisSide, "ours" | "ours-export">, string> = {
  pandas: "analysis_pandas.py",
  duckdb: "analysis_duckdb.py",
  "duckdb-minimal": "analysis_duckdb_minimal.py",
};

/**
 * CSVs each Python side writes (the DuckDB side does the job of issue 20: the two record CSVs; the
 * minimal DuckDB job of issue 42 only those two, as the floor of the export).
 */
const COMPARED_CSVS: Record<Exclude<AnalysisSide, "ours">, string[]> = {
  // The export alone writes the same files as the full job: compared byte for byte.
  "ours-export": ["rollouts.csv", "updates.csv", "summary.csv", "superseded.csv", "health.csv"],
  pandas: ["rollouts.csv", "updates.csv", "summary.csv"],
  duckdb: ["rollouts.csv", "updates.csv"],
  "duckdb-minimal": ["rollouts.csv", "updates.csv"],
};

/** Sides that compute no summary numbers (no summary.json to compare): the minimal DuckDB job. */
const WITHOUT_SUMMARY: ReadonlySet<AnalysisSide> = new Set(["ours-export", "duckdb-minimal"]);

/** Our side once with Node's default heap (the heap a tslab kernel gets). */
export interface DefaultHeapRun {
  ok: boolean;
  seconds: number | null;
  peakRssKb: number | null;
  /** Why it failed (out of heap, timeout, other), when it did. */
  failure: string | null;
  /** True when this is the benchmark's own samples (they ran with the default heap), false for a separate run. */
  fromSamples: boolean;
}

/** Phases both sides time, in order. */
export const PHASES = ["load", "align", "summaries", "export"] as const;

/** Options of {@link runAnalysisBench}. */
export interface AnalysisBenchOptions {
  /** Optimizer updates in total (over `runs` runs, N = 2). */
  updates: number;
  runs?: number;
  reps: number;
  /** Where archives are cached. */
  workDir: string;
  python?: string;
  /** Extra Node options of our side (e.g. --max-old-space-size=16384); default none. */
  nodeOptions?: string[];
  /** When our side dies (e.g. out of heap) with `nodeOptions`, retry once with these. */
  retryNodeOptions?: string[];
  /** Compare the CSV files too (reads them back; slow at 10^6). Default true. */
  compareCsv?: boolean;
  /** Sides to run (default all; "ours" always runs, the others are compared with it). */
  sides?: readonly AnalysisSide[];
  /**
   * When `nodeOptions` raise the heap: also run our side once with Node's default heap first, so the
   * memory target is judged on the heap a notebook kernel gets. Timeout of that run in seconds.
   */
  defaultHeapRunTimeoutSeconds?: number;
  log?: (line: string) => void;
}

/** One side in one repetition. */
export interface AnalysisSample {
  side: AnalysisSide;
  rep: number;
  seconds: number;
  phases: Record<string, number>;
  wallSeconds: number;
  peakRssKb: number | null;
}

/** Result of one analysis benchmark size. */
export interface AnalysisBenchResult {
  updates: number;
  rows: number;
  archiveBytes: number;
  archiveWriteSeconds: number;
  reps: number;
  samples: AnalysisSample[];
  /** Differences found between the outputs (empty = equal); timings are only reported when empty. */
  differences: string[];
  /** Median over repetitions of pandas.seconds / ours.seconds (paired): > 1 means ours is faster. */
  ratio: number | null;
  /** Median over repetitions of ours.seconds / duckdb.seconds (paired): < 1 means ours is faster (absent in older results). */
  oursOverDuckdb?: number | null;
  /** The same against the minimal DuckDB job (load, split, group, COPY; absent in older results). */
  oursOverDuckdbMinimal?: number | null;
  /** The export alone (`npm run export`'s job) against the minimal DuckDB job (absent in older results). */
  oursExportOverDuckdbMinimal?: number | null;
  /** Sides run (absent in older results: ours and pandas). */
  sides?: AnalysisSide[];
  /** Median phase seconds per side run. */
  medianPhases: Partial<Record<AnalysisSide, Record<string, number>>>;
  medianSeconds: Partial<Record<AnalysisSide, number>>;
  maxPeakRssKb: Partial<Record<AnalysisSide, number | null>>;
  /** Why our side needed other Node options, when it did. */
  oursNote: string | null;
  /** Node options our side was measured with (empty = Node's defaults, as a tslab kernel runs). */
  oursNodeOptions: string[];
  /** Our side failed with the default options (true), was not tried with them (null), or ran with them (false). */
  defaultHeapFailed: boolean | null;
  /** Our side with Node's default heap (null: not run at this size; absent in older results). */
  defaultHeap?: DefaultHeapRun | null;
}

interface ChildReport {
  seconds: number;
  phases: Record<string, number>;
  peakRssKb: number | null;
  updates: number;
}

/** Runs the analysis benchmark for one size. */
export async function runAnalysisBench(opts: AnalysisBenchOptions): Promise<AnalysisBenchResult> {
  const log = opts.log ?? (() => undefined);
  const python = opts.python ?? VENV_PYTHON;
  const archive = await ensureAnalysisArchive(opts.updates, { workDir: opts.workDir, runs: opts.runs, log });
  log(
    `analysis ${opts.updates} updates: archive ${archive.rows} rows, ${(archive.bytes / 2 ** 20).toFixed(0)} MiB` +
      (archive.writeSeconds ? ` (written in ${archive.writeSeconds.toFixed(0)} s)` : " (cached)"),
  );
  const tmp = mkdtempSync(path.join(os.tmpdir(), "bench-analysis-"));
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? tmp, TMPDIR: tmp, PYTHONWARNINGS: "ignore", TZ: "UTC" };
  let nodeOptions = opts.nodeOptions ?? [];
  let oursNote: string | null = null;
  let defaultHeapFailed: boolean | null = nodeOptions.length === 0 ? false : null;
  const samples: AnalysisSample[] = [];
  const differences: string[] = [];
  const sides = ALL_ANALYSIS_SIDES.filter((s) => s === "ours" || !opts.sides || opts.sides.includes(s));
  let defaultHeap: DefaultHeapRun | null = null;
  let defaultHeapFailure: string | null = null;
  try {
    const runSide = async (side: AnalysisSide, rep: number): Promise<AnalysisSample> => {
      const out = path.join(tmp, `${side}-${rep}`);
      rmSync(out, { recursive: true, force: true });
      mkdirSync(out, { recursive: true });
      let report: ChildReport;
      let wallSeconds: number;
      if (!isOurs(side)) {
        ({ report, wallSeconds } = await runChild<ChildReport>(python, [path.join(__dirname, PYTHON_SCRIPT[side]), archive.dir, out], env));
      } else {
        const [cmd, args] = tsxCommand(OUR_SCRIPT[side], [archive.dir, out]);
        try {
          ({ report, wallSeconds } = await runChild<ChildReport>(cmd, [...nodeOptions, ...args], env));
        } catch (e) {
          if (!opts.retryNodeOptions || nodeOptions.join(" ") === opts.retryNodeOptions.join(" ")) throw e;
          const oom = /heap out of memory|Allocation failed/i.test((e as Error).message);
          const what = nodeOptions.length ? `with ${nodeOptions.join(" ")}` : "with Node's default options";
          oursNote = `${what} our side ${oom ? "ran out of heap (JavaScript heap out of memory)" : "failed"} at ${opts.updates} updates; measured with ${opts.retryNodeOptions.join(" ")}`;
          if (nodeOptions.length === 0) {
            defaultHeapFailed = true;
            defaultHeapFailure = oom ? "ran out of heap (JavaScript heap out of memory)" : "failed";
          }
          log(`  ${oursNote}`);
          nodeOptions = opts.retryNodeOptions;
          ({ report, wallSeconds } = await runChild<ChildReport>(cmd, [...nodeOptions, ...args], env));
        }
      }
      return { side, rep, seconds: report.seconds, phases: report.phases, wallSeconds, peakRssKb: report.peakRssKb };
    };
    const compare = (rep: number, withCsv: boolean) => {
      const a = path.join(tmp, `ours-${rep}`);
      const read = (d: string) => JSON.parse(readFileSync(path.join(d, "summary.json"), "utf8")) as unknown;
      for (const side of sides) {
        if (side === "ours") continue;
        const b = path.join(tmp, `${side}-${rep}`);
        // Old messages (pandas) carry no side name; the DuckDB side's do.
        const tag = side === "pandas" ? "" : `${side} `;
        if (!WITHOUT_SUMMARY.has(side)) differences.push(...diffJson(read(a), read(b), 1e-9).map((d) => `rep ${rep + 1} ${tag}summary ${d}`));
        for (const f of COMPARED_CSVS[side]) {
          const [fa, fb] = [path.join(a, "exports", f), path.join(b, "exports", f)];
          if (side === "ours-export") {
            if (!sameBytes(fa, fb)) differences.push(`rep ${rep + 1} ${tag}${f}: not the full job's bytes`);
          } else if (withCsv) differences.push(...diffCsv(fa, fb, 1e-9).map((d) => `rep ${rep + 1} ${tag}${d}`));
          else if (lineCount(fa) !== lineCount(fb)) differences.push(`rep ${rep + 1} ${tag}${f}: ${lineCount(fa) - 1} vs ${lineCount(fb) - 1} data rows`);
        }
      }
    };
    if (nodeOptions.length && opts.defaultHeapRunTimeoutSeconds) {
      defaultHeap = await runDefaultHeap(archive.dir, tmp, env, opts.defaultHeapRunTimeoutSeconds);
      log(
        `  ours with Node's default heap: ${defaultHeap.ok ? `${defaultHeap.seconds!.toFixed(2)} s, peak ${Math.round(defaultHeap.peakRssKb! / 1024)} MiB` : defaultHeap.failure}`,
      );
    }
    for (let rep = 0; rep < opts.reps; rep++) {
      for (const side of sides) {
        const s = await runSide(side, rep);
        samples.push(s);
        log(
          `  rep ${rep + 1}/${opts.reps} ${side.padEnd(14)} ${s.seconds.toFixed(2)} s (${PHASES.map((p) => `${p} ${(s.phases[p] ?? 0).toFixed(2)}`).join(", ")}), peak ${s.peakRssKb === null ? "n/a" : Math.round(s.peakRssKb / 1024)} MiB`,
        );
      }
      compare(rep, rep === 0 && opts.compareCsv !== false);
      if (differences.length) {
        log(`  outputs differ: ${differences.slice(0, 5).join("; ")}`);
        break;
      }
      for (const side of sides) rmSync(path.join(tmp, `${side}-${rep}`), { recursive: true, force: true });
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  const of = (side: AnalysisSide) => samples.filter((s) => s.side === side);
  const ran = sides.filter((side) => of(side).length > 0);
  const medianPhases = (side: AnalysisSide) => Object.fromEntries(PHASES.map((p) => [p, median(of(side).map((s) => s.phases[p] ?? 0))]));
  const peak = (side: AnalysisSide) => {
    const xs = of(side)
      .map((s) => s.peakRssKb)
      .filter((x): x is number => x !== null);
    return xs.length ? Math.max(...xs) : null;
  };
  const reps = Math.min(...sides.map((side) => of(side).length));
  // Paired per repetition: the sides ran back to back, which cancels much of the machine's drift.
  const paired = (num: AnalysisSide, den: AnalysisSide) => {
    if (differences.length || !sides.includes(num) || !sides.includes(den) || reps === 0) return null;
    const xs: number[] = [];
    for (let rep = 0; rep < reps; rep++) xs.push(of(num)[rep].seconds / of(den)[rep].seconds);
    return median(xs);
  };
  if (!defaultHeap && (opts.nodeOptions ?? []).length === 0 && of("ours").length) {
    // Our samples ran with the default heap (or failed with it and were retried with a raised one).
    const oursDefault = samples.filter((s) => s.side === "ours");
    defaultHeap = defaultHeapFailed
      ? { ok: false, seconds: null, peakRssKb: null, failure: defaultHeapFailure, fromSamples: true }
      : {
          ok: true,
          seconds: median(oursDefault.map((s) => s.seconds)),
          peakRssKb: Math.max(...oursDefault.map((s) => s.peakRssKb ?? 0)) || null,
          failure: null,
          fromSamples: true,
        };
  }
  return {
    updates: opts.updates,
    rows: archive.rows,
    archiveBytes: archive.bytes,
    archiveWriteSeconds: archive.writeSeconds,
    reps,
    samples,
    differences,
    ratio: paired("pandas", "ours"),
    oursOverDuckdb: paired("ours", "duckdb"),
    oursOverDuckdbMinimal: paired("ours", "duckdb-minimal"),
    oursExportOverDuckdbMinimal: paired("ours-export", "duckdb-minimal"),
    sides: ran,
    medianPhases: Object.fromEntries(ran.map((side) => [side, medianPhases(side)])),
    medianSeconds: Object.fromEntries(ran.map((side) => [side, median(of(side).map((s) => s.seconds))])),
    maxPeakRssKb: Object.fromEntries(ran.map((side) => [side, peak(side)])),
    oursNote,
    oursNodeOptions: nodeOptions,
    defaultHeapFailed,
    defaultHeap,
  };
}

/** True when two files hold the same bytes (read in chunks: the CSVs reach GBs). */
function sameBytes(a: string, b: string): boolean {
  const [fa, fb] = [openSync(a, "r"), openSync(b, "r")];
  const [ba, bb] = [Buffer.alloc(1 << 20), Buffer.alloc(1 << 20)];
  try {
    for (;;) {
      const na = readSync(fa, ba);
      const nb = readSync(fb, bb);
      if (na !== nb || !ba.subarray(0, na).equals(bb.subarray(0, nb))) return false;
      if (na === 0) return true;
    }
  } finally {
    closeSync(fa);
    closeSync(fb);
  }
}

/** Lines of a file (a CSV's rows: the exports quote no newlines), read in chunks: the CSVs reach GBs. */
function lineCount(file: string): number {
  const fd = openSync(file, "r");
  const buf = Buffer.alloc(1 << 20);
  let lines = 0;
  try {
    for (let n = readSync(fd, buf); n > 0; n = readSync(fd, buf)) {
      for (let i = buf.indexOf(10); i !== -1 && i < n; i = buf.indexOf(10, i + 1)) lines++;
    }
  } finally {
    closeSync(fd);
  }
  return lines;
}

/** Our side once with Node's default heap; a failure (out of heap, timeout) is a result, not an error. */
async function runDefaultHeap(archiveDir: string, tmp: string, env: NodeJS.ProcessEnv, timeoutSeconds: number): Promise<DefaultHeapRun> {
  const out = path.join(tmp, "ours-default-heap");
  mkdirSync(out, { recursive: true });
  const [cmd, args] = tsxCommand("bench/analysis-ours.ts", [archiveDir, out]);
  try {
    const { report } = await runChild<ChildReport>(cmd, args, env, undefined, timeoutSeconds * 1000);
    return { ok: true, seconds: report.seconds, peakRssKb: report.peakRssKb, failure: null, fromSamples: false };
  } catch (e) {
    const msg = (e as Error).message;
    const failure = /heap out of memory|Allocation failed/i.test(msg)
      ? "ran out of heap (JavaScript heap out of memory)"
      : /SIGKILL|SIGTERM/.test(msg)
        ? `did not finish within ${timeoutSeconds} s`
        : `failed: ${msg.split("\n").slice(0, 2).join(" ")}`;
    return { ok: false, seconds: null, peakRssKb: null, failure, fromSamples: false };
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}
