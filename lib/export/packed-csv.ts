/**
 * The CSV bytes of a packed record table (packed-table.ts) made straight from its typed columns, for
 * the CSV worker: the same bytes as csvByteChunks(unpackTable(p)) (checked in
 * test/export/packed-csv.test.ts) without a cells array per row nor a look at each cell's type. Each
 * key list's columns are worked out once, the axis texts quoted once, and an all-ASCII table is
 * copied into the buffer as Latin-1 (the same bytes as UTF-8 there, without the encoder's checks).
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
  for (let i = 0; i < p.rowCount; i++) {
    let line = leadText(p, texts, i, values > 0 && p.lead.length > 0);
    const store = stores[p.store[i]];
    const at = p.at[i];
    const slot = slots[p.shape[i]];
    for (let c = 0; c < values; c++) {
      const j = slot[c];
      if (c > 0) line += ",";
      if (j >= 0) line += formatCell(store[at + j]);
    }
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
