/**
 * Reads the metric dicts slime prints to its local log next to logging them to W&B
 * (docs/slime-logging.md, "Local logs"). Every era is read:
 *   print era (before 2025-11-17, stdout): `perf 7: {dict}`, no timestamp, no file:line;
 *   logger era (since 2025-11-17, stderr): `[2026-07-20 17:53:16] rollout.py:1303 - perf 7: {dict}`,
 *     possibly with a role tag inside the brackets;
 * either behind a Ray actor prefix `(RolloutManager pid=N) ` / `(MegatronTrainRayActor pid=N, ip=..) `
 * (ANSI colour codes removed), after tqdm bar text or `\r` redraws in the same line, and possibly
 * followed by Ray's ` [repeated Nx across cluster]` or a `\r` redraw. The message is one of
 *   `perf N: {dict}`        rollout manager row (rollout/* and perf/rollout_time) or trainer perf row
 *                           (perf/*_time timers, perf/actor_train_tok_per_s), told apart by the keys;
 *   `rollout N: {dict}`     trainer rollout row (also `multi_turn N:` and `passrate N:`, logged the same way);
 *   `no filter rollout log N: {dict}`  the rollout-buffer plugin's row (rollout/no_filter/*), read as a
 *                           trainer rollout record (W&B merges it into the rollout record);
 *   `step N: {dict}`        one optimizer update, N = train/step (`critic-step N:` for a critic);
 *   `eval N: {dict}`        eval row.
 * N is printed raw: the rollout id for perf/rollout/multi_turn/passrate/eval/no-filter lines (also
 * under --wandb-always-use-train-step), the train/step for step lines.
 * Other lines are skipped. A metric message that does not parse (dict cut or damaged, text after
 * the dict, glued behind text that is neither a logging prefix nor a tqdm bar) is counted as
 * malformed, listed with file, line and reason, and reported through the reporter.
 */
import { classifyRow } from "../align/index";
import type { Reporter } from "../types";
import { parsePythonDictRepr, ReprSyntaxError } from "./python-repr";

/** Which W&B row a local record corresponds to. */
export type LocalLogKind = "rollout-manager-perf" | "trainer-perf" | "rollout" | "step" | "critic-step" | "eval";

/** The message word a metric line starts with, as slime prints it. */
export type LocalLogMessage = "perf" | "rollout" | "multi_turn" | "passrate" | "no filter rollout log" | "step" | "critic-step" | "eval";

/** One metric dict from a slime log. */
export interface LocalLogRecord {
  kind: LocalLogKind;
  /**
   * The N of `<message> N:` as printed: the raw rollout id (perf, rollout, multi_turn, passrate,
   * no filter rollout log, eval; never scaled by --wandb-always-use-train-step) or train/step (step, critic-step).
   */
  id: number;
  /** Numeric values (nan/inf kept as NaN/±Infinity; np.float32 rounded to float32). */
  values: Record<string, number>;
  /** 1-based line number in the file. */
  line: number;
  /** Keys whose values were not numeric (True, None, strings, tensor(...), ...), only when there are any. */
  skipped?: string[];
  /** The message word of the line; absent means the kind says it (perf, rollout, step, critic-step, eval). */
  message?: LocalLogMessage;
}

/** A metric message that did not parse. */
export interface MalformedLine {
  /** File name as given in the options. */
  file: string;
  /** 1-based line number in the file. */
  line: number;
  /** The message and id, e.g. "step 6". */
  message: string;
  reason: string;
}

/** Counts of one parse. */
export interface SlimeLogStats {
  lines: number;
  /** Metric messages found (parsed or not); a line normally holds one. */
  metricLines: number;
  records: number;
  /** Lines whose metric message failed to parse (each listed in `malformed` and reported through reporter.warn). */
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

// A metric message anywhere in a line: the word (not the tail of a longer name such as
// "critic-step" or "rollout/step"), the id, ": {". Longer alternatives first.
const FRAGMENT = /(?<![\w/-])(no filter rollout log|critic-step|multi_turn|passrate|rollout|perf|step|eval) (\d+): \{/g;
// The logging prefix right before a message; what precedes it (Ray prefix, tqdm bar text) does not matter.
const LOGGER_PREFIX_END = /\[\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}[^\]\n]*\]\s+\S+:\d+\s+-\s+$/;
// Ray actor prefix, e.g. "(RolloutManager pid=1805485) " or "(MegatronTrainRayActor pid=22, ip=10.0.0.2) ".
const RAY_PREFIX = /^\s*\([^()]*\)\s*/;
// The end of a tqdm bar ("| 2/4 [00:03<00:03,  1.50s/it]") that a print-era message was glued behind.
const TQDM_TAIL = /\d+\/\d+ \[[^\]]*\]\s*$/;
const ANSI = /\x1b\[[0-9;]*[A-Za-z]/g;
// Ray's log deduplication may append this after the message; a "\r" starts a terminal redraw.
const TRAILER = /^\s*(?:\[repeated \d+x across cluster\])?\s*(?:\r[\s\S]*)?$/;

/** Whether a metric message may start after `pre` (the text before it on its line). */
function startsMessage(pre: string): boolean {
  if (pre === "" || LOGGER_PREFIX_END.test(pre)) return true;
  // Print era: the message opens the line, after a Ray prefix and/or "\r" redraws, or follows a tqdm bar.
  let rest = pre.replace(RAY_PREFIX, "");
  const cr = rest.lastIndexOf("\r");
  if (cr >= 0) rest = rest.slice(cr + 1);
  return /^\s*$/.test(rest) || TQDM_TAIL.test(rest);
}

/** Text shown for a glued message: the last characters before it. */
function tail(pre: string): string {
  const t = pre.replace(/\r/g, "\\r");
  return JSON.stringify(t.length > 60 ? "..." + t.slice(-60) : t);
}

/** The metric messages of one line: records, or the reason the line is malformed (with the message). */
function readLine(
  line: string,
  lineNo: number,
  onRecord: (rec: LocalLogRecord) => void,
): { messages: number; bad: { message: string; reason: string } | null } {
  FRAGMENT.lastIndex = 0;
  let m = FRAGMENT.exec(line);
  if (m === null) return { messages: 0, bad: null };
  let messages = 0;
  let from = 0;
  while (m !== null) {
    messages++;
    const message = `${m[1]} ${m[2]}`;
    const pre = line.slice(from, m.index);
    if (!startsMessage(pre)) return { messages, bad: { message, reason: `the message is glued behind other text (${tail(pre)}) and was not read` } };
    let parsed: ReturnType<typeof parsePythonDictRepr>;
    try {
      parsed = parsePythonDictRepr(line, m.index + m[0].length - 1);
    } catch (e) {
      if (!(e instanceof ReprSyntaxError)) throw e;
      return { messages, bad: { message, reason: e.message } };
    }
    FRAGMENT.lastIndex = parsed.end;
    const next = FRAGMENT.exec(line);
    // Text up to the next message (two outputs interleaved on one line), or to the end of the line.
    const between = line.slice(parsed.end, next === null ? line.length : next.index);
    if (!TRAILER.test(between) && !(next !== null && startsMessage(between))) {
      return { messages, bad: { message, reason: `unexpected text after the dict at column ${parsed.end + 1}` } };
    }
    const id = Number(m[2]);
    const word = m[1] as LocalLogMessage;
    const rec: LocalLogRecord = { kind: kindOf(word, id, parsed.values), id, values: parsed.values, line: lineNo };
    if (parsed.skipped.length > 0) rec.skipped = parsed.skipped;
    if (word === "multi_turn" || word === "passrate" || word === "no filter rollout log") rec.message = word;
    onRecord(rec);
    from = parsed.end;
    m = next; // a next message is read only if it, too, starts where a message may start
  }
  return { messages, bad: null };
}

/**
 * Metric records of one slime log, in file order, with parse counts and the malformed lines.
 * @example parseSlimeLogWithStats(text, { runId: "abc123", file: "round0.log" }).stats.records
 */
export function parseSlimeLogWithStats(
  text: string,
  opts: ParseSlimeLogOptions,
): { records: LocalLogRecord[]; stats: SlimeLogStats; malformed: MalformedLine[] } {
  if (typeof opts?.runId !== "string" || opts.runId === "") throw new Error(`invalid runId: ${opts?.runId}`);
  const file = opts.file ?? "<text>";
  const reporter = opts.reporter;
  const lines = text.split("\n");
  if (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
  const records: LocalLogRecord[] = [];
  const malformed: MalformedLine[] = [];
  const stats: SlimeLogStats = { lines: lines.length, metricLines: 0, records: 0, malformed: 0, nonNumeric: 0 };
  const push = (rec: LocalLogRecord) => {
    records.push(rec);
    if (rec.skipped) stats.nonNumeric += rec.skipped.length;
  };

  for (let li = 0; li < lines.length; li++) {
    let line = lines[li];
    if (!line.includes(": {")) continue; // cheap filter: every metric message has it
    if (line.includes("\x1b")) line = line.replace(ANSI, "");
    if (line.endsWith("\r")) line = line.slice(0, -1);
    const lineNo = li + 1;
    const { messages, bad } = readLine(line, lineNo, push);
    stats.metricLines += messages;
    if (bad === null) continue;
    stats.malformed++;
    malformed.push({ file, line: lineNo, message: bad.message, reason: bad.reason });
    if (malformed.length <= MAX_WARNINGS) {
      reporter?.warn?.(`${file}:${lineNo}: run ${opts.runId}: metric line "${bad.message}: {..." not parsed: ${bad.reason}`);
    }
  }
  stats.records = records.length;
  if (stats.malformed > MAX_WARNINGS) {
    reporter?.warn?.(`${file}: run ${opts.runId}: ${stats.malformed - MAX_WARNINGS} more malformed metric line(s) not shown`);
  }
  reporter?.info?.(
    `${file}: run ${opts.runId}: ${stats.records} metric record(s) from ${stats.lines} line(s)` +
      (stats.malformed ? `, ${stats.malformed} malformed metric line(s) skipped` : "") +
      (stats.nonNumeric ? `, ${stats.nonNumeric} non-numeric value(s) skipped` : ""),
  );
  return { records, stats, malformed };
}

/**
 * Metric records of one slime log, in file order (see {@link parseSlimeLogWithStats} for counts).
 * @example parseSlimeLog(fs.readFileSync("round0.log", "utf8"), { runId: "abc123", file: "round0.log" })
 */
export function parseSlimeLog(text: string, opts: ParseSlimeLogOptions): LocalLogRecord[] {
  return parseSlimeLogWithStats(text, opts).records;
}

function kindOf(message: LocalLogMessage, id: number, values: Record<string, number>): LocalLogKind {
  switch (message) {
    case "perf": {
      // slime prints the dict before adding rollout/step; add it back to classify like the W&B row.
      return classifyRow({ ...values, "rollout/step": id }) === "trainer-perf" ? "trainer-perf" : "rollout-manager-perf";
    }
    case "rollout":
    case "multi_turn":
    case "passrate":
    case "no filter rollout log":
      return "rollout";
    case "step":
      return "step";
    case "critic-step":
      return "critic-step";
    default:
      return "eval";
  }
}
