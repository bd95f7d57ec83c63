/**
 * Reads the metric dicts slime prints to its log (stderr) next to logging them to W&B
 * (docs/slime-logging.md, "Local logs"). A line is
 * `[optional Ray prefix "(Actor pid=N) "][optional "[YYYY-MM-DD HH:MM:SS] file.py:123 - "]message`,
 * where the message is one of
 *   `perf N: {dict}`        rollout manager row (has rollout/* and perf/rollout_time) or trainer perf row
 *                           (perf/*_time timers, perf/actor_train_tok_per_s), told apart by the keys;
 *   `rollout N: {dict}`     trainer rollout row (also `multi_turn N:` and `passrate N:`, logged the same way);
 *   `step N: {dict}`        one optimizer update, N = train/step (`critic-step N:` for a critic);
 *   `eval N: {dict}`        eval row.
 * Other lines are skipped. Lines that look like metric lines but do not parse are counted and
 * reported through the reporter, naming file and line.
 */
import { classifyRowCode, CODE_TRAINER_PERF } from "../axes/key-flags";
import type { Reporter } from "../types";
import { parsePythonDictRepr, ReprSyntaxError } from "./python-repr";

/** Which W&B row a local record corresponds to. */
export type LocalLogKind = "rollout-manager-perf" | "trainer-perf" | "rollout" | "step" | "critic-step" | "eval";

/** One metric dict from a slime log. */
export interface LocalLogRecord {
  kind: LocalLogKind;
  /** rollout id (perf, rollout, eval) or train/step (step, critic-step), as printed. */
  id: number;
  /** Numeric values (nan/inf kept as NaN/±Infinity; np.float32 rounded to float32). */
  values: Record<string, number>;
  /** 1-based line number in the file. */
  line: number;
  /** Keys whose values were not numeric (True, None, strings, ...), only when there are any. */
  skipped?: string[];
}

/** Counts of one parse. */
export interface SlimeLogStats {
  lines: number;
  /** Lines that look like metric lines (parsed or not). */
  metricLines: number;
  records: number;
  /** Metric-looking lines that failed to parse (each reported through reporter.warn). */
  malformed: number;
  /** Values skipped because they were not numeric. */
  nonNumeric: number;
}

/** Options of {@link parseSlimeLog}. */
export interface ParseSlimeLogOptions {
  /** The W&B run this log belongs to (named in warnings). */
  runId: string;
  /** File name for warnings. Default "<text>". */
  file?: string;
  /** Receives one warn per malformed metric line (the first 20, then a count) and an info summary. */
  reporter?: Reporter;
}

/** Warnings about malformed lines beyond this many are summarised in one line. */
const MAX_WARNINGS = 20;

// Ray actor prefix, e.g. "(RolloutManager pid=1805485) "; then the logging prefix; then the message.
const METRIC_LINE =
  /^(?:\([^()]*\)\s*)?(?:\[\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}[^\]]*\]\s+\S+:\d+\s+-\s+)?(perf|rollout|multi_turn|passrate|step|critic-step|eval) (\d+): \{/;
const ANSI = /\x1b\[[0-9;]*[A-Za-z]/g;
// Ray's log deduplication may append this after the message.
const TRAILER = /^\s*(?:\[repeated \d+x across cluster\])?\s*$/;

/**
 * Metric records of one slime log, in file order, with parse counts.
 * @example parseSlimeLogWithStats(text, { runId: "abc123", file: "round0.log" }).stats.records
 */
export function parseSlimeLogWithStats(text: string, opts: ParseSlimeLogOptions): { records: LocalLogRecord[]; stats: SlimeLogStats } {
  if (typeof opts?.runId !== "string" || opts.runId === "") throw new Error(`invalid runId: ${opts?.runId}`);
  const file = opts.file ?? "<text>";
  const reporter = opts.reporter;
  const lines = text.split("\n");
  if (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
  const records: LocalLogRecord[] = [];
  const stats: SlimeLogStats = { lines: lines.length, metricLines: 0, records: 0, malformed: 0, nonNumeric: 0 };
  let warned = 0;

  for (let li = 0; li < lines.length; li++) {
    let line = lines[li];
    if (!line.includes(": {")) continue; // cheap filter: every metric message has it
    if (line.includes("\x1b")) line = line.replace(ANSI, "");
    if (line.endsWith("\r")) line = line.slice(0, -1);
    const m = METRIC_LINE.exec(line);
    if (!m) continue;
    stats.metricLines++;
    const lineNo = li + 1;
    const start = m.index + m[0].length - 1;
    let reason: string | null = null;
    try {
      const parsed = parsePythonDictRepr(line, start);
      if (!TRAILER.test(line.slice(parsed.end))) {
        reason = `unexpected text after the dict at column ${parsed.end + 1}`;
      } else {
        const id = Number(m[2]);
        const rec: LocalLogRecord = { kind: kindOf(m[1], id, parsed.values), id, values: parsed.values, line: lineNo };
        if (parsed.skipped.length > 0) {
          rec.skipped = parsed.skipped;
          stats.nonNumeric += parsed.skipped.length;
        }
        records.push(rec);
      }
    } catch (e) {
      if (!(e instanceof ReprSyntaxError)) throw e;
      reason = e.message;
    }
    if (reason !== null) {
      stats.malformed++;
      if (warned < MAX_WARNINGS) {
        warned++;
        reporter?.warn?.(`${file}:${lineNo}: run ${opts.runId}: metric line "${m[1]} ${m[2]}: {..." not parsed: ${reason}`);
      }
    }
  }
  stats.records = records.length;
  if (stats.malformed > warned) {
    reporter?.warn?.(`${file}: run ${opts.runId}: ${stats.malformed - warned} more malformed metric line(s) not shown`);
  }
  reporter?.info?.(
    `${file}: run ${opts.runId}: ${stats.records} metric record(s) from ${stats.lines} line(s)` +
      (stats.malformed ? `, ${stats.malformed} malformed metric line(s) skipped` : "") +
      (stats.nonNumeric ? `, ${stats.nonNumeric} non-numeric value(s) skipped` : ""),
  );
  return { records, stats };
}

/**
 * Metric records of one slime log, in file order (see {@link parseSlimeLogWithStats} for counts).
 * @example parseSlimeLog(fs.readFileSync("round0.log", "utf8"), { runId: "abc123", file: "round0.log" })
 */
export function parseSlimeLog(text: string, opts: ParseSlimeLogOptions): LocalLogRecord[] {
  return parseSlimeLogWithStats(text, opts).records;
}

function kindOf(message: string, id: number, values: Record<string, number>): LocalLogKind {
  switch (message) {
    case "perf": {
      // slime prints the dict before adding rollout/step; add it back to classify like the W&B row.
      const code = classifyRowCode({ ...values, "rollout/step": id });
      return code === CODE_TRAINER_PERF ? "trainer-perf" : "rollout-manager-perf";
    }
    case "rollout":
    case "multi_turn":
    case "passrate":
      return "rollout";
    case "step":
      return "step";
    case "critic-step":
      return "critic-step";
    default:
      return "eval";
  }
}
