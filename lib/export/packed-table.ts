/**
 * A record table packed to cross to the CSV worker thread (lib/export/csv-worker.ts): per row, in
 * output order, its axis cells in typed columns and where its compact values are (store, offset, key
 * list), the stores being the shared arena chunks of the alignment (no copy). The worker rebuilds the
 * very cells `row(i)` gives on this thread, so csvByteChunks writes the same bytes there.
 */
import { type Values, viewPlace, type ViewPlace } from "../values/compact-values";

/**
 * A table whose rows are made on demand (the record tables: 10^6 rows of cells at once would be
 * gigabytes). `row(i)` returns a fresh array the caller may keep.
 */
export interface StreamedTable {
  name: string;
  columns: string[];
  rowCount: number;
  row(i: number): ExportCell[];
  /** The table packed for the CSV worker thread (record tables), or null when it cannot be (see packed-table.ts). */
  pack?: () => PackedTable | null;
}
import type { ExportCell } from "./export-cell";

/** A record table as typed columns (see the file comment). */
export interface PackedTable {
  name: string;
  columns: string[];
  rowCount: number;
  /** Per leading (axis) column: texts as indexes into `texts`, or numbers. */
  lead: ({ kind: "text"; at: Int32Array } | { kind: "number"; values: Float64Array })[];
  texts: string[];
  /** The arena chunks holding the values (shared: not copied when posted). */
  stores: ArrayBufferLike[];
  /** Per row: index into `stores`, offset in it, index into `shapes` (the row's key list). */
  store: Int32Array;
  at: Int32Array;
  shape: Int32Array;
  shapes: string[][];
}

/**
 * Packs `records` taken in `order` (columns: `leadCount` axis columns read by `lead`, then the value
 * keys). Null when a record's values are not compact views over shared chunks, or an axis cell is
 * neither a text nor a number: the caller then formats the table on its own thread.
 */
export function packRecords<T extends { values: Values }>(
  table: Pick<StreamedTable, "name" | "columns">,
  records: readonly T[],
  order: Int32Array,
  lead: readonly ((r: T) => string | number)[],
): PackedTable | null {
  const n = order.length;
  const texts: string[] = [];
  const textIndex = new Map<string, number>();
  const empty = { at: new Int32Array(0), values: new Float64Array(0) };
  const cols = lead.map((cell) => {
    const kind = textKind(records, order, cell);
    return kind === "text" ? { ...empty, kind, at: new Int32Array(n) } : { ...empty, kind, values: new Float64Array(n) };
  });
  const stores: ArrayBufferLike[] = [];
  const storeIndex = new Map<ArrayBufferLike, number>();
  const shapes: string[][] = [];
  const shapeIndex = new Map<readonly string[], number>();
  const out = { store: new Int32Array(n), at: new Int32Array(n), shape: new Int32Array(n) };
  const place: ViewPlace = { store: new Float64Array(0), at: 0, keys: [] };
  // Records come in runs of one round, chunk and key list: the last of each is tried before its Map.
  const lastText = lead.map(() => ({ text: "", at: -1 }));
  let lastStore: Float64Array | null = null;
  let lastKeys: readonly string[] | null = null;
  for (let i = 0; i < n; i++) {
    const r = records[order[i]];
    for (let c = 0; c < lead.length; c++) {
      const v = lead[c](r);
      const col = cols[c];
      if (col.kind === "text") {
        if (typeof v !== "string") return null;
        const last = lastText[c];
        if (v !== last.text || last.at < 0) {
          last.text = v;
          last.at = indexOf(textIndex, texts, v);
        }
        col.at[i] = last.at;
      } else {
        if (typeof v !== "number") return null;
        col.values[i] = v;
      }
    }
    if (!viewPlace(r.values, place)) return null;
    if (place.store !== lastStore) {
      if (!(place.store.buffer instanceof SharedArrayBuffer)) return null;
      lastStore = place.store;
      out.store[i] = indexOf(storeIndex, stores, place.store.buffer);
    } else out.store[i] = out.store[i - 1];
    out.at[i] = place.at;
    if (place.keys !== lastKeys) {
      lastKeys = place.keys;
      out.shape[i] = indexOf(shapeIndex, shapes, place.keys);
    } else out.shape[i] = out.shape[i - 1];
  }
  return {
    name: table.name,
    columns: [...table.columns],
    rowCount: n,
    lead: cols.map((c) => (c.kind === "text" ? { kind: "text" as const, at: c.at } : { kind: "number" as const, values: c.values })),
    texts,
    stores,
    shapes,
    ...out,
  };
}

/** Index of `item` in `list`, appended (a copy when it is an array) the first time. */
function indexOf<T>(index: Map<T, number>, list: unknown[], item: T): number {
  let k = index.get(item);
  if (k === undefined) {
    k = list.push(Array.isArray(item) ? item.slice() : item) - 1;
    index.set(item, k);
  }
  return k;
}

/** "text" when the column's first record gives a text (every record is checked as it is packed). */
function textKind<T>(records: readonly T[], order: Int32Array, cell: (r: T) => string | number): "text" | "number" {
  return order.length > 0 && typeof cell(records[order[0]]) === "string" ? "text" : "number";
}

/** The buffers of a pack that are not shared: transferred to the worker rather than copied. */
export function packBuffers(p: PackedTable): ArrayBuffer[] {
  const lead = p.lead.map((c) => (c.kind === "text" ? c.at.buffer : c.values.buffer));
  return [...lead, p.store.buffer, p.at.buffer, p.shape.buffer] as ArrayBuffer[];
}

/**
 * The table a pack came from, its rows made on demand: the same cells as the record table's `row(i)`
 * (axis cells, then each value at its key's column, null where the record has no such key).
 */
export function unpackTable(p: PackedTable): StreamedTable {
  const leadCount = p.lead.length;
  const keyColumn = new Map(p.columns.slice(leadCount).map((k, c) => [k, c] as const));
  const stores = p.stores.map((b) => new Float64Array(b));
  // Column of each key of each key list.
  const positions = p.shapes.map((keys) => Int32Array.from(keys, (k) => keyColumn.get(k)!));
  const width = p.columns.length;
  const row = (i: number): ExportCell[] => {
    const cells = new Array<ExportCell>(width).fill(null);
    for (let c = 0; c < leadCount; c++) {
      const col = p.lead[c];
      cells[c] = col.kind === "text" ? p.texts[col.at[i]] : col.values[i];
    }
    const store = stores[p.store[i]];
    const at = p.at[i];
    const pos = positions[p.shape[i]];
    for (let j = 0; j < pos.length; j++) cells[leadCount + pos[j]] = store[at + j];
    return cells;
  };
  return { name: p.name, columns: p.columns, rowCount: p.rowCount, row };
}
