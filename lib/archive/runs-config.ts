/**
 * The run selection file `data/runs.json`: which runs to fetch and their round labels. A run is
 * a server run (`{"runId", "round"}`), a local `.wandb` transaction log (`{"file", "round"}`, a path
 * relative to the config's folder: the file or its run folder; `runId` optional, checked), or
 * TensorBoard event files (`{"tensorboard", "round"}`, a log directory or one event file relative to
 * the config's folder; `runId` optional, else made from the path's last part).
 */
import * as fs from "node:fs";
import { dirname, resolve } from "node:path";
import { allDeclaredFlags, allVersionPackages } from "../registry/profiles";
import { statedFlags } from "../registry/semantic-flags";
import { statedVersions } from "../registry/versions";

import { joinResumedLogs, type RunSelection } from "./run-selection";
import { checkRunId } from "./manifest";
import { locateEventFiles } from "../tensorboard/locate-event-files";
import { runIdOfPath } from "../tensorboard/read-tensorboard-run";
import { locateWandbFile, peekWandbFileRunId } from "../wandb-file/locate-wandb-file";

/** Contents of `data/runs.json`. */
export interface RunsConfig {
  /** "" when every run is a `.wandb` file (then no server is asked). */
  entity: string;
  project: string;
  /** Runs in round order. */
  runs: RunSelection[];
}

/**
 * Reads and validates a runs config; errors read `invalid runs config: <file>: <what>`.
 * @example readRunsConfig("data/runs.json") // { entity, project, runs: [{ runId, round }] }
 */
export function readRunsConfig(path: string): RunsConfig {
  const bad = (what: string) => new Error(`invalid runs config: ${path}: ${what}`);
  let text: string;
  try {
    text = fs.readFileSync(path, "utf8");
  } catch (e) {
    throw bad(`cannot read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    throw bad(`not valid JSON (${(e as Error).message})`);
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) throw bad("not a JSON object");
  const cfg = parsed as Record<string, unknown>;
  // entity and project may be left out only when every run is read from files (no server asked).
  const isFileRun = (r: unknown) => r !== null && typeof r === "object" && ["file", "tensorboard"].some((k) => (r as Record<string, unknown>)[k] !== undefined);
  const onlyFiles = Array.isArray(cfg.runs) && cfg.runs.length > 0 && cfg.runs.every(isFileRun);
  for (const key of ["entity", "project"]) {
    if (onlyFiles && cfg[key] === undefined) continue;
    if (typeof cfg[key] !== "string" || !(cfg[key] as string).trim()) throw bad(`"${key}" must be a non-empty string`);
  }
  if (!Array.isArray(cfg.runs) || cfg.runs.length === 0) {
    throw bad(`"runs" must be a non-empty list of {"runId", "round"}, {"file", "round"} or {"tensorboard", "round"}`);
  }
  const runs: RunSelection[] = cfg.runs.map((r: unknown, i: number) => {
    if (r === null || typeof r !== "object" || Array.isArray(r)) throw bad(`runs[${i}] is not an object`);
    if ((r as Record<string, unknown>).tensorboard !== undefined) return tensorboardRun(r as Record<string, unknown>, i, dirname(path), bad);
    return wandbRun(r as Record<string, unknown>, i, dirname(path), bad);
  });
  // A run id listed twice is refused by the rule fetchAndFreeze joins with (several .wandb logs of one
  // id in one round are the run resumed into its own id); checked here so the config names the error.
  try {
    joinResumedLogs(runs);
  } catch (e) {
    throw bad((e as Error).message.replace(/^invalid runs: /, ""));
  }
  return { entity: (cfg.entity as string | undefined) ?? "", project: (cfg.project as string | undefined) ?? "", runs };
}

/** A `{"runId", "round"}` entry, or `{"file", "round", "runId"?}` (a .wandb log; the run id is read from it and must match a given one). */
function wandbRun(r: Record<string, unknown>, i: number, dir: string, bad: (what: string) => Error): RunSelection {
  const { round, file } = r;
  let { runId } = r;
  let wandbFile: string | undefined;
  if (file !== undefined) {
    if (typeof file !== "string" || !file.trim()) throw bad(`runs[${i}].file must be a non-empty string`);
    try {
      wandbFile = locateWandbFile(resolve(dir, file));
      const inFile = peekWandbFileRunId(wandbFile);
      if (runId !== undefined && runId !== inFile)
        throw new Error(`${file} holds run ${JSON.stringify(inFile)}, not ${JSON.stringify(runId)}: a file of another run`);
      runId = inFile;
    } catch (e) {
      throw bad(`runs[${i}]: ${(e as Error).message}`);
    }
  }
  if (typeof runId !== "string") throw bad(`runs[${i}].runId must be a string`);
  try {
    checkRunId(runId);
  } catch (e) {
    throw bad(`runs[${i}]: ${(e as Error).message}`);
  }
  if (typeof round !== "string" || !round.trim()) throw bad(`runs[${i}].round must be a non-empty string`);
  const sel: RunSelection = wandbFile === undefined ? { runId, round } : { runId, round, file: wandbFile };
  return withFlags(sel, r, i, bad);
}

/** The entry's stated `flags` (declared flags only, typed) and `versions` (known packages, release versions), on its selection. */
function withFlags(sel: RunSelection, r: Record<string, unknown>, i: number, bad: (what: string) => Error): RunSelection {
  try {
    const flags = r.flags === undefined ? {} : { flags: statedFlags(allDeclaredFlags(), r.flags, `runs[${i}]`) };
    const versions = r.versions === undefined ? {} : { versions: statedVersions(allVersionPackages(), r.versions, `runs[${i}]`) };
    return { ...sel, ...flags, ...versions };
  } catch (e) {
    throw bad((e as Error).message);
  }
}

/** A `{"tensorboard", "round", "runId"?}` entry: the path must name event files; the run id defaults to the path's last part. */
function tensorboardRun(r: Record<string, unknown>, i: number, dir: string, bad: (what: string) => Error): RunSelection {
  const { tensorboard, round, file } = r;
  if (file !== undefined) throw bad(`runs[${i}] has both "file" and "tensorboard": one source per run`);
  if (typeof tensorboard !== "string" || !tensorboard.trim()) throw bad(`runs[${i}].tensorboard must be a non-empty string`);
  const at = resolve(dir, tensorboard);
  const runId = r.runId ?? runIdOfPath(at);
  try {
    locateEventFiles(at);
    checkRunId(runId as string);
  } catch (e) {
    throw bad(`runs[${i}]: ${(e as Error).message}`);
  }
  if (typeof round !== "string" || !round.trim()) throw bad(`runs[${i}].round must be a non-empty string`);
  return withFlags({ runId: runId as string, round, tensorboard: at }, r, i, bad);
}
