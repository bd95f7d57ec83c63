/**
 * Whole-workspace benchmark: wall time of the main command (`npm start`: set-up check, every
 * notebook headless, static figures, HTML report) on the bundled sample data, and each notebook's
 * time as the notebook runner prints it (`ok <path>: N code cells in X.Ys`).
 */
import { spawn } from "node:child_process";
import { readdirSync } from "node:fs";
import * as path from "node:path";

import { ROOT } from "./child";
import { median } from "./stats";

/** One notebook's line of the runner. */
export interface NotebookTime {
  path: string;
  codeCells: number;
  seconds: number;
}

/** Result of the workspace benchmark (skipped with a reason when there is nothing to run). */
export interface WorkspaceBenchResult {
  skipped: string | null;
  reps: number;
  wallSeconds: number[];
  medianWallSeconds: number | null;
  /** Per notebook: median over repetitions. */
  notebooks: NotebookTime[];
  /** Last lines of output of a failed run. */
  failure: string | null;
}

const OK_LINE = /^ok (.+?): (\d+) code cells in ([\d.]+)s/;

/**
 * Notebook times from the runner's output, in order.
 * @example parseNotebookTimes("ok notebooks/01-x.ipynb: 12 code cells in 3.4s -> out/01-x.ipynb") // [{ path: "notebooks/01-x.ipynb", codeCells: 12, seconds: 3.4 }]
 */
export function parseNotebookTimes(output: string): NotebookTime[] {
  const out: NotebookTime[] = [];
  for (const line of output.split("\n")) {
    const m = OK_LINE.exec(line.trim());
    if (m) out.push({ path: m[1], codeCells: Number(m[2]), seconds: Number(m[3]) });
  }
  return out;
}

function runMain(root: string, env: NodeJS.ProcessEnv): Promise<{ code: number | null; output: string; seconds: number }> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn("npm", ["start"], { cwd: root, env, stdio: ["ignore", "pipe", "pipe"] });
    const chunks: Buffer[] = [];
    child.stdout.on("data", (b: Buffer) => chunks.push(b));
    child.stderr.on("data", (b: Buffer) => chunks.push(b));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, output: Buffer.concat(chunks).toString("utf8"), seconds: (performance.now() - t0) / 1000 }));
  });
}

/** Runs `npm start` `reps` times in `root` (default the workspace) and collects wall and notebook times. */
export async function runWorkspaceBench(opts: { reps: number; root?: string; log?: (line: string) => void }): Promise<WorkspaceBenchResult> {
  const log = opts.log ?? (() => undefined);
  const root = opts.root ?? ROOT;
  const nbDir = path.join(root, "notebooks");
  let notebooks: string[] = [];
  try {
    notebooks = readdirSync(nbDir).filter((f) => /^[0-9].*\.ipynb$/.test(f));
  } catch {
    notebooks = [];
  }
  const none = (skipped: string): WorkspaceBenchResult => ({ skipped, reps: 0, wallSeconds: [], medianWallSeconds: null, notebooks: [], failure: null });
  if (notebooks.length === 0) return none("no notebooks/NN-*.ipynb in the workspace yet: the main command has nothing to run");
  const env = { ...process.env, EXTRA_REQUIREMENTS: "" };
  const walls: number[] = [];
  const perNotebook = new Map<string, { codeCells: number; seconds: number[] }>();
  for (let rep = 0; rep < opts.reps; rep++) {
    const r = await runMain(root, env);
    if (r.code !== 0) {
      return { ...none(`npm start failed (exit ${r.code})`), failure: r.output.split("\n").slice(-30).join("\n") };
    }
    walls.push(r.seconds);
    for (const t of parseNotebookTimes(r.output)) {
      const e = perNotebook.get(t.path) ?? { codeCells: t.codeCells, seconds: [] };
      e.seconds.push(t.seconds);
      perNotebook.set(t.path, e);
    }
    log(`  npm start rep ${rep + 1}/${opts.reps}: ${r.seconds.toFixed(1)} s`);
  }
  return {
    skipped: null,
    reps: opts.reps,
    wallSeconds: walls,
    medianWallSeconds: median(walls),
    notebooks: [...perNotebook].map(([p, e]) => ({ path: p, codeCells: e.codeCells, seconds: median(e.seconds) })),
    failure: null,
  };
}
