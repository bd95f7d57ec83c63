/**
 * The `history` tool: a run's frozen rows exactly as its history file holds them (row i is line i + 1;
 * NaN and ±Infinity as the file writes them), never sampled: over a `_step` range, for chosen keys,
 * in pages a cursor continues. Each page cites the file, its sha256 and the lines it covers.
 */
import { type RowReader, rowReader } from "../align/row-reader";
import type { ManifestRun, RunHistory } from "../types";
import { type JsonCell, jsonCell } from "./json-cell";
import type { ArchiveSet, ServedArchive } from "./served-archive";

/** Rows per page unless asked. */
export const HISTORY_PAGE_DEFAULT = 1000;
/** Rows per page at most. */
export const HISTORY_PAGE_MAX = 10_000;
/**
 * A page also ends once its rows' JSON reaches this many characters (the cursor continues): MCP
 * clients buffer a message whole, the official SDK's at most 10 MiB by default.
 */
export const HISTORY_PAGE_CHARS = 8 * 2 ** 20;

/** Input of the `history` tool. */
export interface HistoryInput {
  archive?: string;
  run?: string;
  /** Keys to return (with `_step` always); rows holding none of them are left out. Default: every key of every row. */
  keys?: string[];
  /** Inclusive `_step` bounds (default: the whole run). */
  fromStep?: number;
  toStep?: number;
  /** Rows per page, 1..10,000 (default 1,000). */
  limit?: number;
  /** The `nextCursor` of the previous page: it carries run, keys and range, which need not be given again. */
  cursor?: string;
}

/** One frozen row: its line in the history file and its values (the chosen keys, in the file's order). */
export interface HistoryRowEntry {
  line: number;
  values: Record<string, JsonCell>;
}

/** The `history` answer: one page. */
export interface HistoryAnswer {
  archive: string;
  manifestSha256: string;
  run: string;
  round: string;
  /** The frozen file, its sha256 (as the manifest lists it) and its lines in all. */
  file: string;
  fileSha256: string;
  fileLines: number;
  keys: string[] | null;
  fromStep: number | null;
  toStep: number | null;
  /** First and last line of the rows on this page (1-based, inclusive). */
  lines: { first: number; last: number };
  rows: HistoryRowEntry[];
  /** Continues after this page; null on the last page of the range. */
  nextCursor: string | null;
}

/** What a cursor carries: the query and where the next page starts. */
interface CursorState {
  m: string;
  run: string;
  keys: string[] | null;
  from: number | null;
  to: number | null;
  at: number;
}

function encodeCursor(c: CursorState): string {
  return Buffer.from(JSON.stringify(c), "utf8").toString("base64url");
}

/** The cursor's state; refused when it is not one of this archive's cursors. */
function decodeCursor(a: ServedArchive, cursor: string): CursorState {
  let c: CursorState;
  try {
    c = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as CursorState;
  } catch {
    throw a.refuse("invalid_cursor", `invalid cursor: ${JSON.stringify(cursor.slice(0, 40))} is not a cursor of this server`);
  }
  if (typeof c?.at !== "number" || typeof c.run !== "string") throw a.refuse("invalid_cursor", "invalid cursor: not a cursor of this server");
  // A cursor names the manifest it paged: the archive it would continue may not be the one open now.
  if (c.m !== a.manifestSha256) throw a.refuse("invalid_cursor", `invalid cursor: it pages the archive of manifest ${c.m}, not this one (${a.manifestSha256})`);
  return c;
}

/** The run's frozen rows, its manifest entry and a reader (kept per run on the archive). */
function runOf(a: ServedArchive, runId: string | undefined): { run: RunHistory; entry: ManifestRun; reader: RowReader } {
  const { archive } = a.opened;
  const ids = archive.runs.map((r) => r.runId);
  if (runId === undefined) {
    if (ids.length !== 1) throw a.refuse("unknown_run", `name a run (argument run): the archive has ${ids.join(", ")}`);
    runId = ids[0];
  }
  const i = ids.indexOf(runId);
  if (i < 0) throw a.refuse("unknown_run", `no run ${runId}: the archive has ${ids.join(", ")}`);
  return { run: archive.runs[i], entry: archive.manifest.runs[i], reader: a.reader(runId, () => rowReader(archive.runs[i])) };
}

/** Refuses keys the run never logged, naming them. */
function checkKeys(a: ServedArchive, runId: string, reader: RowReader, keys: readonly string[] | null): void {
  if (keys === null) return;
  const logged = a.keysOf(runId, reader);
  const unknown = keys.filter((k) => !logged.has(k));
  if (unknown.length > 0)
    throw a.refuse("unknown_key", `run ${runId} never logged ${unknown.join(", ")} (it logs ${logged.size} keys; the runs tool names its file)`);
}

/** Whether row i is on the page's query: in the step range, and holding a chosen key. */
function matches(reader: RowReader, i: number, q: CursorState): boolean {
  const step = reader.value(i, "_step")!;
  if ((q.from !== null && step < q.from) || (q.to !== null && step > q.to)) return false;
  return q.keys === null || q.keys.some((k) => reader.value(i, k) !== undefined);
}

/** Row i with the chosen keys (all keys when none was chosen), in the file's key order. */
function rowEntry(reader: RowReader, i: number, keys: ReadonlySet<string> | null, out: number[]): HistoryRowEntry {
  const names = reader.read(i, out);
  const values: Record<string, JsonCell> = {};
  for (let j = 0; j < names.length; j++) if (keys === null || keys.has(names[j]) || names[j] === "_step") values[names[j]] = jsonCell(out[j]);
  return { line: i + 1, values };
}

/** First row index whose `_step` is at least `step` in rows of increasing `_step` (binary search). */
function firstAtLeast(reader: RowReader, step: number): number {
  let lo = 0;
  let hi = reader.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (reader.value(mid, "_step")! < step) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The rows a query's step range can hold: found by binary search when the run's `_step` only increases
 * (the loader checks it does, except where a later log of a run resumed in place goes back), else all.
 */
function stepRange(reader: RowReader, entry: ManifestRun, q: CursorState): { start: number; end: number } {
  if ((entry.resumedIn?.length ?? 0) > 0) return { start: q.at, end: reader.length };
  const start = q.from === null ? 0 : firstAtLeast(reader, q.from);
  const end = q.to === null ? reader.length : firstAtLeast(reader, q.to + 1);
  return { start: Math.max(start, q.at), end };
}

/** Up to `limit` matching rows from `range.start` (and 8 MiB of JSON), and where the next page starts (`end`: none). */
function pageRows(
  reader: RowReader,
  q: CursorState,
  limit: number,
  range: { start: number; end: number },
): { rows: HistoryRowEntry[]; next: number; end: number } {
  const keySet = q.keys === null ? null : new Set(q.keys);
  const rows: HistoryRowEntry[] = [];
  const out: number[] = [];
  let i = range.start;
  let chars = 0;
  for (; i < range.end && rows.length < limit && chars < HISTORY_PAGE_CHARS; i++) {
    if (!matches(reader, i, q)) continue;
    const row = rowEntry(reader, i, keySet, out);
    rows.push(row);
    // Measured, not estimated: a page must stay under the clients' buffer whatever its keys.
    chars += JSON.stringify(row.values).length + 20;
  }
  // The next page starts at the next matching row; none: this page is the last.
  while (i < range.end && !matches(reader, i, q)) i++;
  return { rows, next: i, end: range.end };
}

/** The `history` answer: one page of at most `limit` rows. */
export function historyAnswer(set: ArchiveSet, input: HistoryInput): HistoryAnswer {
  const a = set.get(input.archive);
  const limit = input.limit ?? HISTORY_PAGE_DEFAULT;
  if (!Number.isInteger(limit) || limit < 1 || limit > HISTORY_PAGE_MAX) throw a.refuse("invalid_argument", `invalid limit: ${limit} (1..${HISTORY_PAGE_MAX})`);
  const q: CursorState =
    input.cursor !== undefined
      ? decodeCursor(a, input.cursor)
      : { m: a.manifestSha256, run: input.run ?? "", keys: input.keys ?? null, from: input.fromStep ?? null, to: input.toStep ?? null, at: 0 };
  const { run, entry, reader } = runOf(a, input.cursor !== undefined ? q.run : input.run);
  q.run = run.runId;
  checkKeys(a, run.runId, reader, q.keys);
  const { rows, next, end } = pageRows(reader, q, limit, stepRange(reader, entry, q));
  if (rows.length === 0)
    throw a.refuse(
      "nothing_in_range",
      `run ${run.runId} has no row${q.keys ? ` holding ${q.keys.join(", ")}` : ""} with _step in [${q.from ?? "start"}, ${q.to ?? "end"}] after line ${q.at} (its last step is ${entry.lastStep})`,
    );
  return {
    archive: a.name,
    manifestSha256: a.manifestSha256,
    run: run.runId,
    round: run.round,
    file: entry.file,
    fileSha256: entry.sha256,
    fileLines: reader.length,
    keys: q.keys,
    fromStep: q.from,
    toStep: q.to,
    lines: { first: rows[0].line, last: rows[rows.length - 1].line },
    rows,
    nextCursor: next < end ? encodeCursor({ ...q, at: next }) : null,
  };
}
