/**
 * Runs one benchmark side as a child process (so its peak memory is its own) and reads the JSON line
 * it prints last. The parent measures the whole-process wall time around it.
 */
import { spawn } from "node:child_process";
import * as path from "node:path";

/** Repository root (bench/ lives directly under it). */
export const ROOT = path.resolve(__dirname, "..");

/** Python of the workspace venv (wandb 0.21.0, the legacy client, and pandas). */
export const VENV_PYTHON = path.join(ROOT, ".venv", "bin", "python");

/** Python of the current official client's venv (wandb 0.31.x, requirements-wandb-current.txt). */
export const CURRENT_PYTHON = path.join(ROOT, ".venv-wandb-current", "bin", "python");

/** What a child reported, plus the wall time the parent saw. */
export interface ChildResult<T> {
  report: T;
  /** Whole process, start-up included, as seen by the parent. */
  wallSeconds: number;
  stderr: string;
}

/** Command line of a TypeScript child run with this Node and tsx. */
export function tsxCommand(script: string, args: string[]): [string, string[]] {
  return [process.execPath, ["--import", "tsx", path.join(ROOT, script), ...args]];
}

/** Command line of a TypeScript child run from its prebuilt bundle (scripts/prebuilt.cjs), as `npm run fetch` runs. */
export function prebuiltCommand(script: string, args: string[]): [string, string[]] {
  return [process.execPath, [path.join(ROOT, "scripts", "prebuilt.cjs"), script, ...args]];
}

/**
 * Spawns `cmd args`, waits for it, and parses the last non-empty stdout line as JSON; throws with
 * the child's stderr when it fails or prints no JSON.
 */
export function runChild<T>(cmd: string, args: string[], env: NodeJS.ProcessEnv, cwd = ROOT, timeoutMs = 0): Promise<ChildResult<T>> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    // `timeout` kills a child that hangs (the official client can lose its wandb-core service on a
    // loaded machine and then waits forever); the kill shows as a failure with signal SIGTERM.
    const child = spawn(cmd, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"], timeout: timeoutMs || undefined, killSignal: "SIGKILL" });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on("data", (b: Buffer) => out.push(b));
    child.stderr.on("data", (b: Buffer) => err.push(b));
    child.on("error", reject);
    child.on("close", (code, signal) => {
      const wallSeconds = (performance.now() - t0) / 1000;
      const stdout = Buffer.concat(out).toString("utf8");
      const stderr = Buffer.concat(err).toString("utf8");
      const name = `${path.basename(cmd)} ${args
        .map((a) => path.basename(a))
        .slice(0, 4)
        .join(" ")}`;
      if (code !== 0) {
        reject(new Error(`${name} failed (exit ${code ?? signal}):\n${stderr.slice(-4000)}`));
        return;
      }
      const last = stdout.trim().split("\n").pop() ?? "";
      try {
        resolve({ report: JSON.parse(last) as T, wallSeconds, stderr });
      } catch {
        reject(new Error(`${name} printed no JSON result:\n${stdout.slice(-2000)}\n${stderr.slice(-2000)}`));
      }
    });
  });
}
