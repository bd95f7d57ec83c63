/**
 * Reads one run's rows by index, from row objects (views or plain) or straight from packed rows
 * (lib/values/packed-run.ts) without a view per row. Rows whose keys are one shared list (views,
 * packed rows) report a shape id, so per-key-list facts (row kind, key flags) are worked out once per
 * list instead of once per row. Internal to lib/align.
 */
import type { HistoryRow, RunHistory } from "../types";
import { isView, keysOf, type PackedViews, readValues, viewClass, type ViewClass, viewPlace, type ViewPlace } from "../values/compact-values";
import { packedRowsOf } from "../values/packed-run";

/** Index access to one run's rows. */
export interface RowReader {
  readonly length: number;
  /**
   * Id of row i's key list: rows with one id have the same keys in the same order (ids are small,
   * dense, from 0); -1 for a plain row (its own key list).
   */
  shape(i: number): number;
  /** Keys of row i in order, and its values into `out` (reused by the caller) in the same order. */
  read(i: number, out: number[]): readonly string[];
  /** Keys of row i in order. */
  keys(i: number): readonly string[];
  /** Value of one key of row i; undefined when the row lacks it. */
  value(i: number, key: string): number | undefined;
  /** Row i as an object (a fresh view for packed rows): for rare paths and messages. */
  row(i: number): HistoryRow;
  /** Where row i's values are (its store, offset and keys) into `into`; false for a plain row. */
  place(i: number, into: ViewPlace): boolean;
}

/** A reader of no rows: what a scan keeps once its run's rows are released (lets their values be freed). */
export function noRows(): RowReader {
  return new ArrayReader([]);
}

/** The reader of a run's rows: packed when they still are, else its row objects. */
export function rowReader(run: RunHistory): RowReader {
  const packed = packedRowsOf(run);
  return packed !== null ? new PackedReader(packed) : new ArrayReader(run.rows);
}

class ArrayReader implements RowReader {
  private readonly ids = new Map<readonly string[], number>();
  constructor(private readonly rows: HistoryRow[]) {}
  get length(): number {
    return this.rows.length;
  }
  shape(i: number): number {
    const row = this.rows[i];
    if (!isView(row)) return -1;
    const keys = keysOf(row);
    let id = this.ids.get(keys);
    if (id === undefined) {
      id = this.ids.size;
      this.ids.set(keys, id);
    }
    return id;
  }
  read(i: number, out: number[]): readonly string[] {
    return readValues(this.rows[i], out);
  }
  keys(i: number): readonly string[] {
    return keysOf(this.rows[i]);
  }
  value(i: number, key: string): number | undefined {
    return this.rows[i][key];
  }
  row(i: number): HistoryRow {
    return this.rows[i];
  }
  place(i: number, into: ViewPlace): boolean {
    return viewPlace(this.rows[i], into);
  }
}

class PackedReader implements RowReader {
  private readonly stores: Float64Array[];
  /** Per shape: key -> index in the key list (made when first asked). */
  private readonly index: (Map<string, number> | undefined)[];
  private readonly classes: (ViewClass | undefined)[] = [];
  constructor(private readonly p: PackedViews) {
    this.stores = p.chunks.map((b) => new Float64Array(b));
    this.index = new Array(p.shapes.length).fill(undefined);
  }
  get length(): number {
    return this.p.at.length;
  }
  shape(i: number): number {
    return this.p.shape[i];
  }
  read(i: number, out: number[]): readonly string[] {
    const p = this.p;
    const keys = p.shapes[p.shape[i]];
    const store = this.stores[p.chunk[i]];
    const at = p.at[i];
    for (let j = 0; j < keys.length; j++) out[j] = store[at + j];
    return keys;
  }
  keys(i: number): readonly string[] {
    return this.p.shapes[this.p.shape[i]];
  }
  value(i: number, key: string): number | undefined {
    const p = this.p;
    const s = p.shape[i];
    let index = this.index[s];
    if (index === undefined) this.index[s] = index = new Map(p.shapes[s].map((k, j) => [k, j]));
    const j = index.get(key);
    return j === undefined ? undefined : this.stores[p.chunk[i]][p.at[i] + j];
  }
  row(i: number): HistoryRow {
    const p = this.p;
    const s = p.shape[i];
    let View = this.classes[s];
    if (View === undefined) this.classes[s] = View = viewClass(p.shapes[s]);
    return new View(this.stores[p.chunk[i]], p.at[i]);
  }
  place(i: number, into: ViewPlace): boolean {
    const p = this.p;
    into.store = this.stores[p.chunk[i]];
    into.at = p.at[i];
    into.keys = p.shapes[p.shape[i]];
    return true;
  }
}
