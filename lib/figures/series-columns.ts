/**
 * The columns a series figure draws from, built in one pass over the records without an object or a
 * boxed number per point: x and y as Float64Arrays, a gap (nothing drawn: not logged, NaN, ±Inf) as
 * NaN. A kernel already holds the aligned runs; at 10^6 updates the per-point arrays and objects a
 * figure used to build (~100 MB a figure) lived until the next full GC and raised its peak.
 */

/** Records in `compare` order: the array itself when it is already in that order (aligned runs are), else a sorted copy. */
export function inOrder<T>(records: readonly T[], compare: (a: T, b: T) => number): readonly T[] {
  // A stable sort of an ordered array returns it unchanged, so skipping the copy changes nothing.
  for (let i = 1; i < records.length; i++) if (compare(records[i - 1], records[i]) > 0) return records.slice().sort(compare);
  return records;
}

/** A number per record, e.g. the display update number as x. */
export function numberColumn<T>(records: readonly T[], of: (record: T) => number): Float64Array {
  const out = new Float64Array(records.length);
  for (let i = 0; i < records.length; i++) out[i] = of(records[i]);
  return out;
}

/** One key's values over records, NaN where nothing is drawn, with the counts a figure's meta reports. */
export interface ValueColumn {
  y: Float64Array;
  /** Records without the key (not logged). */
  missing: number;
  /** Records whose value is NaN or ±Infinity. */
  nonFinite: number;
}

/**
 * `y[i]` = `records[i].values[key]` when finite, else NaN (a gap, as `plotValue` gives null).
 * @example valueColumn([{ values: { a: 1 } }, { values: {} }], "a") // { y: [1, NaN], missing: 1, nonFinite: 0 }
 */
export function valueColumn(records: readonly { values: Record<string, number> }[], key: string): ValueColumn {
  const y = new Float64Array(records.length);
  let missing = 0;
  let nonFinite = 0;
  for (let i = 0; i < records.length; i++) {
    const v = records[i].values[key];
    if (v === undefined) missing++;
    else if (!Number.isFinite(v)) nonFinite++;
    y[i] = v !== undefined && Number.isFinite(v) ? v : NaN;
  }
  return { y, missing, nonFinite };
}

/** The column's values at `indices` (all when null) as plotly takes them: plain numbers, null for a gap (NaN). */
export function drawnValues(column: Float64Array, indices: readonly number[] | null): (number | null)[] {
  const at = (v: number): number | null => (Number.isNaN(v) ? null : v);
  if (indices === null) return Array.from(column, at);
  return indices.map((i) => at(column[i]));
}
