/**
 * The local log of a scenario run (scenario.ts) in the format of its profile's era
 * (docs/slime-logging.md, "Local logs"): print era (before 2025-11-17) `perf N: {...}`
 * on stdout with no logger prefix; logger era `[time] file:line - perf N: {...}` on stderr. Both behind
 * Ray actor prefixes, optionally wrapped in ANSI colours, with Ray's `[repeated Nx across cluster]`
 * suffix on a repeated warning, and tqdm bar text glued before `step N:` lines (a capture that keeps
 * `\r`). `perf N:`, `rollout N:`, `eval N:` always print the raw rollout id, whatever rollout/step says.
 */
import { pyDictRepr } from "./python-repr";
import { pyLogTime } from "./local-log";
import { slimeVersionSpec } from "./profiles";
import type { ScenarioRow, ScenarioRun } from "./scenario";

/** Options of `scenarioLocalLog`. */
export interface ScenarioLogOptions {
  /** Ray's colour codes around the actor prefix (`ESC[36m(RolloutManager pid=N)ESC[0m `). */
  ansi?: boolean;
  /** A deduplicated warning line ending in ` [repeated 7x across cluster]` per process start. */
  repeated?: boolean;
  /**
   * tqdm microbatch bar of the logging rank before each `step N:` / `critic-step N:` line:
   * "glued" = an open bar's text (`\ractor train:  50%|...|`) between the Ray prefix and the message,
   * "closed" = a closed `leave=False` bar (`\r<spaces>\r`).
   */
  tqdm?: "glued" | "closed" | null;
  /** Node address Ray adds to the trainer actors' prefix (`(MegatronTrainRayActor pid=N, ip=…)`), for actors on another node. */
  trainerIp?: string | null;
}

/** Which stream the era's metric lines went to. */
export function scenarioLogStream(run: ScenarioRun): "stdout" | "stderr" {
  return slimeVersionSpec(run.flags.profile).logger ? "stderr" : "stdout";
}

const ANSI_COLOUR: Record<ScenarioRow["writer"], number> = { manager: 36, actor: 33, critic: 32 };

/** Ray prefix of a writer, with or without colour codes. */
function rayPrefix(run: ScenarioRun, writer: ScenarioRow["writer"], ansi: boolean, ip: string | null): string {
  const pid = writer === "manager" ? run.pids.rolloutManager : writer === "actor" ? run.pids.actor : run.pids.critic;
  const name = writer === "manager" ? "RolloutManager" : "MegatronTrainRayActor";
  const text = `(${name} pid=${pid}${writer !== "manager" && ip ? `, ip=${ip}` : ""})`;
  return ansi ? `\x1b[${ANSI_COLOUR[writer]}m${text}\x1b[0m ` : `${text} `;
}

/** The message slime prints for a row, and the source of the line. */
function message(run: ScenarioRun, x: ScenarioRow): { source: string; text: string } {
  const src = slimeVersionSpec(run.flags.profile).sources;
  // Every dict is printed before its step key is added, except step rows, which already hold 'train/step'.
  const dict = pyDictRepr(x.values.slice(0, -1));
  switch (x.kind) {
    case "rollout-manager":
      return { source: src.manager, text: `perf ${x.rolloutId}: ${dict}` };
    case "eval":
      return { source: src.eval, text: `eval ${x.rolloutId}: ${dict}` };
    case "trainer-rollout":
      return { source: src.trainerRollout, text: `rollout ${x.rolloutId}: ${dict}` };
    case "multi-turn":
      return { source: src.trainerRollout, text: `multi_turn ${x.rolloutId}: ${dict}` };
    case "passrate":
      return { source: src.trainerRollout, text: `passrate ${x.rolloutId}: ${dict}` };
    case "optimizer-update":
      return { source: src.step, text: `step ${x.trainStep}: ${pyDictRepr(x.values)}` };
    case "critic-update":
      return { source: src.step, text: `critic-step ${x.trainStep}: ${pyDictRepr(x.values)}` };
    case "trainer-perf":
      return { source: src.trainerPerf, text: `perf ${x.rolloutId}: ${dict}` };
  }
}

/** The tqdm text before a step line: an open bar at `done` of `total` microbatches, or a closed one. */
function tqdmText(kind: "glued" | "closed", done: number, total: number): string {
  if (kind === "closed") return `\r${" ".repeat(79)}\r`;
  const pct = Math.round((100 * done) / total);
  const filled = Math.round((10 * done) / total);
  return `\ractor train: ${String(pct).padStart(3)}%|${"█".repeat(filled)}${" ".repeat(10 - filled)}| ${done}/${total} [00:0${done}<00:0${total - done},  3.10s/it]`;
}

/** Renders the local log of a scenario run: one line per printed row plus a few non-metric lines, newline-terminated. */
export function scenarioLocalLog(run: ScenarioRun, opts: ScenarioLogOptions = {}): string {
  const logger = slimeVersionSpec(run.flags.profile).logger;
  const ansi = opts.ansi ?? false;
  const ip = opts.trainerIp ?? null;
  const lines: string[] = [];
  const stepsDone = new Map<string, number>();
  let segment = -1;
  const plain = (writer: ScenarioRow["writer"] | null, timeMs: number, source: string, text: string, glue = "") => {
    const ray = writer === null ? "" : rayPrefix(run, writer, ansi, ip);
    lines.push(logger ? `${ray}${glue}[${pyLogTime(timeMs)}] ${source} - ${text}` : `${ray}${glue}${text}`);
  };
  for (const x of run.printedRows) {
    if (x.segment !== segment) {
      segment = x.segment;
      const at = run.segmentStartMs[segment];
      lines.push(`wandb: ${segment === 0 ? "Syncing" : "Resuming"} run ${run.runId}`);
      if (opts.repeated) {
        lines.push(
          `${rayPrefix(run, "actor", ansi, ip)}[${pyLogTime(at)}] memory_utils.py:42 - [Rank 1] Memory-Usage before offload: allocated 30.52 GB, reserved 31.20 GB [repeated 7x across cluster]`,
        );
      }
    }
    const m = message(run, x);
    let glue = "";
    if (opts.tqdm && (x.kind === "optimizer-update" || x.kind === "critic-update")) {
      const key = `${x.writer}/${x.rolloutId}/${x.segment}`;
      const done = (stepsDone.get(key) ?? 0) + 1;
      stepsDone.set(key, done);
      glue = tqdmText(opts.tqdm, done, run.n);
    }
    plain(x.writer, x.timeMs, m.source, m.text, glue);
  }
  return lines.join("\n") + "\n";
}
