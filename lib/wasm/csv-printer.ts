/**
 * One instance of the WebAssembly CSV printer (tools/wasm/src/printer.rs), for one table: set up with
 * the table's texts, leading-column kinds and key-list slots, then given rows a batch at a time.
 */
import { type WasmExports, wasmInstance } from "./instance";

/** The printer's exports (tools/wasm/src/printer.rs). */
interface PrinterExports {
  printer_texts(bytes: number, count: number): number;
  printer_text_at(): number;
  printer_lead(count: number): number;
  printer_slots(shapes: number, width: number): number;
  printer_batch(rows: number, values: number): void;
  printer_lead_text(): number;
  printer_lead_num(): number;
  printer_shape(): number;
  printer_vals(): number;
  printer_out(): number;
  printer_print(rows: number): number;
}

/** What the printer prints from (see printer.rs). */
export interface PrinterTable {
  /** Cell texts by index, as they go into the file (CSV fields). */
  texts: readonly string[];
  /** The cells of NaN, Infinity and -Infinity. */
  nonFinite: readonly [string, string, string];
  /** Per leading column: a text (an index into `texts` per row) or a number. */
  lead: readonly ("text" | "number")[];
  /** Per key list: per value column, the index of its key in the list, -1 where it has none. */
  slots: readonly Int32Array[];
  /** Value columns. */
  width: number;
}

/** A batch's inputs, in the printer's memory: per row its text indexes, its leading numbers, its key list and its values (rows back to back). */
export interface PrinterBatch {
  leadText: Uint32Array;
  leadNum: Float64Array;
  shape: Uint32Array;
  vals: Float64Array;
}

export class CsvPrinterWasm {
  private readonly x: WasmExports<PrinterExports>;
  private readonly textLeads: number;
  private readonly numLeads: number;

  constructor(table: PrinterTable) {
    this.x = wasmInstance<PrinterExports>();
    const texts = [...table.texts, ...table.nonFinite].map((t) => Buffer.from(t, "utf8"));
    const bytes = texts.reduce((a, t) => a + t.length, 0);
    const at = this.x.printer_texts(bytes, texts.length);
    const mem = () => this.x.memory.buffer;
    const starts = new Uint32Array(mem(), this.x.printer_text_at(), texts.length + 1);
    let off = 0;
    texts.forEach((t, i) => {
      new Uint8Array(mem(), at + off, t.length).set(t);
      starts[i] = off;
      off += t.length;
    });
    starts[texts.length] = off;
    new Uint8Array(mem(), this.x.printer_lead(table.lead.length), table.lead.length).set(table.lead.map((k) => (k === "text" ? 0 : 1)));
    const slots = new Int32Array(mem(), this.x.printer_slots(table.slots.length, table.width), table.slots.length * table.width);
    table.slots.forEach((s, i) => slots.set(s, i * table.width));
    this.textLeads = table.lead.filter((k) => k === "text").length;
    this.numLeads = table.lead.length - this.textLeads;
  }

  /**
   * Prints `rows` rows holding `values` values in all, after `fill` has put them into the batch; the
   * CSV lines, valid until the next call.
   */
  print(rows: number, values: number, fill: (batch: PrinterBatch) => void): Uint8Array {
    const x = this.x;
    x.printer_batch(rows, values);
    const mem = x.memory.buffer;
    fill({
      leadText: new Uint32Array(mem, x.printer_lead_text(), rows * this.textLeads),
      leadNum: new Float64Array(mem, x.printer_lead_num(), rows * this.numLeads),
      shape: new Uint32Array(mem, x.printer_shape(), rows),
      vals: new Float64Array(mem, x.printer_vals(), values),
    });
    const bytes = x.printer_print(rows);
    return new Uint8Array(x.memory.buffer, x.printer_out(), bytes);
  }
}
