/**
 * The run selection of the fetch and follow CLIs: `--config data/runs.json`, or `--entity E --project
 * P --run ID=LABEL ...`, and `--wandb-file PATH=LABEL ...`; with the option-error shape both print.
 */
import { readRunsConfig } from "../lib/archive/runs-config";
import { joinResumedLogs, type RunSelection } from "../lib/archive/run-selection";
import { locateWandbFile, peekRunIdOfLogBeingWritten, peekWandbFileRunId, runIdOfLogName } from "../lib/wandb-file/locate-wandb-file";

/** An option error: printed as is with the usage, exit code 2. */
export class UsageError extends Error {}

/** The parseArgs options of a run selection. */
export const RUN_SELECTION_OPTIONS = {
  entity: { type: "string" },
  project: { type: "string" },
  run: { type: "string", multiple: true },
  config: { type: "string" },
  "wandb-file": { type: "string", multiple: true },
} as const;

/** The parsed values of RUN_SELECTION_OPTIONS. */
export interface RunSelectionValues {
  entity?: string;
  project?: string;
  run?: string[];
  config?: string;
  "wandb-file"?: string[];
}

/** A resolved selection: entity and project ("" when every run is a .wandb file) and the runs in round order. */
export interface CliRunSelection {
  entity: string;
  project: string;
  runs: RunSelection[];
}

/** `--name N` as a positive integer, undefined when absent; `invalid --name: v` otherwise. */
export function positiveInt(name: string, v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  if (!/^\d+$/.test(v) || Number(v) < 1) throw new UsageError(`invalid --${name}: ${v}`);
  return Number(v);
}

/** `f()`, with what it throws as a UsageError (parseArgs' messages name the option). */
export function usageErrors<T>(f: () => T): T {
  try {
    return f();
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
}

/**
 * `--wandb-file PATH=LABEL`: PATH a .wandb file or a run folder holding one; the run id is read from
 * the file. `beingWritten` (a follow): a log whose writer has not written its run record yet is
 * taken by the id in its name (`run-<id>.wandb`, or its run folder's), and the follow waits for the record.
 */
function wandbFileSelection(spec: string, beingWritten: boolean): RunSelection {
  const eq = spec.lastIndexOf("=");
  if (eq <= 0 || eq === spec.length - 1)
    throw new UsageError(`invalid --wandb-file: ${spec} (expected PATH=ROUND_LABEL, e.g. wandb/offline-run-20260101_120000-abc123=R0)`);
  try {
    const file = locateWandbFile(spec.slice(0, eq));
    const runId = beingWritten ? (peekRunIdOfLogBeingWritten(file) ?? runIdOfLogName(file)) : null;
    return { runId: runId ?? peekWandbFileRunId(file), round: spec.slice(eq + 1), file };
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
}

/**
 * The runs the options select, with `moreFiles` (runs from a source only one CLI reads, named by
 * `moreOption`) after the .wandb files; throws UsageError naming the option that is missing or wrong.
 * `beingWritten`: the .wandb logs may not hold their run record yet (npm run follow).
 */
export function runSelection(v: RunSelectionValues, moreFiles: RunSelection[] = [], moreOption = "", beingWritten = false): CliRunSelection {
  const files = (v["wandb-file"] ?? []).map((spec) => wandbFileSelection(spec, beingWritten)).concat(moreFiles);
  if (v.config !== undefined) {
    if (v.run || v.entity || v.project || files.length > 0) {
      const options = ["--entity", "--project", "--run", "--wandb-file", ...(moreOption ? [moreOption] : [])];
      throw new UsageError(
        `invalid --config: ${v.config} cannot be combined with ${options.slice(0, -1).join(", ")} or ${options[options.length - 1]} (list files in the config)`,
      );
    }
    try {
      return readRunsConfig(v.config);
    } catch (e) {
      throw new UsageError((e as Error).message);
    }
  }
  if (files.length > 0 && !v.run && !v.entity && !v.project) return { entity: "", project: "", runs: checkedRuns(files) };
  if (!v.entity) throw new UsageError("invalid --entity: missing");
  if (!v.project) throw new UsageError("invalid --project: missing");
  if (!v.run || v.run.length === 0) throw new UsageError("invalid --run: missing (give --run RUN_ID=ROUND_LABEL, once per run)");
  const runs = v.run.map((spec) => {
    const m = /^([^=]+)=(.+)$/.exec(spec);
    if (!m) throw new UsageError(`invalid --run: ${spec} (expected RUN_ID=ROUND_LABEL, e.g. 8ov14yyc=R0)`);
    return { runId: m[1], round: m[2] };
  });
  return { entity: v.entity, project: v.project, runs: checkedRuns(runs.concat(files)) };
}

/** The runs as given, once the rule fetchAndFreeze joins them with holds (a run twice, two runs in one round: option errors). */
function checkedRuns(runs: RunSelection[]): RunSelection[] {
  usageErrors(() => joinResumedLogs(runs));
  return runs;
}

/**
 * The parsed options, or the exit code to return: 2 after printing an option error with the usage,
 * 0 after printing the usage (`parse` returns null for --help).
 */
export function optionsOrExit<T>(parse: () => T | null, usage: string): T | number {
  let opts: T | null;
  try {
    opts = parse();
  } catch (e) {
    process.stderr.write(`${(e as Error).message}\n${usage}\n`);
    return 2;
  }
  if (opts === null) {
    process.stdout.write(`${usage}\n`);
    return 0;
  }
  return opts;
}
