/**
 * Fetch complete W&B histories and freeze them into an archive folder.
 *
 *   npm run fetch -- --entity E --project P --run ID=LABEL [--run ID=LABEL ...] --out DIR
 *   npm run fetch -- --config data/runs.json --out DIR
 *   npm run fetch -- --wandb-file PATH=LABEL [--wandb-file PATH=LABEL ...] --out DIR   (offline runs, no server)
 *   npm run fetch -- --tensorboard PATH=LABEL [--tensorboard PATH=LABEL ...] --out DIR (TensorBoard logs, no server)
 *   options: --page-size N (1000)  --concurrency N (4)  --history-path auto|parquet|pages (auto)
 *            --threads N (default: one per core from 20,000 rows in 2+ runs; 0 = one thread)
 *            --base-url URL  --allow-running  --help
 *
 * Credentials: WANDB_API_KEY, else the ~/.netrc (or $NETRC) entry of the server host; never a flag,
 * so the key stays out of shell history. Server: --base-url, else WANDB_BASE_URL, else api.wandb.ai.
 */
import { parseArgs } from "node:util";

import { fetchAndFreeze, type RunSelection } from "../lib/archive/fetch-and-freeze";
import { checkRunId, sourceLabel } from "../lib/archive/manifest";
import { readRunsConfig } from "../lib/archive/runs-config";
import { locateEventFiles } from "../lib/tensorboard/locate-event-files";
import { runIdOfPath } from "../lib/tensorboard/read-tensorboard-run";
import { locateWandbFile, peekWandbFileRunId } from "../lib/wandb-file/locate-wandb-file";
import { HISTORY_PATH_CHOICES, type HistoryPathChoice } from "../lib/wandb/read-history";
import { cliReporter } from "./cli-reporter";

const USAGE = `usage: npm run fetch -- (--entity E --project P --run ID=LABEL [--run ...] | --config data/runs.json) --out DIR
       npm run fetch -- [--wandb-file PATH=LABEL ...] [--tensorboard PATH=LABEL ...] [--entity E --project P --run ID=LABEL ...] --out DIR
         [--page-size N] [--concurrency N] [--threads N] [--history-path auto|parquet|pages] [--base-url URL] [--allow-running]`;

/** An option error: printed as is with the usage, exit code 2. */
class UsageError extends Error {}

interface CliOptions {
  entity: string;
  project: string;
  runs: RunSelection[];
  outDir: string;
  pageSize?: number;
  concurrency?: number;
  threads?: number;
  historyPath?: HistoryPathChoice;
  baseUrl?: string;
  allowRunning: boolean;
}

function positiveInt(name: string, v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  if (!/^\d+$/.test(v) || Number(v) < 1) throw new UsageError(`invalid --${name}: ${v}`);
  return Number(v);
}

/** `--wandb-file PATH=LABEL`: PATH a .wandb file or a run folder holding one; the run id is read from the file. */
function wandbFileSelection(spec: string): RunSelection {
  const eq = spec.lastIndexOf("=");
  if (eq <= 0 || eq === spec.length - 1)
    throw new UsageError(`invalid --wandb-file: ${spec} (expected PATH=ROUND_LABEL, e.g. wandb/offline-run-20260101_120000-abc123=R0)`);
  try {
    const file = locateWandbFile(spec.slice(0, eq));
    return { runId: peekWandbFileRunId(file), round: spec.slice(eq + 1), file };
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
}

/** `--tensorboard PATH=LABEL`: PATH a run's log directory or one event file; the run id is the path's last part. */
function tensorboardSelection(spec: string): RunSelection {
  const eq = spec.lastIndexOf("=");
  if (eq <= 0 || eq === spec.length - 1) throw new UsageError(`invalid --tensorboard: ${spec} (expected PATH=ROUND_LABEL, e.g. runs/grpo-1=R0)`);
  const at = spec.slice(0, eq);
  try {
    locateEventFiles(at);
    return { runId: checkRunId(runIdOfPath(at)), round: spec.slice(eq + 1), tensorboard: at };
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
}

/** `f()`, with what it throws as a UsageError (parseArgs' messages name the option). */
function usageErrors<T>(f: () => T): T {
  try {
    return f();
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
}

function parseCli(argv: string[]): CliOptions | null {
  const parsed = usageErrors(() =>
    parseArgs({
      args: argv,
      options: {
        entity: { type: "string" },
        project: { type: "string" },
        run: { type: "string", multiple: true },
        config: { type: "string" },
        "wandb-file": { type: "string", multiple: true },
        tensorboard: { type: "string", multiple: true },
        out: { type: "string" },
        "page-size": { type: "string" },
        concurrency: { type: "string" },
        threads: { type: "string" },
        "history-path": { type: "string" },
        "base-url": { type: "string" },
        "allow-running": { type: "boolean", default: false },
        help: { type: "boolean", short: "h", default: false },
      },
      strict: true,
      allowPositionals: false,
    }),
  );
  const v = parsed.values;
  if (v.help) return null;
  const historyPath = v["history-path"];
  if (historyPath !== undefined && (HISTORY_PATH_CHOICES as readonly string[]).indexOf(historyPath) < 0) {
    throw new UsageError(`invalid --history-path: ${historyPath} (auto, parquet or pages)`);
  }
  if (!v.out) throw new UsageError("invalid --out: missing (the archive folder, e.g. data/archive)");
  let entity: string | undefined;
  let project: string | undefined;
  let runs: RunSelection[];
  const files = [...(v["wandb-file"] ?? []).map(wandbFileSelection), ...(v.tensorboard ?? []).map(tensorboardSelection)];
  if (v.config !== undefined) {
    if (v.run || v.entity || v.project || files.length > 0) {
      throw new UsageError(
        `invalid --config: ${v.config} cannot be combined with --entity, --project, --run, --wandb-file or --tensorboard (list files in the config)`,
      );
    }
    try {
      ({ entity, project, runs } = readRunsConfig(v.config));
    } catch (e) {
      throw new UsageError((e as Error).message);
    }
  } else if (files.length > 0 && !v.run && !v.entity && !v.project) {
    runs = [];
  } else {
    if (!v.entity) throw new UsageError("invalid --entity: missing");
    if (!v.project) throw new UsageError("invalid --project: missing");
    if (!v.run || v.run.length === 0) throw new UsageError("invalid --run: missing (give --run RUN_ID=ROUND_LABEL, once per run)");
    ({ entity, project } = v);
    runs = v.run.map((spec) => {
      const m = /^([^=]+)=(.+)$/.exec(spec);
      if (!m) throw new UsageError(`invalid --run: ${spec} (expected RUN_ID=ROUND_LABEL, e.g. 8ov14yyc=R0)`);
      return { runId: m[1], round: m[2] };
    });
  }
  return {
    entity: entity ?? "",
    project: project ?? "",
    runs: runs.concat(files),
    outDir: v.out,
    pageSize: positiveInt("page-size", v["page-size"]),
    concurrency: positiveInt("concurrency", v.concurrency),
    threads: v.threads === undefined ? undefined : v.threads === "0" ? 0 : positiveInt("threads", v.threads),
    historyPath: historyPath as HistoryPathChoice | undefined,
    baseUrl: v["base-url"],
    allowRunning: v["allow-running"] ?? false,
  };
}

async function main(): Promise<number> {
  let opts: CliOptions | null;
  try {
    opts = parseCli(process.argv.slice(2));
  } catch (e) {
    process.stderr.write(`${(e as Error).message}\n${USAGE}\n`);
    return 2;
  }
  if (opts === null) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const { reporter, stop } = cliReporter({ tty: Boolean(process.stderr.isTTY), unit: "rows", plainProgress: true });
  const controller = new AbortController();
  let interruptedAt = 0;
  const onSigint = () => {
    // Ctrl-C reaches this process twice under npm/tsx (terminal group + relay): a repeat within 2 s
    // is the same keypress and must not skip the clean-up that removes the lock and temp folder.
    if (interruptedAt === 0) {
      interruptedAt = Date.now();
      reporter.info?.("interrupted: stopping (the previous archive stays as it was)");
      controller.abort(new Error("interrupted"));
    } else if (Date.now() - interruptedAt > 2000) {
      process.exit(130);
    }
  };
  process.on("SIGINT", onSigint);
  try {
    const manifest = await fetchAndFreeze({ ...opts, reporter, signal: controller.signal });
    stop();
    const rows = manifest.runs.reduce((s, r) => s + r.historyEvents, 0);
    process.stdout.write(`froze ${manifest.runs.length} run(s), ${rows} rows, into ${opts.outDir}\n`);
    for (const r of manifest.runs) {
      const dropped = Object.keys(r.droppedKeys ?? {}).length;
      process.stdout.write(
        `  ${r.round}  ${r.entity}/${r.project}/${r.runId}  ${r.state}  ${r.historyEvents} rows  ${r.file}${r.historyPath ? `  (${r.historyPath})` : ""}${dropped ? `  (${dropped} non-numeric keys left out)` : ""}${r.source ? `  from ${sourceLabel(r)}` : ""}\n`,
      );
    }
    return 0;
  } catch (e) {
    stop();
    if (controller.signal.aborted) {
      process.stderr.write("fetch interrupted: nothing was changed\n");
      return 130;
    }
    process.stderr.write(`fetch failed: ${(e as Error).message}\n`);
    return 1;
  } finally {
    process.off("SIGINT", onSigint);
  }
}

main().then((code) => process.exit(code));
