/**
 * `npm run bench`: fetch, analysis and whole-workspace benchmarks; prints progress and results and
 * writes bench/RESULTS.md. `npm run bench -- --help` lists the knobs.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { parseArgs } from "node:util";

import { ALL_ANALYSIS_SIDES, runAnalysisBench, type AnalysisBenchResult, type AnalysisSide } from "./analysis-bench";
import { ROOT } from "./child";
import { runDetectorsBench } from "./detectors-bench";
import { ALL_FETCH_SIDES, runFetchBench, type FetchBenchResult, type FetchSide } from "./fetch-bench";
import { machineInfo } from "./machine";
import { judgeTargets, renderResults, type BenchResults } from "./report";
import { keepingSection } from "./results-section";
import { runWorkspaceBench, type WorkspaceBenchResult } from "./workspace-bench";

const HELP = `npm run bench -- [options]
npm run bench -- detectors [options]   health checks scored on real runs with injected failures (--help there)

  --rows N            history rows per run of the fetch target size (default 100000)
  --runs N            runs served at sizes up to --rows (default 4)
  --reps N            repetitions per side at sizes up to --rows (default 5)
  --fetch-sizes L     rows per run, comma-separated (default 10000,100000,1000000)
  --big-runs N        runs at fetch sizes above --rows (default 1)
  --big-reps N        repetitions at fetch sizes above --rows and at analysis sizes from the target on (default 1)
  --updates L         analysis sizes in optimizer updates (default 10000,100000,1000000); the targets
                      (DuckDB, memory) are judged at the largest size up to --peers-max
  --peers-max N       pandas and DuckDB run up to N updates (default 1000000); above it our side runs
                      alone, for the scaling target (e.g. --updates 100000,1000000,10000000)
  --analysis-reps N   repetitions per side below the target analysis size (default 3)
  --analysis-sides L  analysis sides (default ${ALL_ANALYSIS_SIDES.join(",")}; ours always runs:
                      the others are compared with it; duckdb = Python duckdb in .venv, the
                      full job; ours-export = the export alone, as npm run export runs it;
                      duckdb-minimal = the least DuckDB job writing the two record CSVs)
  --workspace-reps N  runs of npm start (default 1)
  --only L            parts to run: fetch,analysis,workspace (default all)
  --sides L           fetch sides (default ${ALL_FETCH_SIDES.join(",")};
                      official = wandb 0.31 (.venv-wandb-current), official-legacy = 0.21.0 (.venv),
                      *-parquet = while the server offers parquet exports, lean = plain-Python floor)
  --latency-ms N      also fetch the --rows size with N ms added to every HistoryPage answer, like
                      a remote server's round trip (default 50; 0 = skip); sides ours-freeze, official
  --latency-reps N    repetitions of that configuration (default 2)
  --heap-mb N         heap of our analysis side from 10^6 updates on, and the retry heap when a
                      smaller size runs out of Node's default heap (default 16384)
  --raised-heap       run the largest analysis size (10^6+) with --heap-mb from the start. Default:
                      Node's default heap, as a tslab kernel runs (retried with --heap-mb only when
                      it runs out of memory, and the memory target then says so)
  --default-heap-timeout-s N  time limit of that run (default 1200)
  --csv-compare-max N compare the CSVs cell by cell up to N updates (default 100000; the summary
                      numbers are always compared)
  --no-setup          skip the Python set-up (wandb + pandas into .venv)
  --out FILE          results file (default bench/RESULTS.md)
  --work-dir DIR      cached benchmark archives (default bench/work, git-ignored)
  --quick             tiny sizes for a smoke run (overrides sizes and repetitions)
  --render-only       rewrite --out from the last run's bench/work/results.json, measuring nothing

A default run takes about 15-20 minutes on 2 cores; --latency-ms 0, --reps 3 and --updates
10000,100000 make it shorter.
`;

function list(text: string): number[] {
  return text.split(",").map((x) => {
    const v = Number(x.trim());
    if (!Number.isInteger(v) || v < 1) throw new Error(`invalid size: ${x}`);
    return v;
  });
}

function count(name: string, text: string): number {
  const v = Number(text);
  if (!Number.isInteger(v) || v < 1) throw new Error(`invalid ${name}: ${text}`);
  return v;
}

async function main(): Promise<void> {
  if (process.argv[2] === "detectors") return runDetectorsBench(process.argv.slice(3));
  const { values } = parseArgs({
    options: {
      rows: { type: "string", default: "100000" },
      runs: { type: "string", default: "4" },
      reps: { type: "string", default: "5" },
      "fetch-sizes": { type: "string" },
      "big-runs": { type: "string", default: "1" },
      "big-reps": { type: "string", default: "1" },
      updates: { type: "string", default: "10000,100000,1000000" },
      "analysis-reps": { type: "string", default: "3" },
      "peers-max": { type: "string", default: "1000000" },
      "analysis-sides": { type: "string", default: ALL_ANALYSIS_SIDES.join(",") },
      "default-heap-timeout-s": { type: "string", default: "1200" },
      "workspace-reps": { type: "string", default: "1" },
      only: { type: "string", default: "fetch,analysis,workspace" },
      sides: { type: "string", default: ALL_FETCH_SIDES.join(",") },
      "latency-ms": { type: "string", default: "50" },
      "latency-reps": { type: "string", default: "2" },
      "heap-mb": { type: "string", default: "16384" },
      "raised-heap": { type: "boolean", default: false },
      "csv-compare-max": { type: "string", default: "100000" },
      "no-setup": { type: "boolean", default: false },
      out: { type: "string", default: path.join("bench", "RESULTS.md") },
      "work-dir": { type: "string", default: path.join("bench", "work") },
      quick: { type: "boolean", default: false },
      "render-only": { type: "boolean", default: false },
      help: { type: "boolean", default: false },
    },
    strict: true,
  });
  if (values.help) {
    process.stdout.write(HELP);
    return;
  }
  const quick = values.quick;
  const rows = quick ? 2000 : count("rows", values.rows!);
  const runs = count("runs", values.runs!);
  const reps = quick ? 2 : count("reps", values.reps!);
  const fetchSizes = quick ? [200, 2000] : values["fetch-sizes"] ? list(values["fetch-sizes"]) : [rows / 10, rows, rows * 10].filter(Number.isInteger);
  const bigRuns = count("big-runs", values["big-runs"]!);
  const bigReps = quick ? 1 : count("big-reps", values["big-reps"]!);
  const updates = quick ? [200, 2000] : list(values.updates!);
  const analysisReps = quick ? 2 : count("analysis-reps", values["analysis-reps"]!);
  const peersMax = count("peers-max", values["peers-max"]!);
  // The size the DuckDB and memory targets are judged at: the largest one the peers run at.
  const targetUpdates = Math.max(...(updates.some((u) => u <= peersMax) ? updates.filter((u) => u <= peersMax) : updates));
  const workspaceReps = count("workspace-reps", values["workspace-reps"]!);
  const only = new Set(values.only!.split(",").map((s) => s.trim()));
  for (const part of only) if (!["fetch", "analysis", "workspace"].includes(part)) throw new Error(`invalid only: ${part}`);
  const sides = values.sides!.split(",").map((s) => s.trim()) as FetchSide[];
  for (const s of sides) if (ALL_FETCH_SIDES.indexOf(s) < 0) throw new Error(`invalid sides: ${s}`);
  const latencyMs = Number(values["latency-ms"]);
  if (!Number.isInteger(latencyMs) || latencyMs < 0) throw new Error(`invalid latency-ms: ${values["latency-ms"]}`);
  const latencyReps = quick ? 1 : count("latency-reps", values["latency-reps"]!);
  const heapMb = count("heap-mb", values["heap-mb"]!);
  const defaultHeapTimeout = count("default-heap-timeout-s", values["default-heap-timeout-s"]!);
  const analysisSides = values["analysis-sides"]!.split(",").map((s) => s.trim()) as AnalysisSide[];
  for (const s of analysisSides) if (ALL_ANALYSIS_SIDES.indexOf(s) < 0) throw new Error(`invalid analysis-sides: ${s}`);
  const csvCompareMax = count("csv-compare-max", values["csv-compare-max"]!);
  const workDir = path.resolve(ROOT, values["work-dir"]!);
  const outFile = path.resolve(ROOT, values.out!);
  const log = (line: string) => process.stdout.write(line + "\n");
  if (values["render-only"]) {
    const saved = JSON.parse(readFileSync(path.join(workDir, "results.json"), "utf8")) as BenchResults;
    writeFileSync(outFile, keepingSection(renderResults(saved), outFile));
    log(`[bench] rewrote ${path.relative(ROOT, outFile)} from ${path.relative(ROOT, path.join(workDir, "results.json"))}`);
    return;
  }

  const t0 = performance.now();
  const startedAt = new Date().toISOString();
  const partSeconds: Record<string, number> = {};
  let tPart = t0;
  const endPart = (name: string) => {
    const now = performance.now();
    partSeconds[name] = (now - tPart) / 1000;
    tPart = now;
  };
  if (!values["no-setup"]) {
    log("[bench] set-up: workspace venv with the official W&B client (requirements-wandb.txt) and pandas (requirements-bench.txt)");
    execFileSync("bash", ["scripts/setup.sh"], {
      cwd: ROOT,
      stdio: "inherit",
      env: {
        ...process.env,
        EXTRA_REQUIREMENTS: "requirements-wandb.txt requirements-bench.txt",
        EXTRA_VENVS: ".venv-wandb-current:requirements-wandb-current.txt",
      },
    });
  }
  const machine = machineInfo();
  endPart("set-up");
  log(
    `[bench] ${machine.cpuModel}, ${machine.cores} cores, ${machine.memoryGiB} GiB, node ${machine.node}, python ${machine.python}, wandb ${machine.wandb}, pandas ${machine.pandas}; load ${machine.loadAverage}`,
  );
  mkdirSync(workDir, { recursive: true });
  const skipped: string[] = [];

  const fetch: FetchBenchResult[] = [];
  if (only.has("fetch")) {
    let fetchSides = sides;
    if (!machine.wandb && sides.includes("official-legacy")) {
      skipped.push("legacy official client side of the fetch benchmark (wandb not installed in .venv)");
      fetchSides = fetchSides.filter((s) => s !== "official-legacy");
    }
    if (!machine.wandbCurrent && (sides.includes("official") || sides.includes("official-parquet"))) {
      skipped.push("current official client sides of the fetch benchmark (wandb not installed in .venv-wandb-current)");
      fetchSides = fetchSides.filter((s) => s !== "official" && s !== "official-parquet");
    }
    for (const size of fetchSizes) {
      const big = size > rows;
      log(`[bench] fetch: ${big ? bigRuns : runs} run(s) x ${size} rows, ${big ? bigReps : reps} rep(s)`);
      fetch.push(await runFetchBench({ rowsPerRun: size, runs: big ? bigRuns : runs, reps: big ? bigReps : reps, sides: fetchSides, log }));
    }
    if (latencyMs > 0) {
      log(`[bench] fetch with ${latencyMs} ms per page: ${runs} run(s) x ${rows} rows, ${latencyReps} rep(s)`);
      const remoteSides = fetchSides.filter((s) => s === "ours-freeze" || s === "official" || s === "lean");
      fetch.push(await runFetchBench({ rowsPerRun: rows, runs, reps: latencyReps, sides: remoteSides, latencyMs, log }));
    }
    endPart("fetch");
  }

  const analysis: AnalysisBenchResult[] = [];
  if (only.has("analysis")) {
    let sidesRun = analysisSides;
    if (!machine.pandas && analysisSides.includes("pandas")) {
      skipped.push("pandas side of the analysis benchmark (pandas not installed in .venv: pip install -r requirements-bench.txt)");
      sidesRun = sidesRun.filter((s) => s !== "pandas");
    }
    if (!machine.duckdb && (analysisSides.includes("duckdb") || analysisSides.includes("duckdb-minimal"))) {
      skipped.push("DuckDB sides of the analysis benchmark (duckdb not installed in .venv: pip install -r requirements-bench.txt)");
      sidesRun = sidesRun.filter((s) => s !== "duckdb" && s !== "duckdb-minimal");
    }
    for (const u of updates) {
      const isLargest = u >= targetUpdates && updates.length > 1 && u >= 1_000_000;
      const r = u >= targetUpdates && updates.length > 1 ? bigReps : analysisReps;
      const heap = [`--max-old-space-size=${heapMb}`];
      // Node's default heap unless asked: compact values (lib/values/) made 10^6 updates fit it, and a
      // tslab kernel runs with it.
      const nodeOptions = isLargest && values["raised-heap"] ? heap : [];
      log(`[bench] analysis: ${u} updates, ${r} rep(s)${nodeOptions.length ? `, our side with ${nodeOptions.join(" ")}` : ""}`);
      analysis.push(
        await runAnalysisBench({
          updates: u,
          reps: r,
          workDir,
          log,
          nodeOptions,
          retryNodeOptions: heap,
          compareCsv: u <= csvCompareMax,
          sides: u > peersMax ? ["ours"] : sidesRun,
          defaultHeapRunTimeoutSeconds: defaultHeapTimeout,
        }),
      );
    }
    endPart("analysis");
  }

  let workspace: WorkspaceBenchResult | null = null;
  if (only.has("workspace")) {
    log(`[bench] workspace: npm start x ${workspaceReps}`);
    workspace = await runWorkspaceBench({ reps: workspaceReps, log });
    if (workspace.skipped) log(`  skipped: ${workspace.skipped}`);
    endPart("workspace");
  }

  const results: BenchResults = {
    startedAt,
    command: `npm run bench${process.argv.length > 2 ? " -- " + process.argv.slice(2).join(" ") : ""}`,
    machine,
    loadAverageEnd: Math.round(os.loadavg()[0] * 100) / 100,
    totalSeconds: (performance.now() - t0) / 1000,
    partSeconds,
    targetRows: rows,
    targetUpdates,
    fetch,
    analysis,
    workspace,
    skipped,
  };
  const text = keepingSection(renderResults(results), outFile);
  mkdirSync(path.dirname(outFile), { recursive: true });
  writeFileSync(outFile, text);
  writeFileSync(path.join(workDir, "results.json"), JSON.stringify(results, null, 1) + "\n");
  log("");
  for (const t of judgeTargets(results)) log(`[bench] ${t.met.padEnd(12)} ${t.target}: ${t.measured}${t.why ? ` (${t.why})` : ""}`);
  log(`[bench] wrote ${path.relative(ROOT, outFile)} in ${(results.totalSeconds / 60).toFixed(1)} min`);
}

main().catch((e) => {
  process.stderr.write(`[bench] ${(e as Error).stack ?? e}\n`);
  process.exit(1);
});
