/**
 * Helpers of the JupyterLab browser test: a temp copy of the data folder, and the workspace's
 * JupyterLab started the way a user starts it (`npm run lab -- <options>`) on 127.0.0.1 with the
 * user's Jupyter config/runtime folders in a temp dir, stopped (server, kernels, temp dirs) whatever
 * happened.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import * as fs from "node:fs";
import * as net from "node:net";
import * as os from "node:os";
import * as path from "node:path";

/**
 * Make `<dir>/data` a data folder for the notebooks: the frozen archive as `wandb/` (from
 * `data/wandb`, or from the flat `data/manifest.json` + `data/history` layout), plus `local/` and
 * `runs.json` when present. Returns its path.
 */
export function copyDataFolder(root: string, dir: string): string {
  const src = path.join(root, "data");
  const dst = path.join(dir, "data");
  const archive = path.join(dst, "wandb");
  if (fs.existsSync(path.join(src, "wandb"))) {
    fs.cpSync(path.join(src, "wandb"), archive, { recursive: true });
  } else if (fs.existsSync(path.join(src, "manifest.json")) && fs.existsSync(path.join(src, "history"))) {
    fs.mkdirSync(archive, { recursive: true });
    fs.copyFileSync(path.join(src, "manifest.json"), path.join(archive, "manifest.json"));
    fs.cpSync(path.join(src, "history"), path.join(archive, "history"), { recursive: true });
  } else {
    throw new Error(`no frozen archive in ${src}: neither wandb/ nor manifest.json + history/`);
  }
  if (fs.existsSync(path.join(src, "local"))) fs.cpSync(path.join(src, "local"), path.join(dst, "local"), { recursive: true });
  if (fs.existsSync(path.join(src, "runs.json"))) fs.copyFileSync(path.join(src, "runs.json"), path.join(dst, "runs.json"));
  return dst;
}

/** A free TCP port on 127.0.0.1 (asked from the OS, then released for the server to bind). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
  });
}

/** A running JupyterLab. */
export interface Lab {
  /** Base URL, e.g. http://127.0.0.1:PORT (no trailing slash). */
  url: string;
  token: string;
  /** GET/POST a server REST path (e.g. "/api/kernelspecs") with the token; JSON body back. */
  api(pathname: string, method?: string): Promise<unknown>;
  /** Server log so far (stdout + stderr of `npm run lab`). */
  log(): string;
  /** Shut the server and its kernels down and remove the Jupyter temp dirs. Safe to call twice. */
  stop(): Promise<void>;
}

/** Options of startLab. */
export interface StartLabOptions {
  /** Workspace root (where package.json and scripts/lab.sh are). */
  root: string;
  /** Extra environment for the server (and so the kernels it starts), e.g. WORKSPACE_DATA. */
  env?: Record<string, string>;
  /** Give up waiting for /api/status after this long. Default 60 000 ms. */
  startTimeoutMs?: number;
  /** More `jupyter lab` arguments. */
  args?: string[];
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Pids of live processes whose command line mentions `needle` (our kernels name our runtime dir). */
function pidsMentioning(needle: string): number[] {
  const pids: number[] = [];
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmd = fs.readFileSync(`/proc/${entry}/cmdline`, "utf8");
      if (cmd.includes(needle)) pids.push(Number(entry));
    } catch {
      // the process ended meanwhile
    }
  }
  return pids;
}

function exited(child: ChildProcess, ms: number): Promise<boolean> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    child.once("exit", () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

/**
 * Start JupyterLab with the user's command, `npm run lab -- <options>`, headless on 127.0.0.1 with a
 * fresh port and token, the user-level Jupyter config/data/runtime/settings/workspaces dirs in a temp
 * dir (a new user: nothing of this machine's own Jupyter set-up read or written). Nothing else is
 * added: no --allow-root (scripts/lab.sh adds it for root) and no news or update options (the
 * project's settings in the venv turn them off). Resolves once /api/status answers.
 */
export async function startLab(opts: StartLabOptions): Promise<Lab> {
  const jdir = fs.mkdtempSync(path.join(os.tmpdir(), "lab-test-jupyter-"));
  const dirs = {
    JUPYTER_CONFIG_DIR: path.join(jdir, "config"),
    JUPYTER_DATA_DIR: path.join(jdir, "data"),
    JUPYTER_RUNTIME_DIR: path.join(jdir, "runtime"),
    JUPYTERLAB_SETTINGS_DIR: path.join(jdir, "lab-settings"),
    JUPYTERLAB_WORKSPACES_DIR: path.join(jdir, "lab-workspaces"),
    IPYTHONDIR: path.join(jdir, "ipython"),
  };
  for (const d of Object.values(dirs)) fs.mkdirSync(d, { recursive: true });
  const port = await freePort();
  const token = randomBytes(16).toString("hex");
  const url = `http://127.0.0.1:${port}`;
  const env: NodeJS.ProcessEnv = { ...process.env, ...dirs, ...opts.env };
  delete env.JUPYTER_PATH;
  delete env.JUPYTER_CONFIG_PATH;
  let output = "";
  const child = spawn(
    "npm",
    [
      "run",
      "lab",
      "--",
      "--no-browser",
      "--ip=127.0.0.1",
      `--port=${port}`,
      // Fail instead of silently moving to another port.
      "--ServerApp.port_retries=0",
      `--IdentityProvider.token=${token}`,
      ...(opts.args ?? []),
    ],
    { cwd: opts.root, env, stdio: ["ignore", "pipe", "pipe"], detached: true },
  );
  child.stdout?.on("data", (b: Buffer) => (output += b.toString()));
  child.stderr?.on("data", (b: Buffer) => (output += b.toString()));

  const api = async (pathname: string, method = "GET"): Promise<unknown> => {
    const res = await fetch(`${url}${pathname}`, { method, headers: { Authorization: `token ${token}` } });
    if (!res.ok) throw new Error(`${method} ${pathname}: HTTP ${res.status}`);
    const text = await res.text();
    return text ? JSON.parse(text) : null;
  };

  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    if (child.exitCode === null && child.signalCode === null) {
      // The server's own shutdown also shuts its kernels down.
      await api("/api/shutdown", "POST").catch(() => undefined);
      if (!(await exited(child, 10_000)) && child.pid) {
        try {
          process.kill(-child.pid, "SIGTERM");
        } catch {
          // already gone
        }
        if (!(await exited(child, 5_000))) {
          try {
            process.kill(-child.pid, "SIGKILL");
          } catch {
            // already gone
          }
          await exited(child, 2_000);
        }
      }
    }
    // Kernels run in their own session; any left (their argv names a connection file in our runtime dir) go by pid.
    for (const pid of pidsMentioning(dirs.JUPYTER_RUNTIME_DIR)) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // already gone
      }
    }
    fs.rmSync(jdir, { recursive: true, force: true });
  };

  const deadline = Date.now() + (opts.startTimeoutMs ?? 60_000);
  try {
    for (;;) {
      if (child.exitCode !== null || child.signalCode !== null) {
        throw new Error(`npm run lab exited (${child.exitCode ?? child.signalCode}) before JupyterLab answered:\n${output}`);
      }
      try {
        await api("/api/status");
        break;
      } catch {
        // not up yet
      }
      if (Date.now() > deadline) throw new Error(`JupyterLab did not answer on ${url}/api/status within ${opts.startTimeoutMs ?? 60_000} ms:\n${output}`);
      await sleep(250);
    }
  } catch (err) {
    await stop();
    throw err;
  }
  return { url, token, api, log: () => output, stop };
}
