/**
 * One key over many records, read into typed arrays: the allocation-light way to scan 10^7 records.
 * `values[key]` on a compact view is a getter call through a megamorphic property load, and mapping
 * records to a JS array of numbers makes one boxed double per record that the collector walks again
 * and again; a column is two typed arrays outside the JS heap, filled straight from the views' stores.
 *
 * A column keeps absent apart from NaN: `found[i]` is 0 when record i has none of the keys, else
 * 1 + the position in the key list of the key read (the key, then its older names in order, as
 * `valueOfKeys` reads them). `values[i]` is the number read (NaN, ±Infinity and -0 as
 * logged), NaN where absent: a median of the finite values needs no look at `found`.
 */
import { type Values, type ViewPlace, viewPlace } from "./compact-values";

/** One key (or a key and its older names) over records: see the file comment. */
export interface KeyColumn {
  values: Float64Array;
  /** 0 = absent; k + 1 = read under keys[k]. */
  found: Uint8Array;
}

/** Anything that carries values (update, rollout, eval records). */
interface HasValues {
  values: Values;
}

/**
 * A fact per key sequence, made once per sequence and cached by its identity: views of one class share
 * one frozen key array, so a scan over 10^7 records makes the fact once per class, and the previous
 * record's sequence is tried before the Map (records of one kind come in runs).
 */
export class BySequence<T> {
  private last: readonly string[] | null = null;
  private lastValue: T | undefined;
  private readonly made = new Map<readonly string[], T>();

  /** `make` runs once per distinct sequence (not per record: a closure made per record would allocate). */
  constructor(private readonly make: (sequence: readonly string[]) => T) {}

  of(sequence: readonly string[]): T {
    if (sequence === this.last) return this.lastValue as T;
    let value = this.made.get(sequence);
    if (value === undefined) {
      value = this.make(sequence);
      this.made.set(sequence, value);
    }
    this.last = sequence;
    this.lastValue = value;
    return value;
  }
}

/**
 * Where each key list reads in a view's key sequence: per list, the index of its first present key
 * (-1: none) and which key that is (1 + its position in the list, 0 for none).
 */
interface SequenceReads {
  at: Int32Array;
  which: Uint8Array;
}

/** {@link SequenceReads} per key sequence, for `lists`. */
function sequenceReads(lists: readonly (readonly string[])[]): BySequence<SequenceReads> {
  return new BySequence((sequence) => readsIn(lists, sequence));
}

/** Where each list reads in `sequence`. */
function readsIn(lists: readonly (readonly string[])[], sequence: readonly string[]): SequenceReads {
  const at = new Int32Array(lists.length).fill(-1);
  const which = new Uint8Array(lists.length);
  for (let c = 0; c < lists.length; c++) {
    const k = lists[c].findIndex((key) => sequence.includes(key));
    if (k < 0) continue;
    at[c] = sequence.indexOf(lists[c][k]);
    which[c] = k + 1;
  }
  return { at, which };
}

/**
 * viewPlace as a local: an imported function compiled to CommonJS (tsx) is read through a getter on
 * each call, a few percent of a scan over 10^7 records when called per record.
 */
export function localViewPlace(): typeof viewPlace {
  return viewPlace;
}

/** One key, or a key then its older names (the first present wins). */
export type KeyList = string | readonly string[];

/**
 * Reads `keys` of `records[from..to)` into a column at 0..to-from; `into` is reused when long enough.
 * @example keyColumn([{ values: { a: 1 } }, { values: {} }], "a") // values [1, NaN], found [1, 0]
 */
export function keyColumn(records: readonly HasValues[], keys: KeyList, from = 0, to = records.length, into?: KeyColumn): KeyColumn {
  return keyColumns(records, [keys], from, to, into && [into])[0];
}

/**
 * Reads several key lists of `records[from..to)` in one pass (one look at each record, where the
 * time of a scan goes: the records are scattered on the heap), a column per list; `into` columns are
 * reused when long enough.
 */
export function keyColumns(records: readonly HasValues[], lists: readonly KeyList[], from = 0, to = records.length, into?: readonly KeyColumn[]): KeyColumn[] {
  const n = to - from;
  const keys = keyLists(lists);
  const out = keys.map((_, c) => {
    const reuse = into?.[c];
    return reuse !== undefined && reuse.values.length >= n ? reuse : { values: new Float64Array(n), found: new Uint8Array(n) };
  });
  readInto({ records, keys, reads: sequenceReads(keys), from, to, out });
  return out;
}

/**
 * Where each record's numbers are: its arena chunk, offset and key sequence (-1: a plain object), in
 * typed arrays. A scan through them reads no record and no view: a view's fields are megamorphic loads
 * (one prototype per key sequence; rollout records have a dozen), a third of a scan's time.
 */
interface Places {
  stores: Float64Array[];
  storeOf: Int32Array;
  at: Int32Array;
  sequences: (readonly string[])[];
  sequenceOf: Int32Array;
}

/** The places of every record of `records` (one look at each). */
function placesIn(records: readonly HasValues[]): Places {
  const n = records.length;
  const out: Places = { stores: [], storeOf: new Int32Array(n), at: new Int32Array(n), sequences: [], sequenceOf: new Int32Array(n) };
  const storeIndex = new Map<Float64Array, number>();
  const sequenceIndex = new Map<readonly string[], number>();
  const place: ViewPlace = { store: new Float64Array(0), at: 0, keys: [] };
  const isView = localViewPlace();
  for (let i = 0; i < n; i++) {
    if (!isView(records[i].values, place)) {
      out.sequenceOf[i] = -1;
      continue;
    }
    out.storeOf[i] = indexIn(storeIndex, out.stores, place.store);
    out.at[i] = place.at;
    out.sequenceOf[i] = indexIn(sequenceIndex, out.sequences, place.keys);
  }
  return out;
}

/** The index of `x` in `list`, added when new. */
function indexIn<T>(index: Map<T, number>, list: T[], x: T): number {
  let k = index.get(x);
  if (k === undefined) {
    k = list.push(x) - 1;
    index.set(x, k);
  }
  return k;
}

/**
 * The records arrays scanned many times while a scope is open (runHealthChecks: two dozen scans of
 * the same updates and rollouts), with their places made on the first scan and dropped when the
 * scope closes. Only arrays named by the scope: they are not changed inside it (an array a caller
 * made and then sorted would be read wrongly through places made before).
 */
class ScanScopes {
  private readonly places = new Map<readonly HasValues[], Places | null>();
  private depth = 0;

  within<T>(arrays: readonly (readonly HasValues[])[], run: () => T): T {
    const added = arrays.filter((a) => !this.places.has(a));
    for (const a of added) this.places.set(a, null);
    this.depth++;
    try {
      return run();
    } finally {
      this.depth--;
      for (const a of added) this.places.delete(a);
    }
  }

  /** The places of `records` when a scope names it (made now on its first scan), else null. */
  placesOf(records: readonly HasValues[]): Places | null {
    if (this.depth === 0 || !this.places.has(records)) return null;
    let p = this.places.get(records)!;
    if (p === null || p.at.length !== records.length) {
      p = placesIn(records);
      this.places.set(records, p);
    }
    return p;
  }
}

const scopes = new ScanScopes();

/**
 * Runs `run` with the records `arrays` scanned through an index of where their values are (made on
 * the first scan, dropped after): for many scans of the same records, which `run` must not change.
 * Same columns as without it.
 */
export function withScanIndex<T>(arrays: readonly (readonly HasValues[])[], run: () => T): T {
  return scopes.within(arrays, run);
}

/** One scan: `records[from..to)` read into `out` at 0..to-from, a column per list in `keys`, where `reads` says. */
interface Scan {
  records: readonly HasValues[];
  keys: readonly (readonly string[])[];
  reads: BySequence<SequenceReads>;
  from: number;
  to: number;
  out: readonly KeyColumn[];
}

/** Runs a scan, through the records' places when a scope indexes them. */
function readInto(scan: Scan): void {
  const { records, keys, reads, from, to, out } = scan;
  if (out.length === 0) return;
  const places = scopes.placesOf(records);
  if (places !== null) {
    readPlaced(scan, places);
    return;
  }
  const values = out.map((c) => c.values);
  const found = out.map((c) => c.found);
  const place: ViewPlace = { store: new Float64Array(0), at: 0, keys: [] };
  const isView = localViewPlace();
  for (let i = from; i < to; i++) {
    const j = i - from;
    const record = records[i].values;
    if (!isView(record, place)) {
      for (let c = 0; c < out.length; c++) readPlain(record, keys[c], out[c], j);
      continue;
    }
    const { at, which } = reads.of(place.keys);
    for (let c = 0; c < out.length; c++) {
      const x = at[c];
      values[c][j] = x < 0 ? Number.NaN : place.store[place.at + x];
      found[c][j] = which[c];
    }
  }
}

/** readInto through the records' places. */
function readPlaced({ records, keys, reads, from, to, out }: Scan, places: Places): void {
  const values = out.map((c) => c.values);
  const found = out.map((c) => c.found);
  const bySequence = places.sequences.map((s) => reads.of(s));
  const { stores, storeOf, at: base, sequenceOf } = places;
  for (let i = from; i < to; i++) {
    const j = i - from;
    const s = sequenceOf[i];
    if (s < 0) {
      for (let c = 0; c < out.length; c++) readPlain(records[i].values, keys[c], out[c], j);
      continue;
    }
    const { at, which } = bySequence[s];
    const store = stores[storeOf[i]];
    const b = base[i];
    for (let c = 0; c < out.length; c++) {
      const x = at[c];
      values[c][j] = x < 0 ? Number.NaN : store[b + x];
      found[c][j] = which[c];
    }
  }
}

/** Records per block of {@link forEachBlock}: its columns stay a few tens of KB however many records. */
export const BLOCK = 4096;

/**
 * Reads `lists` over all records a block at a time and hands each block's columns to `visit`
 * (column index j is record from + j): no allocation that grows with the records, so a scan of 10^7
 * records neither boxes numbers nor makes the collector run for hundreds of MB of columns.
 */
export function forEachBlock(
  records: readonly HasValues[],
  lists: readonly KeyList[],
  visit: (from: number, to: number, cols: readonly KeyColumn[]) => void,
): void {
  const keys = keyLists(lists);
  const reads = sequenceReads(keys);
  const cols = keys.map(() => ({ values: new Float64Array(BLOCK), found: new Uint8Array(BLOCK) }));
  for (let from = 0; from < records.length; from += BLOCK) {
    const to = Math.min(from + BLOCK, records.length);
    readInto({ records, keys, reads, from, to, out: cols });
    visit(from, to, cols);
  }
}

/** Key lists as arrays; throws for an empty list or one longer than `found` can tell apart. */
function keyLists(lists: readonly KeyList[]): (readonly string[])[] {
  const keys = lists.map((l) => (typeof l === "string" ? [l] : l));
  for (const l of keys) if (l.length === 0 || l.length > 255) throw new Error(`invalid keys: ${l.length} keys ([${l.join(", ")}]; 1 to 255)`);
  return keys;
}

/** A plain object's number: `undefined` is absent (as valueOfKeys reads it). */
function readPlain(values: Values, keys: readonly string[], out: KeyColumn, j: number): void {
  for (let k = 0; k < keys.length; k++) {
    const v = values[keys[k]];
    if (v === undefined) continue;
    out.values[j] = v;
    out.found[j] = k + 1;
    return;
  }
  out.values[j] = Number.NaN;
  out.found[j] = 0;
}

/** True when some record has one of `keys` (stops at the first). */
export function anyHasKey(records: readonly HasValues[], keys: KeyList): boolean {
  const list = typeof keys === "string" ? [keys] : keys;
  const reads = sequenceReads([list]);
  const place: ViewPlace = { store: new Float64Array(0), at: 0, keys: [] };
  const isView = localViewPlace();
  for (let i = 0; i < records.length; i++) {
    const values = records[i].values;
    if (isView(values, place)) {
      if (reads.of(place.keys).at[0] >= 0) return true;
    } else {
      for (let k = 0; k < list.length; k++) if (values[list[k]] !== undefined) return true;
    }
  }
  return false;
}
