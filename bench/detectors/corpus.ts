/**
 * The labelled corpus of real failures: runs the frameworks' own trainers wrote with a fault injected
 * at a known step k, and healthy twins (test/fixtures/real-runs/faults/<framework>/labels.json, made by
 * tools/real-runs/*\/make_*_faults.py). Each run is read from its .wandb file and aligned as the
 * workspace aligns any run; nothing here knows a framework.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as zlib from "node:zlib";

import { alignRuns } from "../../lib/align/align-runs";
import type { FaultClass } from "../../lib/health/health-check";
import type { AlignedRuns, RunHistory } from "../../lib/types";
import { readWandbFile } from "../../lib/wandb-file/read-wandb-file";

/** One labelled run as labels.json states it. */
export interface LabelledRun {
  id: string;
  framework: string;
  fault: FaultClass | "healthy";
  /** The framework's step from which the fault is active; null for a healthy twin. */
  k: number | null;
  seed: number;
  setting: string;
  split: "calibrate" | "test" | "heldout";
  /** .wandb files, relative to the labels file's folder, in order (several: one W&B id resumed). */
  files: string[];
  visible: { key: string; step: number; what: string } | null;
}

/** A labelled run, aligned. */
export interface CorpusRun {
  label: LabelledRun;
  aligned: AlignedRuns;
  /** The records' positions (logged steps or update numbers), ascending: the axis delays count on. */
  positions: number[];
}

/**
 * A .wandb file, or a gzipped one (`.wandb.gz`: the corpus is stored compressed, TRL's profiling rows
 * make its logs 6x larger than their gzip), read through a temporary copy under its original name.
 */
async function readMaybeGzipped(file: string): Promise<Awaited<ReturnType<typeof readWandbFile>>> {
  if (!file.endsWith(".gz")) return readWandbFile(file);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "corpus-"));
  try {
    const plain = path.join(tmp, path.basename(file, ".gz"));
    fs.writeFileSync(plain, zlib.gunzipSync(fs.readFileSync(file)));
    return await readWandbFile(plain);
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

/** The labels files under a corpus root (one folder per framework), sorted. */
export function labelFiles(root: string): string[] {
  if (!fs.existsSync(root)) return [];
  return fs
    .readdirSync(root)
    .map((d) => path.join(root, d, "labels.json"))
    .filter((f) => fs.existsSync(f))
    .sort();
}

/** Every labelled run under `root`, read and aligned (progress through `log`). */
export async function loadCorpus(root: string, log: (line: string) => void = () => {}): Promise<CorpusRun[]> {
  const out: CorpusRun[] = [];
  for (const file of labelFiles(root)) {
    const dir = path.dirname(file);
    const labels = (JSON.parse(fs.readFileSync(file, "utf8")) as { runs: LabelledRun[] }).runs;
    log(`[detectors] ${path.relative(process.cwd(), file)}: ${labels.length} runs`);
    for (const label of labels) out.push(await loadRun(dir, label));
  }
  return out;
}

async function loadRun(dir: string, label: LabelledRun): Promise<CorpusRun> {
  const runs: RunHistory[] = [];
  for (const f of label.files) {
    const read = await readMaybeGzipped(path.join(dir, f));
    runs.push({ runId: read.runId, round: "R0", entity: "", project: read.project, state: read.state, rows: read.rows });
  }
  const aligned = alignRuns(runs);
  const positions = (
    aligned.updates.length > 0 && aligned.rollouts.length === 0 ? aligned.updates.map((u) => u.update) : aligned.rollouts.map((r) => r.rollout)
  ).sort((a, b) => a - b);
  return { label, aligned, positions };
}
