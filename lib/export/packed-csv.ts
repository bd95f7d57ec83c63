/**
 * The CSV bytes of a packed record table (packed-table.ts) made straight from its typed columns, for
 * the CSV worker: the same bytes as csvByteChunks(unpackTable(p)) (checked in
 * test/export/packed-csv.test.ts) without a cells array or a string per row. Each key list's columns
 * are worked out once and the axis texts quoted once; the rows' values are copied a batch at a time
 * into the WebAssembly printer (lib/wasm/csv-printer.ts), which prints each number as String(x) does
 * (ECMAScript's Number::toString, by `ryu-js`) straight into bytes: 1.5-1.9x faster than one JSON.stringify
 * per row, the fastest way in JavaScript (bench/RESULTS.md).
 */
import { CsvPrinterWasm, type PrinterBatch } from "../wasm/csv-printer";
import { csvField } from "./csv-text";
import { NON_FINITE_CELLS } from "./export-cell";
import type { PackedTable } from "./packed-table";

/** Rows printed at a time (a chunk of about 1-3 MB at 10^6 updates). */
export const BATCH_ROWS = 4096;

/**
 * Per key list of the table: the index of each value column's key in the list, -1 where it has none.
 * Every key must have its column: the printer takes a row's values as many as its slots, so a key
 * left out would shift every later row's values.
 */
function valueSlots(p: PackedTable): Int32Array[] {
  const leadCount = p.lead.length;
  const width = p.columns.length - leadCount;
  const column = new Map(p.columns.slice(leadCount).map((k, c) => [k, c] as const));
  return p.shapes.map((keys) => {
    const slots = new Int32Array(width).fill(-1);
    keys.forEach((k, j) => {
      const c = column.get(k);
      if (c === undefined) throw new Error(`invalid columns of ${p.name}: no column for key ${JSON.stringify(k)} of its records`);
      slots[c] = j;
    });
    return slots;
  });
}

/** A packed table's typed columns as the printer's batches take them: axis texts and numbers apart, stores as arrays. */
interface PrinterSource {
  p: PackedTable;
  texts: Int32Array[];
  numbers: Float64Array[];
  stores: Float64Array[];
}

/** Puts rows [from, to) into the printer's batch: axis cells, key list, and the values from their stores. */
function fillBatch({ p, texts, numbers, stores }: PrinterSource, from: number, to: number, batch: PrinterBatch): void {
  let v = 0;
  for (let i = from, r = 0; i < to; i++, r++) {
    for (let c = 0; c < texts.length; c++) batch.leadText[r * texts.length + c] = texts[c][i];
    for (let c = 0; c < numbers.length; c++) batch.leadNum[r * numbers.length + c] = numbers[c][i];
    const shape = p.shape[i];
    batch.shape[r] = shape;
    const store = stores[p.store[i]];
    const at = p.at[i];
    const n = p.shapes[shape].length;
    for (let j = 0; j < n; j++) batch.vals[v + j] = store[at + j];
    v += n;
  }
}

/**
 * The table's CSV in chunks: the header (unless `header` is false: a later part of one file), then
 * each batch of rows printed by the WebAssembly printer (each chunk is valid until the next is asked
 * for: the caller writes it first).
 */
export function* packedCsvChunks(p: PackedTable, header = true): Generator<Uint8Array> {
  if (new Set(p.columns).size !== p.columns.length) throw new Error(`invalid columns of ${p.name}: a column name repeats`);
  if (header) yield Buffer.from(`${p.columns.map(csvField).join(",")}\n`, "utf8");
  const printer = new CsvPrinterWasm({
    texts: p.texts.map(csvField),
    nonFinite: [NON_FINITE_CELLS.nan, NON_FINITE_CELLS.posInf, NON_FINITE_CELLS.negInf],
    lead: p.lead.map((c) => c.kind),
    slots: valueSlots(p),
    width: p.columns.length - p.lead.length,
  });
  const source: PrinterSource = {
    p,
    texts: p.lead.flatMap((c) => (c.kind === "text" ? [c.at] : [])),
    numbers: p.lead.flatMap((c) => (c.kind === "number" ? [c.values] : [])),
    stores: p.stores.map((b) => new Float64Array(b)),
  };
  for (let from = 0; from < p.rowCount; from += BATCH_ROWS) {
    const to = Math.min(p.rowCount, from + BATCH_ROWS);
    let values = 0;
    for (let i = from; i < to; i++) values += p.shapes[p.shape[i]].length;
    yield printer.print(to - from, values, (batch) => fillBatch(source, from, to, batch));
  }
}
