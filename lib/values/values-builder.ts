/**
 * Builds the `values` objects of aligned records and loaded rows. Adding dozens of properties one by
 * one with computed keys turns a V8 object into a slow, ~3x larger dictionary; cloning a template that
 * already has the keys (in the same order) keeps it a compact fast object. Templates are cached in a
 * trie over the key sequence: records of one kind share a few key sequences. In compact mode the
 * trie holds a view class per key sequence instead, and the numbers go into an arena
 * (compact-values.ts).
 */
import { type ValuesArena, type ViewClass, viewClass } from "./compact-values";

interface ShapeNode {
  next: Map<string, ShapeNode>;
  template: Record<string, number> | null;
  view: ViewClass | null;
  /** The key sequence ending here, once a template or view was made for it. */
  keys: string[] | null;
}

const MAX_NODES = 100_000;

/**
 * Key sequences tried before the trie: rows cycle through a few key sequences (a frozen file
 * interleaves update, rollout and perf rows; merged rollout records come in two or three orders), and
 * comparing keys with a handful of known sequences costs less than a Map lookup per key.
 */
const RECENT = 8;

/** Collects key/value pairs of one record, then builds the object; reused across records. */
export class ValuesBuilder {
  /** Keys of the current record, in insertion order (entries beyond `n` are stale). */
  readonly keys: string[] = [];
  /** Values parallel to `keys`. */
  readonly vals: number[] = [];
  /** Number of pairs of the current record. */
  n = 0;
  private readonly root: ShapeNode = { next: new Map(), template: null, view: null, keys: null };
  /** Trie nodes so far; past MAX_NODES (keys in ever new orders) objects are built directly. */
  private nodes = 0;
  /** The nodes of the last key sequences met, most recent first (see RECENT). */
  private readonly recent: ShapeNode[] = [];

  /** Plain objects by default; compact views over `arena` when given (see compact-values.ts). */
  constructor(private readonly arena: ValuesArena | null = null) {}

  /** Starts a new record. */
  reset(): void {
    this.n = 0;
  }

  /** Adds a pair (the caller makes sure the key is new for this record). */
  push(key: string, value: number): void {
    this.keys[this.n] = key;
    this.vals[this.n] = value;
    this.n++;
  }

  /** Removes the given keys from the current record, keeping the order of the others. */
  remove(drop: ReadonlySet<string>): void {
    let w = 0;
    for (let r = 0; r < this.n; r++) {
      if (drop.has(this.keys[r])) continue;
      this.keys[w] = this.keys[r];
      this.vals[w] = this.vals[r];
      w++;
    }
    this.n = w;
  }

  /** A new values object with the current pairs: a plain object, or a view in compact mode. */
  build(): Record<string, number> {
    const { keys, vals, n } = this;
    // Past MAX_NODES (keys in ever new orders) a plain object: a view class per object would be worse.
    const node = this.recentNode() ?? this.lookup();
    if (node === null) return this.direct();
    if (this.arena !== null) return this.arena.store(node.view!, vals, n);
    const out: Record<string, number> = { ...node.template! };
    for (let j = 0; j < n; j++) out[keys[j]] = vals[j];
    return out;
  }

  /**
   * Compact mode: the view class build() gives a record of exactly these keys in this order (the
   * current record is cleared); null in plain mode, or past MAX_NODES.
   */
  viewClassOf(keys: readonly string[]): ViewClass | null {
    if (this.arena === null) return null;
    this.reset();
    for (const k of keys) this.push(k, 0);
    const node = this.recentNode() ?? this.lookup();
    this.reset();
    return node === null ? null : node.view;
  }

  /** Compact mode: a view of values gathered from rows' stores (ValuesArena.gather); `View` from viewClassOf. */
  gather(View: ViewClass, n: number, stores: readonly Float64Array[], bases: readonly number[], row: Uint8Array, index: Int32Array): Record<string, number> {
    if (this.arena === null) throw new Error("invalid gather: a plain-mode ValuesBuilder has no arena");
    return this.arena.gather(View, n, stores, bases, row, index);
  }

  /** The node of the current key sequence when it is a recent one (moved to the front), else null. */
  private recentNode(): ShapeNode | null {
    const { recent, keys, n } = this;
    for (let r = 0; r < recent.length; r++) {
      const node = recent[r];
      const had = node.keys!;
      if (had.length !== n) continue;
      let j = 0;
      while (j < n && had[j] === keys[j]) j++;
      if (j < n) continue;
      if (r > 0) {
        recent.splice(r, 1);
        recent.unshift(node);
      }
      return node;
    }
    return null;
  }

  /** The trie node of the current key sequence, its template or view made on first use; null past MAX_NODES. */
  private lookup(): ShapeNode | null {
    const { keys, n } = this;
    let node = this.root;
    for (let j = 0; j < n; j++) {
      let next = node.next.get(keys[j]);
      if (next === undefined) {
        if (this.nodes >= MAX_NODES) return null;
        this.nodes++;
        next = { next: new Map(), template: null, view: null, keys: null };
        node.next.set(keys[j], next);
      }
      node = next;
    }
    if (node.keys === null) this.makeShape(node);
    this.recent.unshift(node);
    if (this.recent.length > RECENT) this.recent.pop();
    return node;
  }

  /** Records the node's key sequence (the current one) and makes its view class or template. */
  private makeShape(node: ShapeNode): void {
    const keys = this.keys.slice(0, this.n);
    node.keys = keys;
    if (this.arena !== null) {
      node.view = viewClass(keys);
      return;
    }
    // 0.5, not 0: fields start as doubles, so storing the real (mostly fractional) values later
    // does not change the shared shape.
    node.template = Object.fromEntries(keys.map((k) => [k, 0.5]));
  }

  /** Builds without a template (still a fast object, but slower to make). */
  private direct(): Record<string, number> {
    const entries: [string, number][] = [];
    for (let j = 0; j < this.n; j++) entries.push([this.keys[j], this.vals[j]]);
    return Object.fromEntries(entries);
  }
}
