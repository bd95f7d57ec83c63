/**
 * Regenerates the bundled sample end to end: simulate -> start the local W&B test server -> log the
 * four runs through @wandb/sdk -> read them back with the workspace's own fetch path
 * (`fetchAndFreeze`) -> write `wandb/` (manifest.json + history/), `runs.json` and `local/<runId>.log`
 * into the output folder -> stop the server. Deterministic: same seed, same bytes.
 */
import { promises as fsp } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

import { fetchAndFreeze } from "../../lib/archive/fetch-and-freeze";
import { parseFrozenRow } from "../../lib/values/frozen-row";
import { HISTORY_DIR } from "../../lib/archive/manifest";
import { ARCHIVE_SUBDIR } from "../../lib/workspace/workspace-params";
import type { Reporter, SourceManifest } from "../../lib/types";
import { startWandbTestServer } from "../wandb-test-server/server";
import { renderLocalLog } from "./local-log";
import { logRunsWithSdk } from "./log-with-sdk";
import { simulateSlime, type Simulation, type SimRun } from "./simulate";

/** Run selection file written beside the archive. */
export const RUNS_FILE = "runs.json";
/** Folder of the local training logs inside the output folder. */
export const LOCAL_DIR = "local";

/** Options of `regenerateSample`. */
export interface RegenerateOptions {
  /** Output folder (the repo's `data/`); only wandb/ (the frozen archive), runs.json and local/ are replaced. */
  outDir: string;
  seed?: number;
  reporter?: Reporter;
}

/** Result of a regeneration. */
export interface RegenerateResult {
  simulation: Simulation;
  manifest: SourceManifest;
}

/** `fetchedAt` of the sample: fixed, 30 minutes after the last run ended, on the minute. */
export function sampleFetchedAtMs(sim: Simulation): number {
  const lastEnd = Math.max(...sim.runs.map((r) => r.endMs));
  return Math.ceil(lastEnd / 60_000) * 60_000 + 30 * 60_000;
}

/** `data/runs.json` text: entity, project and runs in round order. */
export function runsFileText(sim: Simulation): string {
  const cfg = { entity: sim.entity, project: sim.project, runs: sim.runs.map((r) => ({ runId: r.runId, round: r.round })) };
  return JSON.stringify(cfg, null, 2) + "\n";
}

/** Checks that a frozen history file holds exactly the simulated rows, values bit-equal. */
async function checkFrozenRun(file: string, run: SimRun): Promise<void> {
  const lines = (await fsp.readFile(file, "utf8")).split("\n");
  lines.pop();
  if (lines.length !== run.rows.length) throw new Error(`${file}: ${lines.length} rows frozen, ${run.rows.length} logged (run ${run.runId})`);
  lines.forEach((line, i) => {
    const row = parseFrozenRow(line);
    const sim = run.rows[i];
    const expected: Record<string, number> = { _step: i, _runtime: (sim.timeMs - run.initMs) / 1000, _timestamp: sim.timeMs / 1000 };
    for (const v of sim.values) expected[v.key] = v.value;
    const keys = new Set([...Object.keys(row), ...Object.keys(expected)]);
    for (const key of keys) {
      if (!Object.is(row[key], expected[key])) {
        throw new Error(`${file} line ${i + 1} (run ${run.runId}, _step ${i}) key ${key}: frozen ${row[key]}, logged ${expected[key]}`);
      }
    }
  });
}

/** Replaces `name` inside `outDir` with `from` (a file or folder), copying across file systems. */
async function replaceEntry(outDir: string, name: string, from: string): Promise<void> {
  const to = path.join(outDir, name);
  await fsp.rm(to, { recursive: true, force: true });
  await fsp.cp(from, to, { recursive: true });
}

/** Regenerates the sample into `opts.outDir`. */
export async function regenerateSample(opts: RegenerateOptions): Promise<RegenerateResult> {
  if (typeof opts.outDir !== "string" || !opts.outDir) throw new Error(`invalid outDir: ${JSON.stringify(opts.outDir)}`);
  const reporter = opts.reporter ?? {};
  const simulation = simulateSlime({ seed: opts.seed });
  const work = await fsp.mkdtemp(path.join(os.tmpdir(), "simulate-slime-"));
  const server = await startWandbTestServer({});
  try {
    reporter.info?.(`logging ${simulation.runs.length} runs through @wandb/sdk into ${server.url}`);
    await logRunsWithSdk(simulation.runs, { baseUrl: server.url, apiKey: server.apiKey, entity: simulation.entity, project: simulation.project });
    for (const run of simulation.runs) {
      const stored = server.getRun(simulation.entity, simulation.project, run.runId);
      if (stored?.state !== "finished" || stored.rows.length !== run.rows.length) {
        throw new Error(
          `run ${run.runId}: server holds ${stored ? `${stored.rows.length} rows, state ${stored.state}` : "nothing"}; expected ${run.rows.length} rows, finished`,
        );
      }
    }

    const archiveDir = path.join(work, "archive");
    const fetchedAtMs = sampleFetchedAtMs(simulation);
    const manifest = await fetchAndFreeze({
      entity: simulation.entity,
      project: simulation.project,
      runs: simulation.runs.map((r) => ({ runId: r.runId, round: r.round })),
      outDir: archiveDir,
      baseUrl: server.url,
      apiKey: server.apiKey,
      now: () => new Date(fetchedAtMs),
      env: {},
      reporter,
    });
    for (const run of simulation.runs) await checkFrozenRun(path.join(archiveDir, HISTORY_DIR, `${run.runId}.jsonl`), run);

    const localDir = path.join(work, LOCAL_DIR);
    await fsp.mkdir(localDir);
    for (const run of simulation.runs) await fsp.writeFile(path.join(localDir, `${run.runId}.log`), renderLocalLog(run), "utf8");
    await fsp.writeFile(path.join(work, RUNS_FILE), runsFileText(simulation), "utf8");

    await fsp.mkdir(opts.outDir, { recursive: true });
    // The frozen archive is its own folder (data/wandb): a live fetch swaps it whole.
    await replaceEntry(opts.outDir, ARCHIVE_SUBDIR, archiveDir);
    await replaceEntry(opts.outDir, RUNS_FILE, path.join(work, RUNS_FILE));
    await replaceEntry(opts.outDir, LOCAL_DIR, localDir);
    return { simulation, manifest };
  } finally {
    await server.close();
    await fsp.rm(work, { recursive: true, force: true });
  }
}
