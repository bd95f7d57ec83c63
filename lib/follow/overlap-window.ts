/**
 * The overlap window of a followed server run: each poll reads the last K frozen rows again and
 * compares them, line for line, with what the archive froze. A difference is a rewrite of logged
 * history (a rewind, a resume in place that logged the same steps again, a deletion): the run then
 * starts a new lineage instead of having the new rows mixed into the old ones.
 */
import { promises as fsp } from "node:fs";

import type { RunMeta } from "../types";
import { frozenRowSerializer } from "../values/frozen-row";
import type { WandbConnection } from "../wandb/connection";
import { scanHistory } from "../wandb/scan-history";
import { WandbError } from "../wandb/wandb-error";

/** Rows of the overlap window by default (`--overlap`). */
export const DEFAULT_OVERLAP_ROWS = 100;

/** The last frozen rows of a run: their frozen lines and steps, oldest first. */
export interface FrozenTail {
  lines: string[];
  steps: number[];
}

/** The last `k` of `kept` then `lines`. */
export function lastLines(kept: readonly string[], lines: readonly string[], k: number): string[] {
  if (lines.length >= k) return lines.slice(lines.length - k);
  const all = kept.concat(lines);
  return all.slice(Math.max(0, all.length - k));
}

/** A tail from its lines. */
export function tailOf(lines: string[]): FrozenTail {
  return { lines, steps: lines.map(stepOfLine) };
}

/** `_step` of a frozen line (its "_step" key; frozen lines hold it as a plain integer). */
export function stepOfLine(line: string): number {
  const m = /"_step":(-?\d+)[,}]/.exec(line);
  if (!m) throw new Error(`frozen line without an integer _step: ${line.slice(0, 80)}`);
  return Number(m[1]);
}

/** The last `k` lines of a frozen file (read from its end, more of it only when the lines are long). */
export async function readFileTail(file: string, k: number): Promise<FrozenTail> {
  if (k === 0) return { lines: [], steps: [] };
  const handle = await fsp.open(file, "r");
  try {
    const size = (await handle.stat()).size;
    for (let want = 1 << 16; ; want *= 4) {
      const start = Math.max(0, size - want);
      const buf = Buffer.alloc(size - start);
      await handle.read(buf, 0, buf.length, start);
      const lines = buf.toString("utf8").split("\n");
      lines.pop(); // after the last newline
      if (start > 0) lines.shift(); // maybe cut
      if (lines.length >= k || start === 0) {
        const kept = lines.slice(Math.max(0, lines.length - k));
        return { lines: kept, steps: kept.map(stepOfLine) };
      }
    }
  } finally {
    await handle.close();
  }
}

/**
 * Reads the run's steps from the window's first step to the last frozen one again and compares them
 * with the frozen tail; returns why they differ (a rewrite), or null when they are the same rows.
 * Network and server failures are thrown as they are (a failed poll, not a rewrite).
 */
export async function checkOverlap(
  conn: WandbConnection,
  meta: RunMeta,
  tail: FrozenTail,
  lastFrozenStep: number,
  pageSize: number,
  signal?: AbortSignal,
): Promise<string | null> {
  if (tail.lines.length === 0) return null;
  const from = tail.steps[0];
  const window = `the last ${tail.lines.length} frozen rows (steps ${from}..${lastFrozenStep})`;
  const serialize = frozenRowSerializer();
  const got: string[] = [];
  try {
    await scanHistory(
      conn,
      { ...meta, lastStep: lastFrozenStep },
      {
        pageSize,
        signal,
        fromStep: from,
        expectedRows: tail.lines.length,
        onRows: (rows) => {
          for (const row of rows) got.push(serialize(row));
        },
      },
    );
  } catch (e) {
    if (!(e instanceof WandbError) || e.operation !== "completeness") throw e;
    return `${window} are no longer ${tail.lines.length} rows on the server`;
  }
  for (let i = 0; i < tail.lines.length; i++) {
    if (got[i] !== tail.lines[i])
      return `${window}: step ${tail.steps[i]} was frozen as ${tail.lines[i].slice(0, 80)}, the server now holds ${(got[i] ?? "no row").slice(0, 80)}`;
  }
  return null;
}
