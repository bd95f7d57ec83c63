/**
 * Scale of the comparison (issue 29, item 10): 2 arms x E experiments x U optimizer updates each,
 * archives already frozen, compared with `runComparison` (50,000 resamples, a reference) in a child
 * process: wall time, CPU time (every thread) and peak RSS. The peer, measured in the same run and
 * alternating with ours: the previous implementation (lib/ of `--previous COMMIT`, extracted with
 * git archive under the work folder), on the same archives; both sides' CSVs must be byte-identical.
 * Ratio = previous / ours per pair of runs, median (> 1: ours faster).
 *
 *   npx tsx bench/compare-bench.ts [--experiments 50] [--updates 10000] [--reps 2] [--previous fa9d8b6]
 *       [--work-dir bench/work] [--python PATH]
 *
 * --python: a venv with tools/compare-reference/requirements.txt; then rliable 1.2 also computes one
 * cell's intervals (reward_mean, all) for a per-cell ratio (slow: minutes). Prints a markdown section
 * for bench/RESULTS.md.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { parseArgs } from "node:util";

import { armIntervals } from "../lib/compare/bootstrap";
import type { CompareSpec, ComparisonRun } from "../lib/compare/compare-config";
import { improvementInterval } from "../lib/compare/probability-of-improvement";
import { randomStream } from "../lib/compare/seeded-random";
import { ensureAnalysisArchive } from "./analysis-data";
import { ROOT, runChild, tsxCommand } from "./child";
import { vmHwmKb } from "./process-memory";

/** What the child reports. */
interface ChildReport {
  seconds: number;
  /** CPU seconds (user + system) of the child, every thread: the figure a loaded machine distorts least. */
  cpuSeconds: number;
  peakKb: number | null;
  compareRows: number;
  reward: { x: number[]; y: number[] };
}

/** The child: compare the spec in `specFile` into `outDir` with the lib/ under `libRoot`. */
async function child(libRoot: string, specFile: string, outDir: string): Promise<void> {
  const { runComparison } = require(path.join(libRoot, "lib/compare/compare-config")) as {
    runComparison: (spec: CompareSpec, out: string) => Promise<ComparisonRun>;
  };
  const spec = JSON.parse(readFileSync(specFile, "utf8")) as CompareSpec;
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  const run = await runComparison(spec, outDir);
  const seconds = (performance.now() - t0) / 1000;
  const c1 = process.cpuUsage(c0);
  const cell = (i: number) => run.arms[i].experiments.map((e) => e.cells.reward_mean.all as number);
  const report: ChildReport = {
    seconds,
    cpuSeconds: (c1.user + c1.system) / 1e6,
    peakKb: vmHwmKb(),
    compareRows: run.result.compare.rows.length,
    reward: { x: cell(1), y: cell(0) },
  };
  process.stdout.write(JSON.stringify(report));
}

const PEER = `
import json, sys, time
import numpy as np
from rliable import library as rly, metrics
x, y = (np.array(v).reshape(-1, 1) for v in json.load(sys.stdin))
t0 = time.perf_counter()
arm = lambda s: np.array([metrics.aggregate_mean(s), metrics.aggregate_iqm(s)])
rly.get_interval_estimates({"x": x, "y": y}, arm, reps=50000, random_state=np.random.RandomState(0))
rly.get_interval_estimates({"xy": (x, y)}, lambda a, b: np.array([metrics.probability_of_improvement(a, b)]), reps=50000, random_state=np.random.RandomState(0))
print(json.dumps({"seconds": time.perf_counter() - t0}))
`;

/** Ours for the same cell: both arms' intervals and the improvement interval, 50,000 resamples. */
function oursOneCell(x: number[], y: number[]): number {
  const t0 = performance.now();
  armIntervals(x, randomStream(0, "x"));
  armIntervals(y, randomStream(0, "y"));
  improvementInterval(x, y, randomStream(0, "px"), randomStream(0, "py"));
  return (performance.now() - t0) / 1000;
}

/** lib/ (and package.json, read for the workspace version) of a commit, extracted once under the work folder; node_modules resolves from the repository above it. */
function previousLib(commit: string, workDir: string): string {
  const dir = path.join(workDir, `previous-${commit}`);
  if (!existsSync(path.join(dir, "lib"))) {
    mkdirSync(dir, { recursive: true });
    const tar = execFileSync("git", ["archive", commit, "lib", "package.json"], { cwd: ROOT, maxBuffer: 1 << 30 });
    execFileSync("tar", ["-x", "-C", dir], { input: tar });
  }
  return dir;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/** One side's run: the child's report. */
async function side(libRoot: string, specFile: string, outDir: string): Promise<ChildReport> {
  const [cmd, args] = tsxCommand("bench/compare-bench.ts", ["--child", libRoot, specFile, outDir]);
  return (await runChild<ChildReport>(cmd, args, process.env)).report;
}

/** Throws unless both sides wrote the same CSV bytes. */
function assertSameCsv(a: string, b: string): void {
  for (const f of ["compare.csv", "improvement.csv", "corridor.csv"]) {
    if (!readFileSync(path.join(a, f)).equals(readFileSync(path.join(b, f)))) throw new Error(`${f} differs between the previous implementation and ours`);
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      experiments: { type: "string", default: "50" },
      updates: { type: "string", default: "10000" },
      reps: { type: "string", default: "2" },
      previous: { type: "string", default: "fa9d8b6" },
      "work-dir": { type: "string", default: path.join(ROOT, "bench", "work") },
      python: { type: "string" },
    },
    strict: true,
  });
  const E = Number(values.experiments);
  const U = Number(values.updates);
  const reps = Number(values.reps);
  const workDir = path.resolve(values["work-dir"]!);
  const dirs: string[] = [];
  const g0 = performance.now();
  for (let i = 0; i < 2 * E; i++) dirs.push((await ensureAnalysisArchive(U, { workDir, seed: 1000 + i })).dir);
  const generate = (performance.now() - g0) / 1000;
  const spec: CompareSpec = {
    arms: [
      { name: "a", archives: dirs.slice(0, E) },
      { name: "b", archives: dirs.slice(E) },
    ],
    root: "/",
    reference: dirs[0],
    seed: 0,
    resamples: 50_000,
    corridor: {},
  };
  const specFile = path.join(os.tmpdir(), `compare-bench-spec-${process.pid}.json`);
  writeFileSync(specFile, JSON.stringify(spec));
  const previous = previousLib(values.previous!, workDir);
  const load0 = os.loadavg()[0];
  const pairs: { prev: ChildReport; ours: ChildReport }[] = [];
  for (let r = 0; r < reps; r++) {
    const prevOut = path.join(workDir, "compare-out-previous");
    const oursOut = path.join(workDir, "compare-out-ours");
    // Alternating, previous first in even repetitions and ours first in odd ones.
    const order = r % 2 === 0 ? ["prev", "ours"] : ["ours", "prev"];
    const got: Partial<Record<string, ChildReport>> = {};
    for (const s of order) got[s] = s === "prev" ? await side(previous, specFile, prevOut) : await side(ROOT, specFile, oursOut);
    assertSameCsv(prevOut, oursOut);
    pairs.push({ prev: got.prev!, ours: got.ours! });
    process.stderr.write(`rep ${r + 1}/${reps}: previous ${got.prev!.seconds.toFixed(1)} s, ours ${got.ours!.seconds.toFixed(1)} s\n`);
  }
  const load1 = os.loadavg()[0];
  const med = (f: (p: ChildReport) => number, who: "prev" | "ours") => median(pairs.map((p) => f(p[who])));
  const ratio = (f: (p: ChildReport) => number) => median(pairs.map((p) => f(p.prev) / f(p.ours)));
  const mib = (who: "prev" | "ours") => `${Math.round(Math.max(...pairs.map((p) => p[who].peakKb ?? 0)) / 1024)} MiB`;
  const rows = pairs[0].ours.compareRows;
  const lines = [
    `| previous (${values.previous}) | ${med((p) => p.seconds, "prev").toFixed(1)} s | ${med((p) => p.cpuSeconds, "prev").toFixed(1)} s | ${mib("prev")} |`,
    `| ours | ${med((p) => p.seconds, "ours").toFixed(1)} s | ${med((p) => p.cpuSeconds, "ours").toFixed(1)} s | ${mib("ours")} |`,
    `| previous / ours (median of ${reps} paired runs) | ${ratio((p) => p.seconds).toFixed(2)}x | ${ratio((p) => p.cpuSeconds).toFixed(2)}x | |`,
  ];
  const oursCell = oursOneCell(pairs[0].ours.reward.x, pairs[0].ours.reward.y);
  let peer = "";
  if (values.python !== undefined) {
    const out = execFileSync(values.python, ["-c", PEER], { input: JSON.stringify([pairs[0].ours.reward.x, pairs[0].ours.reward.y]), encoding: "utf8" });
    const seconds = (JSON.parse(out) as { seconds: number }).seconds;
    peer = `\none cell (reward_mean, all; both arms' intervals + P(improvement), 50,000 resamples): ours ${oursCell.toFixed(2)} s, rliable 1.2 ${seconds.toFixed(1)} s (${(seconds / oursCell).toFixed(0)}x)\n`;
  }
  process.stdout.write(
    `2 arms x ${E} experiments x ${U.toLocaleString("en")} updates, a reference, 50,000 resamples (${rows} compare.csv rows); CSVs byte-identical on both sides; ` +
      `load average (1 min) ${load0.toFixed(1)} before, ${load1.toFixed(1)} after, on ${os.cpus().length} cores; archives generated or found in ${generate.toFixed(1)} s (not counted)\n\n` +
      `| side | wall | CPU (all threads) | peak RSS |\n| --- | --- | --- | --- |\n${lines.join("\n")}\n${peer}`,
  );
}

if (process.argv[2] === "--child") child(process.argv[3], process.argv[4], process.argv[5]);
else main();
