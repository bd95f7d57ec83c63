/**
 * Which runs to freeze as the user names them (data/runs.json, the CLIs' run options): a run, its
 * round, the local files it is read from, and flags and versions stated by hand. Shared by the fetch
 * (fetch-and-freeze.ts), the follow (lib/follow/) and the CLIs.
 */
import * as path from "node:path";

import type { FlagValue } from "../registry/semantic-flags";
import type { ManifestRun } from "../types";

/** One run to fetch and the round label the user gives it. */
export interface RunSelection {
  runId: string;
  round: string;
  /** Read this local `.wandb` file (holding run `runId`) instead of asking the server. */
  file?: string;
  /** Other `.wandb` logs of the same run id (resumed into its own id offline); read with `file` in the order their processes started. */
  resumedIn?: string[];
  /** Read this TensorBoard log directory or event file instead of asking the server. */
  tensorboard?: string;
  /** Semantic flags stated by hand (validated against the declared flags): frozen with source "stated", over what a config says. */
  flags?: Record<string, FlagValue>;
  /** Package versions stated by hand (lib/registry/versions.ts statedVersions): frozen with source "stated", over what the run records. */
  versions?: Record<string, string>;
}

/** True for a run read from local files (a `.wandb` log or TensorBoard event files), not from the server. */
export function fromFiles(r: RunSelection): boolean {
  return Boolean(r.file || r.tensorboard);
}

/**
 * Joins `.wandb` logs of one run id into one selection: a run resumed into its own id offline
 * writes a log per process, and they are one W&B run (frozen as one, joined by their `_step`s; see
 * freezeWandbFileRun). Logs of one id must share a round; one file twice, an id both a server run and
 * a log, or two runs given one round label, is refused.
 * @example joinResumedLogs([{ runId: "a", round: "R0", file: "x.wandb" }, { runId: "a", round: "R0", file: "y.wandb" }])
 *   // [{ runId: "a", round: "R0", file: "x.wandb", resumedIn: ["y.wandb"] }]
 */
export function joinResumedLogs(runs: readonly RunSelection[]): RunSelection[] {
  const out: RunSelection[] = [];
  const byId = new Map<string, RunSelection>();
  for (const r of runs) {
    const first = byId.get(r.runId);
    if (first === undefined) {
      const copy = { ...r };
      byId.set(r.runId, copy);
      out.push(copy);
      continue;
    }
    if (!first.file || !r.file || first.file === r.file || first.resumedIn?.includes(r.file)) throw new Error(`invalid runs: run ${r.runId} is listed twice`);
    if (first.round !== r.round) {
      throw new Error(
        `invalid runs: run ${r.runId} is listed twice, in rounds ${first.round} and ${r.round}: two .wandb logs of one run id are the run resumed into its own id; give them one round`,
      );
    }
    first.resumedIn = [...(first.resumedIn ?? []), r.file];
  }
  refuseSharedRounds(out);
  return out;
}

/** A run in a message: its id, and the file or folder it is read from (what the user typed). */
function describeSelection(r: RunSelection): string {
  const from = r.file ?? r.tensorboard;
  return from === undefined ? `run ${r.runId}` : `run ${r.runId} (${path.basename(from)})`;
}

/**
 * Throws when two runs (after joining a run's logs) carry one round label: a round is one run of the
 * sequence, and the export would only fail later with "round R0 is listed twice".
 */
function refuseSharedRounds(runs: readonly RunSelection[]): void {
  const byRound = new Map<string, RunSelection>();
  for (const r of runs) {
    if (typeof r.round !== "string" || !r.round.trim()) continue; // checkSelection names a bad label
    const first = byRound.get(r.round);
    if (first === undefined) {
      byRound.set(r.round, r);
      continue;
    }
    throw new Error(
      `invalid runs: round ${r.round} is given to two runs, ${describeSelection(first)} and ${describeSelection(r)}: give each run a round label of its own, in the order they trained (e.g. R0, R1); only the .wandb logs of one run resumed into its own id share a round`,
    );
  }
}

/** A frozen run's entry with the flags and versions its selection states (they win over what its config records). */
export function withStated(run: ManifestRun, sel: Pick<RunSelection, "flags" | "versions">): ManifestRun {
  const flags = statedOver(run.flags, sel.flags);
  const versions = statedOver(run.versions, sel.versions);
  return { ...run, ...(flags ? { flags } : {}), ...(versions ? { versions } : {}) };
}

/** Values read (each with its source) with the stated ones over them, source "stated"; undefined when nothing is stated. */
function statedOver<V, S extends string>(
  read: Readonly<Record<string, { value: V; source: S | "stated" }>> | undefined,
  stated: Record<string, V> | undefined,
): Record<string, { value: V; source: S | "stated" }> | undefined {
  if (stated === undefined || Object.keys(stated).length === 0) return undefined;
  const out: Record<string, { value: V; source: S | "stated" }> = { ...(read ?? {}) };
  for (const [name, value] of Object.entries(stated)) out[name] = { value, source: "stated" };
  return out;
}
