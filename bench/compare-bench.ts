/**
 * Scale of the comparison (issue 29): 2 arms x E experiments x U optimizer updates each, archives
 * already frozen, compared with `runComparison` (50,000 resamples) in a child process: wall time and
 * peak RSS. The peer, measured in the same run: rliable 1.2 computing the same per-arm IQM and mean
 * intervals and the probability-of-improvement interval for one concept and scope (`reward_mean`,
 * `all`) at 50,000 resamples, against ours for that same cell.
 *
 *   npx tsx bench/compare-bench.ts [--experiments 50] [--updates 10000] [--work-dir bench/work] [--python PATH]
 *
 * --python: a venv with tools/compare-reference/requirements.txt (default .venv-compare/bin/python;
 * the peer is skipped, saying so, without one). Prints a markdown section for bench/RESULTS.md.
 */
import { execFileSync } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { parseArgs } from "node:util";

import { armIntervals } from "../lib/compare/bootstrap";
import { runComparison, type CompareSpec } from "../lib/compare/compare-config";
import { improvementInterval } from "../lib/compare/probability-of-improvement";
import { randomStream } from "../lib/compare/seeded-random";
import { ensureAnalysisArchive } from "./analysis-data";
import { ROOT, runChild, tsxCommand } from "./child";
import { vmHwmKb } from "./process-memory";

/** What the child reports. */
interface ChildReport {
  seconds: number;
  /** CPU seconds (user + system) of the child: the figure a loaded machine distorts least. */
  cpuSeconds: number;
  peakKb: number | null;
  compareRows: number;
  reward: { x: number[]; y: number[] };
}

/** The child: compare the spec in the file argv[3] into argv[4]. */
async function child(specFile: string, outDir: string): Promise<void> {
  const spec = JSON.parse(require("node:fs").readFileSync(specFile, "utf8")) as CompareSpec;
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  const run = await runComparison(spec, outDir);
  const seconds = (performance.now() - t0) / 1000;
  const c1 = process.cpuUsage(c0);
  const cpuSeconds = (c1.user + c1.system) / 1e6;
  const cell = (i: number) => run.arms[i].experiments.map((e) => e.cells.reward_mean.all as number);
  const report: ChildReport = { seconds, cpuSeconds, peakKb: vmHwmKb(), compareRows: run.result.compare.rows.length, reward: { x: cell(1), y: cell(0) } };
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

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      experiments: { type: "string", default: "50" },
      updates: { type: "string", default: "10000" },
      "work-dir": { type: "string", default: path.join(ROOT, "bench", "work") },
      python: { type: "string", default: path.join(ROOT, ".venv-compare", "bin", "python") },
    },
    strict: true,
  });
  const E = Number(values.experiments);
  const U = Number(values.updates);
  const workDir = values["work-dir"]!;
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
  const [cmd, args] = tsxCommand("bench/compare-bench.ts", ["--child", specFile, path.join(workDir, "compare-out")]);
  const r = await runChild<ChildReport>(cmd, args, process.env);
  const rep = r.report;
  const ours = oursOneCell(rep.reward.x, rep.reward.y);
  let peer: string;
  if (existsSync(values.python!)) {
    const out = execFileSync(values.python!, ["-c", PEER], { input: JSON.stringify([rep.reward.x, rep.reward.y]), encoding: "utf8" });
    const seconds = (JSON.parse(out) as { seconds: number }).seconds;
    peer = `${seconds.toFixed(1)} s; rliable / ours = ${(seconds / ours).toFixed(0)}x`;
  } else {
    peer = `skipped: no ${values.python}`;
  }
  const lines = [
    `| 2 arms x ${E} experiments x ${U.toLocaleString("en")} updates (${rep.compareRows} compare.csv rows, 50,000 resamples) | ${rep.seconds.toFixed(1)} s (CPU ${rep.cpuSeconds.toFixed(1)} s) | ${rep.peakKb === null ? "-" : `${Math.round(rep.peakKb / 1024)} MiB`} |`,
    `| one cell (reward_mean, all): both arms' intervals + P(improvement) interval, ours | ${ours.toFixed(2)} s | - |`,
    `| the same cell, rliable 1.2 (peer) | ${peer} | - |`,
    `| (archives generated or found in ${generate.toFixed(1)} s, not counted) | | |`,
  ];
  process.stdout.write(`load average (1 min) after: ${os.loadavg()[0].toFixed(1)} on ${os.cpus().length} cores\n`);
  process.stdout.write(`| what | wall | peak RSS |\n| --- | --- | --- |\n${lines.join("\n")}\n`);
}

if (process.argv[2] === "--child") child(process.argv[3], process.argv[4]);
else main();
