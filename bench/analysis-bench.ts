/**
 * Analysis benchmark: the workspace pipeline (bench/analysis-ours.ts: load -> align -> summaries ->
 * export) against the same analysis in pandas (bench/analysis_pandas.py) on the same frozen archive,
 * alternating, each side its own process. Outputs are compared before any time is reported: the
 * summary numbers of every repetition (relative 1e-9) and the CSVs cell by cell (first repetition).
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { readFileSync } from "node:fs";

import { ensureAnalysisArchive } from "./analysis-data";
import { runChild, tsxCommand, VENV_PYTHON } from "./child";
import { median } from "./stats";
import { diffCsv, diffJson } from "./summary-json";

/** Sides of the analysis benchmark. */
export type AnalysisSide = "ours" | "pandas";

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
  /** Median phase seconds per side. */
  medianPhases: Record<AnalysisSide, Record<string, number>>;
  medianSeconds: Record<AnalysisSide, number>;
  maxPeakRssKb: Record<AnalysisSide, number | null>;
  /** Why our side needed other Node options, when it did. */
  oursNote: string | null;
  /** Node options our side was measured with (empty = Node's defaults, as a tslab kernel runs). */
  oursNodeOptions: string[];
  /** Our side failed with the default options (true), was not tried with them (null), or ran with them (false). */
  defaultHeapFailed: boolean | null;
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
  try {
    const runSide = async (side: AnalysisSide, rep: number): Promise<AnalysisSample> => {
      const out = path.join(tmp, `${side}-${rep}`);
      rmSync(out, { recursive: true, force: true });
      mkdirSync(out, { recursive: true });
      let report: ChildReport;
      let wallSeconds: number;
      if (side === "pandas") {
        ({ report, wallSeconds } = await runChild<ChildReport>(python, [path.join(__dirname, "analysis_pandas.py"), archive.dir, out], env));
      } else {
        const [cmd, args] = tsxCommand("bench/analysis-ours.ts", [archive.dir, out]);
        try {
          ({ report, wallSeconds } = await runChild<ChildReport>(cmd, [...nodeOptions, ...args], env));
        } catch (e) {
          if (!opts.retryNodeOptions || nodeOptions.join(" ") === opts.retryNodeOptions.join(" ")) throw e;
          const oom = /heap out of memory|Allocation failed/i.test((e as Error).message);
          const what = nodeOptions.length ? `with ${nodeOptions.join(" ")}` : "with Node's default options";
          oursNote = `${what} our side ${oom ? "ran out of heap (JavaScript heap out of memory)" : "failed"} at ${opts.updates} updates; measured with ${opts.retryNodeOptions.join(" ")}`;
          if (nodeOptions.length === 0) defaultHeapFailed = true;
          log(`  ${oursNote}`);
          nodeOptions = opts.retryNodeOptions;
          ({ report, wallSeconds } = await runChild<ChildReport>(cmd, [...nodeOptions, ...args], env));
        }
      }
      return { side, rep, seconds: report.seconds, phases: report.phases, wallSeconds, peakRssKb: report.peakRssKb };
    };
    const compare = (rep: number, withCsv: boolean) => {
      const a = path.join(tmp, `ours-${rep}`);
      const b = path.join(tmp, `pandas-${rep}`);
      const read = (d: string) => JSON.parse(readFileSync(path.join(d, "summary.json"), "utf8")) as unknown;
      differences.push(...diffJson(read(a), read(b), 1e-9).map((d) => `rep ${rep + 1} summary ${d}`));
      if (withCsv) {
        for (const f of ["rollouts.csv", "updates.csv", "summary.csv"]) {
          differences.push(...diffCsv(path.join(a, "exports", f), path.join(b, "exports", f), 1e-9).map((d) => `rep ${rep + 1} ${d}`));
        }
      }
    };
    for (let rep = 0; rep < opts.reps; rep++) {
      for (const side of ["ours", "pandas"] as const) {
        const s = await runSide(side, rep);
        samples.push(s);
        log(
          `  rep ${rep + 1}/${opts.reps} ${side.padEnd(6)} ${s.seconds.toFixed(2)} s (${PHASES.map((p) => `${p} ${(s.phases[p] ?? 0).toFixed(2)}`).join(", ")}), peak ${s.peakRssKb === null ? "n/a" : Math.round(s.peakRssKb / 1024)} MiB`,
        );
      }
      compare(rep, rep === 0 && opts.compareCsv !== false);
      if (differences.length) {
        log(`  outputs differ: ${differences.slice(0, 5).join("; ")}`);
        break;
      }
      for (const side of ["ours", "pandas"]) rmSync(path.join(tmp, `${side}-${rep}`), { recursive: true, force: true });
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  const of = (side: AnalysisSide) => samples.filter((s) => s.side === side);
  const medianPhases = (side: AnalysisSide) => Object.fromEntries(PHASES.map((p) => [p, median(of(side).map((s) => s.phases[p] ?? 0))]));
  const peak = (side: AnalysisSide) => {
    const xs = of(side)
      .map((s) => s.peakRssKb)
      .filter((x): x is number => x !== null);
    return xs.length ? Math.max(...xs) : null;
  };
  const reps = Math.min(of("ours").length, of("pandas").length);
  const ratios: number[] = [];
  for (let rep = 0; rep < reps; rep++) ratios.push(of("pandas")[rep].seconds / of("ours")[rep].seconds);
  return {
    updates: opts.updates,
    rows: archive.rows,
    archiveBytes: archive.bytes,
    archiveWriteSeconds: archive.writeSeconds,
    reps,
    samples,
    differences,
    ratio: differences.length === 0 && ratios.length ? median(ratios) : null,
    medianPhases: { ours: medianPhases("ours"), pandas: medianPhases("pandas") },
    medianSeconds: { ours: median(of("ours").map((s) => s.seconds)), pandas: median(of("pandas").map((s) => s.seconds)) },
    maxPeakRssKb: { ours: peak("ours"), pandas: peak("pandas") },
    oursNote,
    oursNodeOptions: nodeOptions,
    defaultHeapFailed,
  };
}
