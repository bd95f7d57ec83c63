/**
 * The one parser of a frozen history file's lines, for a whole file (load-archive.ts, its load
 * worker) and for the bytes a followed archive appended past an offset (lib/follow/live-archive.ts):
 * every line a JSON object of numbers with an integer `_step` that increases, except once per later
 * log of a run resumed in place or per restart found in its TensorBoard files; a line longer than MAX_LINE_CHARS is corruption. A problem is
 * returned as text (`line N key "k": ...`), for the caller to name the file and decide when to throw.
 */
import { StringDecoder } from "node:string_decoder";

import type { HistoryRow, ManifestRun } from "../types";
import { FrozenRowError, parseFrozenRow, parseFrozenRowWith } from "../values/frozen-row";
import type { ValuesBuilder } from "../values/values-builder";
import { allowedGoBacks } from "./manifest";

/** A line longer than this is corruption, not a history row. */
export const MAX_LINE_CHARS = 64 << 20;

/** Bytes a whole history file is read by at a time (both readers of load-archive.ts and frozen-reader.ts). */
export const READ_CHUNK_BYTES = 16 << 20;

/**
 * Bytes decoded into one string at a time: a string this small is made in the young generation, whose
 * pages are reused, while a 16 MB read chunk's text took fresh pages from the system every time
 * (twice: decoded, then joined to the carried line), over a million page faults at 10^6 updates.
 */
const DECODE_BYTES = 64 << 10;

/** Where the rows parsed go: an array, or a collector that keeps no row object (load-worker.ts). */
export interface RowSink {
  push(row: HistoryRow): unknown;
  readonly length: number;
}

/** Where parsing resumes: lines already read, the last `_step` and the go-backs so far (a fresh file: 0, -Infinity, 0). */
export interface LinePosition {
  lineNo: number;
  lastStep: number;
  goBacks: number;
}

/** The start of a file. */
export const FILE_START: LinePosition = { lineNo: 0, lastStep: -Infinity, goBacks: 0 };

/** What a refused `_step` that goes back adds for a run of several logs or restarts: how many go-backs they allow. */
function goBacksNote(run: ManifestRun, goBacks: number): string {
  const allowed = allowedGoBacks(run);
  if (allowed === 0) return "";
  const what = run.source?.kind === "tensorboard" ? "restart(s) found in its event files" : "later log(s)";
  return ` (run ${run.runId}: its ${allowed} ${what} may each go back once, ${goBacks} already did)`;
}

/**
 * The `_step` order of one run's history lines: every `_step` an integer that increases, except once
 * per later log of a run resumed in place or per restart found in its TensorBoard files. Shared by
 * the line parser below and the WebAssembly reader (frozen-reader.ts), so both accept the same files.
 */
export class StepOrder {
  constructor(
    private readonly run: ManifestRun,
    private readonly pos: LinePosition,
  ) {}

  /** Takes the next line's `_step`: the problem (naming the line), or null. */
  take(step: unknown): string | null {
    const lineNo = ++this.pos.lineNo;
    if (typeof step !== "number" || !Number.isInteger(step)) return `line ${lineNo} key "_step": missing or not an integer`;
    if (step <= this.pos.lastStep) {
      // A later log of a run resumed in place, kept at the steps its framework logged, starts back at its
      // checkpoint's step; so do the re-logged steps of a TensorBoard restart.
      const previous = this.pos.lastStep;
      if (this.pos.goBacks >= allowedGoBacks(this.run))
        return `line ${lineNo}: _step ${step} does not increase (previous ${previous})${goBacksNote(this.run, this.pos.goBacks)}`;
      this.pos.goBacks++;
    }
    this.pos.lastStep = step;
    return null;
  }
}

/**
 * Lines of one run's history file from `from` on, parsed into `rows` (plain rows, or compact views
 * made by `vb`). `write` takes the file's bytes in order, `end` closes it; each returns the first
 * problem (then nothing more is parsed) or null.
 */
export class HistoryLineParser {
  private readonly decoder = new StringDecoder("utf8");
  private carry = "";
  private readonly pos: LinePosition;
  private readonly steps: StepOrder;
  private problem: string | null = null;

  constructor(
    run: ManifestRun,
    private readonly rows: RowSink,
    private readonly vb: ValuesBuilder | null,
    from: LinePosition = FILE_START,
  ) {
    this.pos = { ...from };
    this.steps = new StepOrder(run, this.pos);
  }

  /** Where the parse stands (to resume from after the bytes given so far). */
  position(): LinePosition {
    return { ...this.pos };
  }

  /** Parses the whole lines `bytes` complete; the problem, or null. */
  write(bytes: Buffer): string | null {
    for (let at = 0; at < bytes.length && this.problem === null; at += DECODE_BYTES) this.writePiece(bytes.subarray(at, at + DECODE_BYTES));
    return this.problem;
  }

  /** write() of at most DECODE_BYTES. */
  private writePiece(bytes: Buffer): string | null {
    if (this.problem !== null) return this.problem;
    const lines = (this.carry + this.decoder.write(bytes)).split("\n");
    this.carry = lines.pop()!;
    for (const line of lines) {
      this.problem = this.parseLine(line);
      if (this.problem !== null) return this.problem;
    }
    if (this.carry.length > MAX_LINE_CHARS) this.problem = `line ${this.pos.lineNo + 1}: longer than ${MAX_LINE_CHARS} characters`;
    return this.problem;
  }

  /** The end of the bytes: the problem, or null (a file must end with a newline). */
  end(): string | null {
    if (this.problem !== null) return this.problem;
    this.carry += this.decoder.end();
    if (this.carry.length > 0) this.problem = `line ${this.pos.lineNo + 1}: truncated (the file does not end with a newline)`;
    return this.problem;
  }

  private parseLine(line: string): string | null {
    let row: HistoryRow;
    try {
      row = this.vb === null ? parseFrozenRow(line) : parseFrozenRowWith(line, this.vb);
    } catch (e) {
      const key = e instanceof FrozenRowError && e.key !== null ? ` key ${JSON.stringify(e.key)}` : "";
      return `line ${++this.pos.lineNo}${key}: ${(e as Error).message}`;
    }
    const problem = this.steps.take(row._step);
    if (problem === null) this.rows.push(row);
    return problem;
  }
}
