/** Description of the machine and tool versions a benchmark ran with (goes on top of RESULTS.md). */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import * as os from "node:os";
import * as v8 from "node:v8";

import { CURRENT_PYTHON, VENV_PYTHON } from "./child";

/** Machine and versions. */
export interface MachineInfo {
  cpuModel: string;
  /** Logical CPUs the process may use. */
  cores: number;
  memoryGiB: number;
  os: string;
  node: string;
  /** Heap limit of a Node process started without options (what a tslab kernel gets), MiB. */
  nodeDefaultHeapMiB: number;
  python: string | null;
  /** wandb in .venv: the legacy client (0.21.0). */
  wandb: string | null;
  /** wandb in .venv-wandb-current: the current official client (absent in older results). */
  wandbCurrent?: string | null;
  pandas: string | null;
  numpy: string | null;
  /** duckdb (Python) in .venv, the third side of the analysis benchmark (absent in older results). */
  duckdb?: string | null;
  /** 1-minute load average when read: a busy shared machine makes every figure slower. */
  loadAverage: number;
}

function pythonPackageVersion(python: string, pkg: string): string | null {
  try {
    return execFileSync(python, ["-c", `import importlib.metadata as m; print(m.version(${JSON.stringify(pkg)}))`], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    }).trim();
  } catch {
    return null;
  }
}

function cpuModel(): string {
  try {
    const m = /^model name\s*:\s*(.+)$/m.exec(readFileSync("/proc/cpuinfo", "utf8"));
    if (m) return m[1].trim();
  } catch {
    /* not Linux */
  }
  return os.cpus()[0]?.model ?? "unknown";
}

/** Heap limit of a fresh `node` without options (this process may run with other options). */
function defaultHeapMiB(): number {
  try {
    const out = execFileSync(process.execPath, ["-e", "process.stdout.write(String(require('v8').getHeapStatistics().heap_size_limit))"], {
      encoding: "utf8",
      env: { PATH: process.env.PATH ?? "" },
    });
    return Math.round(Number(out) / 2 ** 20);
  } catch {
    return Math.round(v8.getHeapStatistics().heap_size_limit / 2 ** 20);
  }
}

/** Reads the machine description (Python side through the workspace venv). */
export function machineInfo(python = VENV_PYTHON): MachineInfo {
  let pyVersion: string | null = null;
  try {
    pyVersion = execFileSync(python, ["-c", "import platform; print(platform.python_version())"], { encoding: "utf8" }).trim();
  } catch {
    pyVersion = null;
  }
  return {
    cpuModel: cpuModel(),
    cores: os.availableParallelism ? os.availableParallelism() : os.cpus().length,
    memoryGiB: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    node: process.version,
    nodeDefaultHeapMiB: defaultHeapMiB(),
    python: pyVersion,
    wandb: pyVersion && pythonPackageVersion(python, "wandb"),
    wandbCurrent: pythonPackageVersion(CURRENT_PYTHON, "wandb"),
    pandas: pyVersion && pythonPackageVersion(python, "pandas"),
    numpy: pyVersion && pythonPackageVersion(python, "numpy"),
    duckdb: pyVersion && pythonPackageVersion(python, "duckdb"),
    loadAverage: Math.round(os.loadavg()[0] * 100) / 100,
  };
}
