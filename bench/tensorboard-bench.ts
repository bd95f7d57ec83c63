/**
 * `npx tsx bench/tensorboard-bench.ts`: reading TensorBoard event files, ours (lib/tensorboard/, as
 * `npm run fetch -- --tensorboard` reads before freezing) against Python's tbparse on the same file,
 * each side a separate process, alternating in every repetition. The file is written once by
 * tensorboardX (tools/tensorboard/make_bench_file.py) into the work folder. Writes its section into
 * bench/RESULTS.md between its markers (bench/run.ts keeps the section when it rewrites the file).
 * Needs the TensorBoard tools' venv `.venv-tb` (tools/tensorboard/requirements.txt).
 */
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { parseArgs } from "node:util";

import { ROOT, runChild, tsxCommand } from "./child";
import { withSection } from "./results-section";
import { fmt, int, mdTable, median, spread } from "./stats";

const PYTHON = path.join(ROOT, ".venv-tb", "bin", "python");

interface Side {
  seconds: number;
  scalars: number;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      steps: { type: "string", default: "20000" },
      tags: { type: "string", default: "50" },
      reps: { type: "string", default: "3" },
      "work-dir": { type: "string", default: path.join(ROOT, "bench", "work", "tensorboard") },
      out: { type: "string", default: path.join(ROOT, "bench", "RESULTS.md") },
    },
  });
  const [steps, tags, reps] = [Number(values.steps), Number(values.tags), Number(values.reps)];
  if (!existsSync(PYTHON)) throw new Error(`no ${PYTHON}: python3 -m venv .venv-tb && .venv-tb/bin/pip install -r tools/tensorboard/requirements.txt`);
  const logdir = path.join(values["work-dir"]!, `s${steps}-t${tags}`);
  if (!existsSync(logdir)) {
    process.stderr.write(`writing ${steps} x ${tags} scalars with tensorboardX into ${logdir}\n`);
    const made = spawnSync(
      PYTHON,
      [path.join(ROOT, "tools/tensorboard/make_bench_file.py"), "--out", logdir, "--steps", String(steps), "--tags", String(tags)],
      { stdio: "inherit" },
    );
    if (made.status !== 0) throw new Error("make_bench_file.py failed");
  }
  const bytes = statSync(path.join(logdir, readdirSync(logdir)[0])).size;
  const ours: { wall: number; inner: number }[] = [];
  const peer: { wall: number; inner: number }[] = [];
  const started = new Date().toISOString();
  for (let rep = 0; rep < reps; rep++) {
    const runOurs = async () => {
      const [cmd, args] = tsxCommand("bench/tensorboard-ours.ts", [logdir]);
      const r = await runChild<Side>(cmd, args, process.env);
      if (r.report.scalars !== steps * tags) throw new Error(`ours read ${r.report.scalars} scalars, expected ${steps * tags}`);
      ours.push({ wall: r.wallSeconds, inner: r.report.seconds });
    };
    const runPeer = async () => {
      const r = await runChild<Side>(PYTHON, [path.join(ROOT, "tools/tensorboard/tbparse_read.py"), logdir], process.env);
      if (r.report.scalars !== steps * tags) throw new Error(`tbparse read ${r.report.scalars} scalars, expected ${steps * tags}`);
      peer.push({ wall: r.wallSeconds, inner: r.report.seconds });
    };
    // Alternate which side goes first, so a drift of the shared machine is not all on one side.
    if (rep % 2 === 0) {
      await runOurs();
      await runPeer();
    } else {
      await runPeer();
      await runOurs();
    }
    process.stderr.write(`rep ${rep + 1}/${reps}: ours ${fmt(ours[rep].wall)} s, tbparse ${fmt(peer[rep].wall)} s (whole process)\n`);
  }
  const ratio = (k: "wall" | "inner") => median(ours.map((o, i) => peer[i][k] / o[k]));
  const versions = spawnSync(PYTHON, ["-c", "import tbparse, tensorboard; print(tbparse.__version__, tensorboard.__version__)"], { encoding: "utf8" })
    .stdout.trim()
    .split(" ");
  const section = [
    "## TensorBoard event files: ours vs tbparse",
    "",
    `Written by \`npx tsx bench/tensorboard-bench.ts --steps ${steps} --tags ${tags} --reps ${reps}\`, started ${started}; ${os.availableParallelism()} cores, load average ${os.loadavg()[0].toFixed(2)} after. ` +
      `One event file of ${int(steps * tags)} scalars (${int(steps)} steps x ${tags} tags, one event per scalar, ${(bytes / 2 ** 20).toFixed(1)} MiB) written by tensorboardX; ` +
      `ours reads it into rows (every CRC checked, superseding applied) as \`npm run fetch -- --tensorboard\` does before freezing; ` +
      `tbparse ${versions[0]} (TensorBoard ${versions[1]}'s EventAccumulator, no TensorFlow installed) reads it into its scalars DataFrame. ` +
      "Each side a separate process, sides alternating; in-process = from the start of the script (tbparse's imports included) to the end of the read. Ratio = tbparse / ours per repetition, median.",
    "",
    mdTable(
      ["side", "whole process s (median)", "spread", "in-process s (median)"],
      [
        ["ours", fmt(median(ours.map((o) => o.wall))), spread(ours.map((o) => o.wall)), fmt(median(ours.map((o) => o.inner)))],
        ["tbparse", fmt(median(peer.map((o) => o.wall))), spread(peer.map((o) => o.wall)), fmt(median(peer.map((o) => o.inner)))],
      ],
    ),
    "",
    `Target: reading event files at least as fast as tbparse: **${fmt(ratio("wall"))}x** whole process, ${fmt(ratio("inner"))}x in-process (median of ${reps} paired runs): ${ratio("wall") >= 1 ? "met" : "not met"}.`,
  ].join("\n");
  const out = values.out!;
  writeFileSync(out, withSection(existsSync(out) ? readFileSync(out, "utf8") : "# Benchmark results\n", section));
  process.stdout.write(`${section}\n`);
}

main().catch((e) => {
  process.stderr.write(`${(e as Error).stack ?? e}\n`);
  process.exit(1);
});
