/**
 * The CSV bytes of a packed record table (packed-table.ts) made straight from its typed columns, for
 * the CSV worker: the same bytes as csvByteChunks(unpackTable(p)) (checked in
 * test/export/packed-csv.test.ts) without a cells array per row nor a look at each cell's type. Each
 * key list's columns are worked out once, the axis texts quoted once, a row of finite values printed
 * as one array, and an all-ASCII table is copied into the buffer as Latin-1 (the same bytes as UTF-8
 * there, without the encoder's checks).
 */
import { csvField } from "./csv-text";
import { formatCell } from "./export-cell";
import type { PackedTable } from "./packed-table";

/** Bytes per chunk (as csvByteChunks). */
const CHUNK_BYTES = 1 << 22;

/** True when every character of `text` is ASCII. */
function isAscii(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 127) return false;
  return true;
}

/** Per key list of the table: the index of each value column's key in the list, -1 where it has none. */
function valueSlots(p: PackedTable): Int32Array[] {
  const leadCount = p.lead.length;
  const width = p.columns.length - leadCount;
  const column = new Map(p.columns.slice(leadCount).map((k, c) => [k, c] as const));
  return p.shapes.map((keys) => {
    const slots = new Int32Array(width).fill(-1);
    keys.forEach((k, j) => {
      slots[column.get(k)!] = j;
    });
    return slots;
  });
}

/** The text of row i's axis cells, each followed by a comma when value columns come after them. */
function leadText(p: PackedTable, texts: readonly string[], i: number, comma: boolean): string {
  let line = "";
  for (let c = 0; c < p.lead.length; c++) {
    const col = p.lead[c];
    if (c > 0) line += ",";
    line += col.kind === "text" ? texts[col.at[i]] : formatCell(col.values[i]);
  }
  return comma ? `${line},` : line;
}

/** Row values in column order, cell by cell (any value, NaN and ±Infinity included). */
function valuesText(store: Float64Array, at: number, slot: Int32Array): string {
  let line = "";
  for (let c = 0; c < slot.length; c++) {
    const j = slot[c];
    if (c > 0) line += ",";
    if (j >= 0) line += formatCell(store[at + j]);
  }
  return line;
}

/**
 * valuesText's text for a row whose values are all finite, or null: the row copied into `row` (a
 * missing cell as NaN) and printed by JSON.stringify, about twice as fast as joining String(x) cell by
 * cell. Its number text is String(x)'s (ECMAScript's Number::toString, -0 as "0" in both); NaN prints
 * as null, which no number's text contains, so removing "null" leaves a missing cell empty.
 */
function finiteValuesText(store: Float64Array, at: number, slot: Int32Array, row: number[]): string | null {
  let missing = false;
  for (let c = 0; c < slot.length; c++) {
    const j = slot[c];
    if (j < 0) {
      row[c] = Number.NaN;
      missing = true;
      continue;
    }
    const v = store[at + j];
    // v - v is 0 for finite numbers only: NaN and ±Infinity take the cell-by-cell path.
    if (v - v !== 0) return null;
    row[c] = v;
  }
  const json = JSON.stringify(row);
  const text = json.slice(1, -1);
  return missing ? text.replaceAll("null", "") : text;
}

/**
 * The table's CSV in chunks written into one reused buffer (each chunk is valid until the next is
 * asked for: the caller writes it first).
 */
export function* packedCsvChunks(p: PackedTable): Generator<Uint8Array> {
  if (new Set(p.columns).size !== p.columns.length) throw new Error(`invalid columns of ${p.name}: a column name repeats`);
  const texts = p.texts.map(csvField);
  const header = `${p.columns.map(csvField).join(",")}\n`;
  const encoding: BufferEncoding = isAscii(header) && texts.every(isAscii) ? "latin1" : "utf8";
  const stores = p.stores.map((b) => new Float64Array(b));
  const slots = valueSlots(p);
  const values = p.columns.length - p.lead.length;
  let buf = Buffer.allocUnsafe(Math.max(CHUNK_BYTES, header.length * 3));
  let off = buf.write(header, 0, encoding);
  // A double array (filled with a double): JSON.stringify then reads its numbers unboxed.
  const row = new Array<number>(values).fill(0.5);
  for (let i = 0; i < p.rowCount; i++) {
    let line = leadText(p, texts, i, values > 0 && p.lead.length > 0);
    const store = stores[p.store[i]];
    const at = p.at[i];
    const slot = slots[p.shape[i]];
    line += finiteValuesText(store, at, slot, row) ?? valuesText(store, at, slot);
    line += "\n";
    // A UTF-16 unit is at most 3 UTF-8 bytes: flush first when the line might not fit.
    if (off + line.length * 3 > buf.length) {
      if (off > 0) yield buf.subarray(0, off);
      if (line.length * 3 > buf.length) buf = Buffer.allocUnsafe(line.length * 3);
      off = 0;
    }
    off += buf.write(line, off, encoding);
  }
  if (off > 0) yield buf.subarray(0, off);
}
