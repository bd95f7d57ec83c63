/**
 * Compact values: a record's or a history row's numbers stored in a shared Float64Array, read
 * through a small view object whose prototype has one getter per key. Plain objects cost V8 one boxed
 * number per value (three heap objects per row of three keys), so 10^6 updates held as plain objects
 * are ~1 GB the garbage collector walks again and again; as views they are one small object each and
 * 8 bytes per value outside the JS heap.
 *
 * A view reads like a plain object, `values[key]`, `key in values` and `for...in` (keys in insertion
 * order), but it is read-only and has no own keys: list keys with {@link keysOf}, never
 * `Object.keys`, spread or JSON.stringify (they see nothing). Tests run the export on both kinds and
 * compare bytes.
 */

/** Where a view's numbers are (symbols: invisible to for...in, Object.keys and JSON). */
const STORE = Symbol("store");
const AT = Symbol("at");
/** The key sequence of a view class, on its prototype. */
const KEYS = Symbol("keys");

/** A values object: plain, or a compact view (same reads, see the file comment). */
export type Values = Record<string, number>;

/** Constructor of the views of one key sequence. */
export type ViewClass = new (store: Float64Array, at: number) => Values;

/**
 * The keys of a values object in insertion order: the shared key list of a view (do not modify it),
 * or Object.keys of a plain object.
 * @example keysOf({ a: 1, b: 2 }) // ["a", "b"]
 */
export function keysOf(values: Values): readonly string[] {
  const keys = (values as unknown as { [KEYS]?: readonly string[] })[KEYS];
  return keys !== undefined ? keys : Object.keys(values);
}

/**
 * Reads every value of `values` into `out` (reused by the caller) in key order and returns the keys:
 * a view's numbers straight from its store, without a getter call per key.
 */
export function readValues(values: Values, out: number[]): readonly string[] {
  const view = values as unknown as { [KEYS]?: readonly string[]; [STORE]: Float64Array; [AT]: number };
  const keys = view[KEYS];
  if (keys !== undefined) {
    const store = view[STORE];
    const at = view[AT];
    for (let j = 0; j < keys.length; j++) out[j] = store[at + j];
    return keys;
  }
  const own = Object.keys(values);
  for (let j = 0; j < own.length; j++) out[j] = values[own[j]];
  return own;
}

/** Where a view's numbers are (filled by {@link viewPlace}; one reused per caller, not one per record). */
export interface ViewPlace {
  store: Float64Array;
  at: number;
  keys: readonly string[];
}

/** Fills `into` with where a view's numbers are and returns true; false for a plain object. */
export function viewPlace(values: Values, into: ViewPlace): boolean {
  const view = values as unknown as { [KEYS]?: readonly string[]; [STORE]: Float64Array; [AT]: number };
  const keys = view[KEYS];
  if (keys === undefined) return false;
  into.store = view[STORE];
  into.at = view[AT];
  into.keys = keys;
  return true;
}

/** True for a compact view. */
export function isView(values: Values): boolean {
  return (values as unknown as { [KEYS]?: readonly string[] })[KEYS] !== undefined;
}

/** The view class of a key sequence: a getter per key reading `store[at + j]`. */
export function viewClass(keys: readonly string[]): ViewClass {
  const frozen = Object.freeze(keys.slice());
  // A function, not a class: the fields must be symbols, and tslab compiles lib/ as ES2022 non-strict.
  function View(this: { [STORE]: Float64Array; [AT]: number }, store: Float64Array, at: number): void {
    this[STORE] = store;
    this[AT] = at;
  }
  Object.defineProperty(View.prototype, KEYS, { value: frozen });
  frozen.forEach((key, j) => {
    Object.defineProperty(View.prototype, key, {
      get(this: { [STORE]: Float64Array; [AT]: number }) {
        return this[STORE][this[AT] + j];
      },
      enumerable: true,
    });
  });
  return View as unknown as ViewClass;
}

/** Doubles per arena chunk (2 MB): large enough to amortise, small enough not to waste. */
const CHUNK_DOUBLES = 1 << 18;

/**
 * Append-only storage of the numbers behind views, in chunks outside the JS heap. `shared` chunks are
 * SharedArrayBuffers, which a worker thread reads without a copy (the CSV worker formats records
 * from them); a shared chunk cannot be transferred, so rows that go to another thread use plain ones.
 */
export class ValuesArena {
  private chunk = new Float64Array(0);
  private used = 0;
  /** Doubles stored so far (for progress and memory reports). */
  size = 0;

  constructor(private readonly opts: { shared?: boolean } = {}) {}

  /** Stores `n` values from `vals` and returns a view of them made with `View`. */
  store(View: ViewClass, vals: readonly number[], n: number): Values {
    const at = this.reserve(n);
    const chunk = this.chunk;
    for (let j = 0; j < n; j++) chunk[at + j] = vals[j];
    return new View(chunk, at);
  }

  /**
   * Stores `n` values gathered from other stores, value k being `stores[row[k]][bases[row[k]] + index[k]]`,
   * and returns a view of them made with `View`: a record's values copied straight from its rows' stores.
   */
  gather(View: ViewClass, n: number, stores: readonly Float64Array[], bases: readonly number[], row: Uint8Array, index: Int32Array): Values {
    const at = this.reserve(n);
    const chunk = this.chunk;
    for (let k = 0; k < n; k++) {
      const r = row[k];
      chunk[at + k] = stores[r][bases[r] + index[k]];
    }
    return new View(chunk, at);
  }

  /** Room for `n` values in the current chunk (a new chunk when they do not fit); returns where they go. */
  private reserve(n: number): number {
    if (this.used + n > this.chunk.length) {
      const length = Math.max(CHUNK_DOUBLES, n);
      this.chunk = this.opts.shared ? new Float64Array(new SharedArrayBuffer(length * 8)) : new Float64Array(length);
      this.used = 0;
    }
    const at = this.used;
    this.used += n;
    this.size += n;
    return at;
  }
}

/**
 * Compact rows packed to cross to another thread: the arena chunks they use (transferable), and per
 * row its chunk, offset and key list. Made by {@link PackedRows}, read back by {@link unpackViews}.
 */
export interface PackedViews {
  chunks: ArrayBuffer[];
  chunk: Int32Array;
  at: Int32Array;
  shape: Int32Array;
  shapes: string[][];
  /**
   * True when the chunks hold these rows only (a load worker's, made for one file and transferred
   * whole): once the rows are released for good they may be freed (packed-run.ts releaseRows).
   */
  own?: boolean;
}

/**
 * Compact rows packed as they come (push each view, then {@link PackedRows.packed}): no view is kept,
 * so a thread parsing a 6 M-row file holds typed arrays, not 6 M objects its collector walks again and
 * again.
 */
export class PackedRows {
  private readonly chunkIdx = new Map<Float64Array, number>();
  private readonly shapeIdx = new Map<readonly string[], number>();
  private readonly chunks: ArrayBuffer[] = [];
  private readonly shapes: string[][] = [];
  private chunk = new Int32Array(1024);
  private at = new Int32Array(1024);
  private shape = new Int32Array(1024);
  private readonly place: ViewPlace = { store: new Float64Array(0), at: 0, keys: [] };
  length = 0;

  /** Adds a row (a compact view; throws otherwise). */
  push(row: Values): void {
    const place = this.place;
    if (!viewPlace(row, place)) throw new Error(`invalid rows: row ${this.length} is not a compact view`);
    if (this.length === this.at.length) this.grow();
    let c = this.chunkIdx.get(place.store);
    if (c === undefined) {
      c = this.chunks.push(place.store.buffer as ArrayBuffer) - 1;
      this.chunkIdx.set(place.store, c);
    }
    let sh = this.shapeIdx.get(place.keys);
    if (sh === undefined) {
      sh = this.shapes.push(place.keys.slice()) - 1;
      this.shapeIdx.set(place.keys, sh);
    }
    this.chunk[this.length] = c;
    this.at[this.length] = place.at;
    this.shape[this.length] = sh;
    this.length++;
  }

  /** The rows so far, packed (their chunks are to be transferred). */
  packed(): PackedViews {
    const n = this.length;
    return { chunks: this.chunks, chunk: this.chunk.slice(0, n), at: this.at.slice(0, n), shape: this.shape.slice(0, n), shapes: this.shapes };
  }

  private grow(): void {
    const twice = (a: Int32Array) => {
      const b = new Int32Array(a.length * 2);
      b.set(a);
      return b;
    };
    this.chunk = twice(this.chunk);
    this.at = twice(this.at);
    this.shape = twice(this.shape);
  }
}

/** The views of packed rows; `classes` caches view classes by key sequence across calls. */
export function unpackViews(p: PackedViews, classes: Map<string, ViewClass>): Values[] {
  const stores = p.chunks.map((b) => new Float64Array(b));
  const views = p.shapes.map((keys) => {
    const sig = keys.join("\u0000");
    let View = classes.get(sig);
    if (View === undefined) {
      View = viewClass(keys);
      classes.set(sig, View);
    }
    return View;
  });
  const rows = new Array<Values>(p.at.length);
  for (let i = 0; i < rows.length; i++) rows[i] = new views[p.shape[i]](stores[p.chunk[i]], p.at[i]);
  return rows;
}
