/**
 * The set-up the follow tests share: the local W&B test server (tools/wandb-test-server/), a temp
 * folder, the sample's runs added to the server, and scripts run as a child process against them.
 */
import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { after, before } from "node:test";

import { startWandbTestServer, type WandbTestServer } from "../../tools/wandb-test-server/server";

/** The repository's root. */
export const ROOT = path.join(__dirname, "../..");

/** The sample archive's history rows of a run (data/wandb/history, slime-shaped: rollout batches and updates), as text lines. */
export function sampleHistory(runId: string): string[] {
  return fs
    .readFileSync(path.join(ROOT, "data/wandb/history", `${runId}.jsonl`), "utf8")
    .trimEnd()
    .split("\n");
}

/** A child process's exit code (1 when it died of a signal), stdout and stderr. */
export interface ChildResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Where sample runs go on the server, and which of them. */
export interface SampleRuns {
  entity: string;
  project: string;
  runIds: string[];
}

/** The sample's runs as data/runs.json lists them. */
export function sampleConfig(): SampleRuns {
  const config = JSON.parse(fs.readFileSync(path.join(ROOT, "data/runs.json"), "utf8")) as { entity: string; project: string; runs: { runId: string }[] };
  return { entity: config.entity, project: config.project, runIds: config.runs.map((r) => r.runId) };
}

/** One test file's server and temp folder (made by `useFollowTestBed`). */
export class FollowTestBed {
  private started: WandbTestServer | null = null;

  constructor(
    /** The temp folder, removed after the file's tests. */
    readonly root: string,
  ) {}

  /** Starts the server (before the file's tests). */
  async start(): Promise<void> {
    this.started = await startWandbTestServer({});
  }

  /** Closes the server and removes the temp folder (after the file's tests). */
  async stop(): Promise<void> {
    await this.started?.close();
    fs.rmSync(this.root, { recursive: true, force: true });
  }

  /** The running server; only inside tests (it starts before them). */
  get server(): WandbTestServer {
    if (this.started === null) throw new Error("the W&B test server is started before the tests: use it inside a test");
    return this.started;
  }

  /** What `Follower.open` needs to reach the server, with no environment read. */
  connection(): { baseUrl: string; apiKey: string; env: Record<string, string> } {
    return { baseUrl: this.server.url, apiKey: this.server.apiKey, env: {} };
  }

  /**
   * A child's environment: the server's URL and key, HOME in the temp folder, TZ=UTC; JUPYTER_PATH
   * passes through (the notebook kernel the HTML report runs may be named there).
   */
  env(): NodeJS.ProcessEnv {
    return {
      PATH: process.env.PATH ?? "",
      HOME: this.root,
      TZ: "UTC",
      WANDB_BASE_URL: this.server.url,
      WANDB_API_KEY: this.server.apiKey,
      ...(process.env.JUPYTER_PATH ? { JUPYTER_PATH: process.env.JUPYTER_PATH } : {}),
    };
  }

  /** A script of the repository (e.g. "scripts/follow.ts") run as a child with `env()`, to its end. */
  run(script: string, args: string[]): Promise<ChildResult> {
    return new Promise((resolve) => {
      execFile(process.execPath, ["--import", "tsx", path.join(ROOT, script), ...args], { cwd: ROOT, env: this.env() }, (err, stdout, stderr) =>
        resolve({ code: err ? (typeof err.code === "number" ? err.code : 1) : 0, stdout, stderr }),
      );
    });
  }

  /** `npm run follow` with `args`, as `run` runs it. */
  follow(args: string[]): Promise<ChildResult> {
    return this.run("scripts/follow.ts", args);
  }

  /**
   * The sample's runs added to the server, finished, but `late`: running, with its first `lateRows`
   * rows (the rest can be appended as it "trains").
   */
  addSampleRuns(late: string, lateRows: number, where: SampleRuns = sampleConfig()): SampleRuns {
    for (const runId of where.runIds) {
      const rows = sampleHistory(runId);
      this.server.addRun({
        entity: where.entity,
        project: where.project,
        runId,
        state: runId === late ? "running" : "finished",
        rows: runId === late ? rows.slice(0, lateRows) : rows,
      });
    }
    return where;
  }
}

/** A test file's bed: its temp folder made now (named `prefix`...), the server started before its tests, both gone after them. Call at the file's top level. */
export function useFollowTestBed(prefix: string): FollowTestBed {
  const bed = new FollowTestBed(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
  before(() => bed.start());
  after(() => bed.stop());
  return bed;
}
