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
}

const MAX_NODES = 100_000;

/** Collects key/value pairs of one record, then builds the object; reused across records. */
export class ValuesBuilder {
  /** Keys of the current record, in insertion order (entries beyond `n` are stale). */
  readonly keys: string[] = [];
  /** Values parallel to `keys`. */
  readonly vals: number[] = [];
  /** Number of pairs of the current record. */
  n = 0;
  private readonly root: ShapeNode = { next: new Map(), template: null, view: null };
  /** Trie nodes so far; past MAX_NODES (keys in ever new orders) objects are built directly. */
  private nodes = 0;
  /** The last template and its keys: consecutive records usually repeat them (no trie walk then). */
  private lastKeys: string[] = [];
  private lastTemplate: Record<string, number> | null = null;
  private lastView: ViewClass | null = null;

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
    const same = this.sameAsLast();
    const node = same ? null : this.lookup();
    if (this.arena !== null) {
      // Past MAX_NODES (keys in ever new orders) a plain object: a view class per object would be worse.
      if (!same && node === null) return this.direct();
      return this.arena.store(same ? this.lastView! : node!.view!, vals, n);
    }
    const t = same ? this.lastTemplate : node === null ? null : node.template;
    if (t === null) return this.direct();
    const out: Record<string, number> = { ...t };
    for (let j = 0; j < n; j++) out[keys[j]] = vals[j];
    return out;
  }

  private sameAsLast(): boolean {
    const last = this.lastKeys;
    if ((this.arena === null ? this.lastTemplate : this.lastView) === null || last.length !== this.n) return false;
    for (let j = 0; j < this.n; j++) if (last[j] !== this.keys[j]) return false;
    return true;
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
        next = { next: new Map(), template: null, view: null };
        node.next.set(keys[j], next);
      }
      node = next;
    }
    if (this.arena !== null) {
      if (node.view === null) node.view = viewClass(keys.slice(0, n));
    } else if (node.template === null) {
      const entries: [string, number][] = [];
      // 0.5, not 0: fields start as doubles, so storing the real (mostly fractional) values later
      // does not change the shared shape.
      for (let j = 0; j < n; j++) entries.push([keys[j], 0.5]);
      node.template = Object.fromEntries(entries);
    }
    this.lastKeys = keys.slice(0, n);
    this.lastTemplate = node.template;
    this.lastView = node.view;
    return node;
  }

  /** Builds without a template (still a fast object, but slower to make). */
  private direct(): Record<string, number> {
    const entries: [string, number][] = [];
    for (let j = 0; j < this.n; j++) entries.push([this.keys[j], this.vals[j]]);
    return Object.fromEntries(entries);
  }
}
