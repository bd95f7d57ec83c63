/**
 * How many frozen rows of a run hold each key the profile maps to a concept, and how many of those a
 * later logging superseded. Two guards read it: superseding that takes more than it keeps is an
 * issue (lib/align/superseding-guard.ts), and an export refuses a concept cell left empty while live
 * rows hold its key (lib/export/filled-cells.ts). Counted per key list (shape), so a 10^6-row run
 * costs one look-up per row. Internal to lib/align and lib/export.
 */
import type { KeyRows, RunHistory } from "../types";
import type { RowReader } from "./row-reader";

/** A row marked live in `by` (the aligners' LIVE). */
const LIVE = -1;

/**
 * Counts, for one run, the rows holding each of `keys` (`rows`) and those superseded (`by[i] !==
 * -1`). Keys no row holds are left out.
 * @example keyRowsOf(run, rowReader(run), by, ["train/entropy"]) // [{ key: "train/entropy", rows: 48, superseded: 0, ... }]
 */
export function keyRowsOf(run: Pick<RunHistory, "runId" | "round">, reader: RowReader, by: ArrayLike<number>, keys: readonly string[]): KeyRows[] {
  const rows = new Float64Array(keys.length);
  const gone = new Float64Array(keys.length);
  // Per shape: indexes into `keys` of the keys the shape holds (plain rows: worked out per row).
  const held: (number[] | undefined)[] = [];
  const wanted = new Map(keys.map((k, j) => [k, j]));
  const heldOf = (names: readonly string[]) => names.flatMap((k) => (wanted.has(k) ? [wanted.get(k)!] : []));
  for (let i = 0; i < reader.length; i++) {
    const s = reader.shape(i);
    let js = s >= 0 ? held[s] : undefined;
    if (js === undefined) {
      js = heldOf(reader.keys(i));
      if (s >= 0) held[s] = js;
    }
    if (js.length === 0) continue;
    const superseded = by[i] !== LIVE;
    for (const j of js) {
      rows[j]++;
      if (superseded) gone[j]++;
    }
  }
  const out: KeyRows[] = [];
  keys.forEach((key, j) => {
    if (rows[j] > 0) out.push({ runId: run.runId, round: run.round, key, rows: rows[j], superseded: gone[j] });
  });
  return out;
}
