/**
 * Fetch complete W&B histories and freeze them into an archive folder.
 *
 *   npm run fetch -- --entity E --project P --run ID=LABEL [--run ID=LABEL ...] --out DIR
 *   npm run fetch -- --config data/runs.json --out DIR
 *   npm run fetch -- --wandb-file PATH=LABEL [--wandb-file PATH=LABEL ...] --out DIR   (offline runs, no server)
 *   options: --page-size N (1000)  --history-path auto|parquet|pages (auto)
 *            --concurrency N (4: HistoryPage requests at once, of runs read together or of a lone run's windows)
 *            --threads N (default: one per core from 20,000 rows in 2+ runs; 0 = one thread)
 *            --profile NAME (default: runs.json "profile", else detected per run)
 *            --base-url URL  --allow-running  --replace  --help
 *
 * Each run's framework is decided as it is frozen and recorded in the manifest: runs of two
 * frameworks, or a run with none of any profile's keys (or of the named one's), are refused before
 * the archive is replaced. A run already frozen in the archive is never replaced with a worse copy
 * (fewer rows, finished -> crashed, a torn end) unless --replace says so.
 *
 * Credentials: WANDB_API_KEY, else the ~/.netrc (or $NETRC) entry of the server host; never a flag,
 * so the key stays out of shell history. Server: --base-url, else WANDB_BASE_URL, else api.wandb.ai.
 */
import { parseArgs } from "node:util";

import { fetchAndFreeze, type RunSelection } from "../lib/archive/fetch-and-freeze";
import { HISTORY_PATH_CHOICES, type HistoryPathChoice } from "../lib/wandb/read-history";
import { cliReporter } from "./cli-reporter";
import { checkRunId, sourceLabel } from "../lib/archive/manifest";
import { allDeclaredFlags, allVersionPackages } from "../lib/registry/profiles";
import { chooseProfile } from "../lib/registry/profile-choice";
import { statedFlags } from "../lib/registry/semantic-flags";
import { statedVersions } from "../lib/registry/versions";
import { locateEventFiles } from "../lib/tensorboard/locate-event-files";
import { runIdOfPath } from "../lib/tensorboard/read-tensorboard-run";
import { optionsOrExit, positiveInt, RUN_SELECTION_OPTIONS, runSelection, UsageError, usageErrors } from "./cli-run-selection";

const USAGE = `usage: npm run fetch -- (--entity E --project P --run ID=LABEL [--run ...] | --config data/runs.json) --out DIR
       npm run fetch -- [--wandb-file PATH=LABEL ...] [--tensorboard PATH=LABEL ...] [--entity E --project P --run ID=LABEL ...] --out DIR
         [--page-size N] [--concurrency N] [--threads N] [--history-path auto|parquet|pages] [--base-url URL] [--allow-running]
         [--profile slime|miles|verl|openrlhf|trl]   (the framework, when the keys do not decide; default: detected per run)
         [--replace]   (replace frozen runs even with fewer rows, a worse state or a torn end)
         [--flag RUN_ID:NAME=VALUE ...]   (a semantic flag stated by hand, e.g. --flag 8ov14yyc:use_rollout_logprobs=true)
         [--version RUN_ID:PACKAGE=VERSION ...]   (a package version stated by hand, e.g. --version 8ov14yyc:trl=0.16.1)`;

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
  /** "detect", or the profile named by --profile or the runs config. */
  profile: string;
  replace: boolean;
}

/** What one per-run option states: its name, the usage example, and how a stated value lands on the run. */
interface PerRunOption {
  option: "flag" | "version";
  expected: string;
  /** The run with NAME=TEXT stated; throws the registry's `invalid flag` / `invalid version` message. */
  state: (run: RunSelection, name: string, text: string, where: string) => RunSelection;
}

/** `--flag RUN_ID:NAME=VALUE`: VALUE read as JSON (true, 0.1, "grpo") or else as text; checked against the declared flags. */
const FLAG_OPTION: PerRunOption = {
  option: "flag",
  expected: "RUN_ID:NAME=VALUE, e.g. 8ov14yyc:use_rollout_logprobs=true",
  state: (run, name, text, where) => {
    let value: unknown = text;
    try {
      value = JSON.parse(text);
    } catch {
      // Not JSON: the text itself (a string flag written without quotes).
    }
    return { ...run, flags: { ...(run.flags ?? {}), ...statedFlags(allDeclaredFlags(), { [name]: value }, where) } };
  },
};

/** `--version RUN_ID:PACKAGE=VERSION`: checked against the packages read (W&B's recorded ones and the profiles'). */
const VERSION_OPTION: PerRunOption = {
  option: "version",
  expected: "RUN_ID:PACKAGE=VERSION, e.g. 8ov14yyc:trl=0.16.1",
  state: (run, pkg, version, where) => ({ ...run, versions: { ...(run.versions ?? {}), ...statedVersions(allVersionPackages(), { [pkg]: version }, where) } }),
};

/** The runs with each `--<option> RUN_ID:NAME=VALUE` stated on the run it names (usage errors name the option and the spec). */
function withPerRunOptions(runs: RunSelection[], o: PerRunOption, specs: readonly string[]): RunSelection[] {
  const out = runs.slice();
  for (const spec of specs) {
    const m = /^([^:]+):([^=]+)=(.*)$/.exec(spec);
    if (!m) throw new UsageError(`invalid --${o.option}: ${spec} (expected ${o.expected})`);
    const [, runId, name, text] = m;
    const at = out.findIndex((r) => r.runId === runId);
    if (at < 0) throw new UsageError(`invalid --${o.option}: ${spec} (no selected run has the id ${runId})`);
    try {
      out[at] = o.state(out[at], name, text, `--${o.option} ${spec}`);
    } catch (e) {
      throw new UsageError((e as Error).message);
    }
  }
  return out;
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

function parseCli(argv: string[]): CliOptions | null {
  const parsed = usageErrors(() =>
    parseArgs({
      args: argv,
      options: {
        ...RUN_SELECTION_OPTIONS,
        tensorboard: { type: "string", multiple: true },
        flag: { type: "string", multiple: true },
        version: { type: "string", multiple: true },
        out: { type: "string" },
        "page-size": { type: "string" },
        concurrency: { type: "string" },
        threads: { type: "string" },
        "history-path": { type: "string" },
        "base-url": { type: "string" },
        "allow-running": { type: "boolean", default: false },
        profile: { type: "string" },
        replace: { type: "boolean", default: false },
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
  const selected = runSelection(v, (v.tensorboard ?? []).map(tensorboardSelection), "--tensorboard");
  const { entity, project } = selected;
  const runs = withPerRunOptions(withPerRunOptions(selected.runs, FLAG_OPTION, v.flag ?? []), VERSION_OPTION, v.version ?? []);
  return {
    entity,
    project,
    runs,
    outDir: v.out,
    pageSize: positiveInt("page-size", v["page-size"]),
    concurrency: positiveInt("concurrency", v.concurrency),
    threads: v.threads === undefined ? undefined : v.threads === "0" ? 0 : positiveInt("threads", v.threads),
    historyPath: historyPath as HistoryPathChoice | undefined,
    baseUrl: v["base-url"],
    allowRunning: v["allow-running"] ?? false,
    profile: usageErrors(() => chooseProfile(v.profile, v.config ?? "")) ?? "detect",
    replace: v.replace ?? false,
  };
}

async function main(): Promise<number> {
  const opts = optionsOrExit(() => parseCli(process.argv.slice(2)), USAGE);
  if (typeof opts === "number") return opts;
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
