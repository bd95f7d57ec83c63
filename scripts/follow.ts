/**
 * Follow runs while they train: poll, freeze only the new rows, write a snapshot chained to the last.
 *
 *   npm run follow -- (--entity E --project P --run ID=LABEL ... | --config data/runs.json | --wandb-file PATH=LABEL ...)
 *                     --out DIR [--interval SECONDS (60)] [--until finished | --polls N] [--report [--report-out DIR] [--html]]
 *   options: --overlap ROWS (100: last frozen rows read again to detect rewrites)  --stale SECONDS (600: a .wandb log
 *            without writes for this long and no exit record is reported, and called crashed when the follow ends)  --page-size N (1000)  --history-path auto|parquet|pages (a run's first read; later polls page)  --base-url URL
 *            --profile NAME  --n RUN=N  --always-use-train-step RUN=true|false (what the data cannot decide, as npm run export takes them:
 *            the options the analysis's messages suggest)
 *
 * Each poll prints one line per snapshot. A failed poll is a warning and is retried at the next
 * interval; the archive keeps its last snapshot. Ctrl-C stops between or inside a poll and leaves the
 * last snapshot as it was. After each snapshot the health checks run on its closed records (a running
 * run's last batch is shown as open, never analysed) and each flag is printed the first time it
 * appears (recorded in the archive: a restarted follow does not print it again); --report also
 * rebuilds the exports (as npm run export), and --html the HTML report of notebooks 01-06 (as npm start).
 * Details: docs/follow.md.
 */
import * as path from "node:path";
import { parseArgs } from "node:util";

import { Follower, type FollowLoopOptions, type PollResult } from "../lib/follow/follower";
import type { ExportResult } from "../lib/export/index";
import { FlagsSeen } from "../lib/follow/new-flags";
import { NotAnalysedWarnings } from "../lib/follow/not-analysed";
import { notesOnce } from "../lib/follow/notes-once";
import { LiveArchive } from "../lib/follow/live-archive";
import type { OpenBatch, SnapshotAnalysis } from "../lib/follow/poll-analysis";
import type { HealthFlag } from "../lib/health/health-check";
import { verifySnapshotChain } from "../lib/archive/snapshot-chain";
import { healthSettings } from "../lib/health/index";
import type { Reporter } from "../lib/types";
import { HISTORY_PATH_CHOICES, type HistoryPathChoice } from "../lib/wandb/read-history";
import { cliReporter } from "./cli-reporter";
import { ALIGN_OPTIONS, ALIGN_USAGE, type AlignCliOptions, alignOptions } from "./cli-align-options";
import { rebuildHtmlReport } from "./follow-html-report";
import { type CliRunSelection, optionsOrExit, positiveInt, RUN_SELECTION_OPTIONS, runSelection, UsageError, usageErrors } from "./cli-run-selection";

const USAGE = `usage: npm run follow -- (--entity E --project P --run ID=LABEL [--run ...] | --config data/runs.json | --wandb-file PATH=LABEL ...) --out DIR
         [--interval SECONDS (60)] [--until finished | --polls N] [--report [--report-out DIR (exports)] [--html]]
         [--overlap ROWS (100)] [--stale SECONDS (600)] [--page-size N] [--history-path auto|parquet|pages] [--base-url URL]
         ${ALIGN_USAGE}`;

interface FollowCli extends CliRunSelection {
  outDir: string;
  intervalSeconds: number;
  until: FollowLoopOptions["until"];
  report: string | null;
  /** Also rebuild the HTML report (notebooks 01-06) into the report folder after each snapshot. */
  html: boolean;
  /** runs.json whose `health` object sets the health thresholds (as npm run export reads it). */
  healthConfig: string;
  pageSize?: number;
  overlapRows?: number;
  staleSeconds?: number;
  historyPath?: HistoryPathChoice;
  baseUrl?: string;
  /** What the data cannot decide, stated: the profile, N, the rollout/step reading. */
  align: AlignCliOptions;
}

function parseCli(argv: string[]): FollowCli | null {
  const { values: v } = usageErrors(() =>
    parseArgs({
      args: argv,
      options: {
        ...RUN_SELECTION_OPTIONS,
        out: { type: "string" },
        interval: { type: "string" },
        until: { type: "string" },
        polls: { type: "string" },
        report: { type: "boolean", default: false },
        "report-out": { type: "string" },
        html: { type: "boolean", default: false },
        "page-size": { type: "string" },
        overlap: { type: "string" },
        stale: { type: "string" },
        "history-path": { type: "string" },
        "base-url": { type: "string" },
        ...ALIGN_OPTIONS,
        help: { type: "boolean", short: "h", default: false },
      },
      strict: true,
      allowPositionals: false,
    }),
  );
  if (v.help) return null;
  if (!v.out) throw new UsageError("invalid --out: missing (the archive folder, e.g. data/wandb)");
  const historyPath = v["history-path"];
  if (historyPath !== undefined && (HISTORY_PATH_CHOICES as readonly string[]).indexOf(historyPath) < 0) {
    throw new UsageError(`invalid --history-path: ${historyPath} (auto, parquet or pages)`);
  }
  const interval = v.interval ?? "60";
  if (!/^\d+(\.\d+)?$/.test(interval)) throw new UsageError(`invalid --interval: ${interval} (seconds between polls)`);
  if (v.until !== undefined && v.until !== "finished") throw new UsageError(`invalid --until: ${v.until} (only "finished")`);
  if (v.until !== undefined && v.polls !== undefined) throw new UsageError("invalid --polls: give --until finished or --polls N, not both");
  if (v["report-out"] !== undefined && !v.report) throw new UsageError("invalid --report-out: only with --report");
  if (v.html && !v.report) throw new UsageError("invalid --html: only with --report");
  const polls = positiveInt("polls", v.polls);
  return {
    ...runSelection(v, [], "", true),
    outDir: v.out,
    intervalSeconds: Number(interval),
    until: polls === undefined ? "finished" : { polls },
    report: v.report ? (v["report-out"] ?? "exports") : null,
    html: v.html === true,
    healthConfig: v.config ?? path.join(path.dirname(v.out), "runs.json"),
    pageSize: positiveInt("page-size", v["page-size"]),
    overlapRows: v.overlap === "0" ? 0 : positiveInt("overlap", v.overlap),
    staleSeconds: positiveInt("stale", v.stale),
    historyPath: historyPath as HistoryPathChoice | undefined,
    baseUrl: v["base-url"],
    align: alignOptions(v, (m) => new UsageError(m)),
  };
}

/** One stdout line for a poll. */
function pollLine(result: PollResult, poll: number): string {
  const states = Object.entries(result.states)
    .map(([id, s]) => `${id} ${s}`)
    .join(", ");
  if (result.sequence === null) return `poll ${poll}: nothing new (${states})`;
  const added = Object.entries(result.rowsAdded)
    .map(([id, n]) => `${id} +${n}`)
    .join(", ");
  return `poll ${poll}: snapshot ${result.sequence}: ${added} rows (${states})`;
}

/** One stdout line for an open batch: shown as open, never averaged; worded by the profile's axis (docs/follow.md). */
function openLine(b: OpenBatch): string {
  const sofar =
    b.unit === "step"
      ? `step ${b.rollout} (${b.rolloutRecords} record(s) so far)`
      : `rollout ${b.rollout} (${b.rolloutRecords} rollout record(s), ${b.updates} update(s) so far)`;
  return `  open: run ${b.runId} (round ${b.round}): ${sofar} is not analysed until a later one is logged`;
}

/** One stdout line for a flag printed the first time: the check, where, and its reading rule. */
function flagLine(f: HealthFlag, recordNoun: string): string {
  return `  new flag: ${f.check} (${f.severity}) run ${f.runId} ${f.unit === "update" ? "update" : recordNoun} ${f.first}..${f.last} ${f.key}: ${f.rule}`;
}

/** What a follow keeps between snapshots' analyses. */
interface AnalysisState {
  seen: FlagsSeen;
  live: LiveArchive;
  failures: NotAnalysedWarnings;
  /** Failed rebuilds of the HTML report (--html), said as failed analyses are. */
  htmlFailures: NotAnalysedWarnings;
}

/**
 * After a snapshot: the health checks on its closed records (the exports rebuilt too with --report),
 * the open batches, and each flag not printed before, recorded in the archive. A failed analysis is
 * a warning (its reason said in full once, see NotAnalysedWarnings): the snapshot stands and the
 * next one is analysed again.
 */
async function analysePoll(opts: FollowCli, state: AnalysisState, result: Pick<PollResult, "sequence" | "takenAt">, reporter: Reporter): Promise<void> {
  if (result.sequence === null) return;
  const { seen, live, failures } = state;
  const health = healthSettings(process.env, opts.healthConfig);
  let analysis: SnapshotAnalysis;
  try {
    // The in-memory archive parses only the new rows; --report plans the exports from its alignment
    // (the bytes `npm run export` writes: test/follow/live-archive.test.ts), so nothing is reloaded.
    analysis = await live.analyse(health.params, opts.report ?? undefined);
  } catch (e) {
    reporter.warn?.(failures.failed(result.sequence, (e as Error).message));
    return;
  }
  failures.analysed();
  for (const b of analysis.open) process.stdout.write(`${openLine(b)}\n`);
  for (const f of seen.take(analysis.health.flags, { snapshot: result.sequence, takenAt: result.takenAt }))
    process.stdout.write(`${flagLine(f, analysis.health.recordNoun)}\n`);
  // Printed, then recorded: a crash in between prints a flag twice, never loses one.
  await seen.save(opts.outDir, reporter);
  if (opts.html && analysis.exports !== null) await htmlReport(opts, result.sequence, analysis.exports, state.htmlFailures, reporter);
}

/** The HTML report rebuilt after a snapshot; a failure is a warning (the last report stays whole; a repeated reason said briefly). */
async function htmlReport(opts: FollowCli, sequence: number, exports: ExportResult, failures: NotAnalysedWarnings, reporter: Reporter): Promise<void> {
  const t0 = Date.now();
  try {
    const index = await rebuildHtmlReport({
      archiveDir: opts.outDir,
      runsConfig: opts.healthConfig,
      outDir: opts.report!,
      profile: opts.align.profile,
      exports,
    });
    process.stdout.write(`  report: ${index} (snapshot ${sequence}, ${((Date.now() - t0) / 1000).toFixed(0)} s)\n`);
    failures.analysed();
  } catch (e) {
    reporter.warn?.(failures.failed(sequence, (e as Error).message));
  }
}

async function main(): Promise<number> {
  const opts = optionsOrExit(() => parseCli(process.argv.slice(2)), USAGE);
  if (typeof opts === "number") return opts;
  const cli = opts;
  const { reporter, stop } = cliReporter({ tty: Boolean(process.stderr.isTTY), unit: "rows" });
  const controller = new AbortController();
  const onSigint = () => {
    if (controller.signal.aborted) return; // npm/tsx relay the keypress twice: the same Ctrl-C
    reporter.info?.("interrupted: stopping (the archive keeps its last snapshot)");
    controller.abort(new Error("interrupted"));
  };
  process.on("SIGINT", onSigint);
  try {
    const follower = await Follower.open({ ...cli, reporter });
    // The analyses' notes (alignment's, at every snapshot) each said once; the follow's own lines as they come.
    const analysisReporter = notesOnce(reporter);
    const state: AnalysisState = {
      seen: await FlagsSeen.open(cli.outDir),
      live: new LiveArchive(cli.outDir, { reporter: analysisReporter, align: cli.align }),
      failures: new NotAnalysedWarnings(),
      htmlFailures: new NotAnalysedWarnings("HTML report not rebuilt", "the last one stays"),
    };
    // A snapshot an earlier follow wrote but did not analyse (it stopped in between): analysed first.
    const last = follower.lastManifest()?.snapshot;
    if (last && last.sequence > (state.seen.lastAnalysed() ?? 0)) {
      process.stdout.write(`snapshot ${last.sequence} (written before this follow, not analysed yet):\n`);
      await analysePoll(cli, state, last, analysisReporter);
    }
    const summary = await follower.follow({
      intervalSeconds: cli.intervalSeconds,
      until: cli.until,
      signal: controller.signal,
      onPoll: async (result, poll) => {
        process.stdout.write(`${pollLine(result, poll)}\n`);
        await analysePoll(cli, state, result, analysisReporter);
      },
    });
    stop();
    await state.live.close();
    const chain = await verifySnapshotChain(cli.outDir);
    for (const p of chain.problems) process.stderr.write(`snapshot chain: ${p}\n`);
    process.stdout.write(
      `followed ${cli.runs.length} run(s) into ${cli.outDir}: ${summary.polls} poll(s), ${summary.snapshots} snapshot(s), ${summary.failedPolls} failed; ${summary.stopped}; snapshot chain ${chain.ok ? "verified" : "BROKEN"}\n`,
    );
    if (!chain.ok) return 1;
    return summary.stopped === "interrupted" ? 130 : 0;
  } catch (e) {
    stop();
    process.stderr.write(`follow failed: ${(e as Error).message}\n`);
    return 1;
  } finally {
    process.off("SIGINT", onSigint);
  }
}

main().then((code) => process.exit(code));
