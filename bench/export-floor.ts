/**
 * The floor of the 10^6-update export in V8, beside the minimal DuckDB job, in one run (issue 42):
 *   npx tsx bench/export-floor.ts [--updates 1000000] [--reps 3] [--work-dir bench/work]
 *
 * The export must at least hash the frozen files (sha256, the manifest's check), read every line's
 * numbers (the WebAssembly reader the loader uses, lib/wasm/frozen-reader.ts; decoding and
 * JSON.parse, the way before it, are timed beside it, outside the floor) and print every exported value
 * in its shortest round-trip text (the CSV contract), then hash the CSVs. The floor side does only
 * that, one thread, with the fastest ways found (one JSON.stringify per row of numbers), and reports
 * each part's CPU seconds. Half of it is what two cores could do at best with
 * nothing else (no alignment, checks, records or writes). Beside it, the whole job (bench/analysis-ours.ts)
 * and the minimal DuckDB job (bench/analysis_duckdb_minimal.py), each its own process, sides in turn.
 */
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { StringDecoder } from "node:string_decoder";
import { parseArgs } from "node:util";

import { READ_CHUNK_BYTES } from "../lib/archive/history-lines";
import { BATCH_ROWS } from "../lib/export/packed-csv";
import { CsvPrinterWasm } from "../lib/wasm/csv-printer";
import { FrozenReaderWasm } from "../lib/wasm/frozen-reader";
import { ensureAnalysisArchive } from "./analysis-data";
import { runChild, tsxCommand, VENV_PYTHON } from "./child";
import { fmt, mdTable, median, mib } from "./stats";

/** CPU seconds of each part of the floor (one thread). */
interface FloorReport {
  side: "floor";
  lines: number;
  values: number;
  cpu: { hash: number; read: number; print: number; printHash: number; decode: number; parse: number; format: number; csvHash: number };
  /** CPU seconds of the alternative to `format`: each value's text copied from its frozen line. */
  copy: number;
}

/** user + system CPU seconds since `from`. */
function cpuSince(from: NodeJS.CpuUsage): number {
  const c = process.cpuUsage(from);
  return (c.user + c.system) / 1e6;
}

/** W&B's bookkeeping keys (`_step`, `_runtime`, ...): no CSV cell holds them. */
const bookkeeping = (k: string): boolean => k.charCodeAt(0) === 95; /* _ */

/** The values of a parsed row a CSV cell holds, into `out`. */
function exportedValues(row: Record<string, unknown>, out: number[]): number {
  let n = 0;
  for (const k in row) {
    if (bookkeeping(k)) continue;
    const v = row[k];
    out[n++] = typeof v === "number" ? v : 0;
  }
  out.length = n;
  return n;
}

/** Lines parsed, formatted and hashed at a time: few enough to die young, many enough that timing them costs nothing. */
const BATCH = 4096;

/** Bytes decoded at a time (as lib/archive/history-lines.ts). */
const DECODE_BYTES = 64 << 10;

/** Per key sequence of the reader: the positions of the values a CSV cell holds. */
function exportedSlots(keys: readonly string[]): number[] {
  return keys.flatMap((k, j) => (bookkeeping(k) ? [] : [j]));
}

/**
 * A file read by the WebAssembly reader as the loader reads it (copied out chunk by chunk), then its
 * rows printed by the WebAssembly printer as a CSV worker prints a table (one printer, 4,096 rows at a
 * time), each batch's text hashed: each part's CPU into `cpu`.
 */
function wasmReadAndPrint(bytes: Buffer, cpu: FloorReport["cpu"]): void {
  let t = process.cpuUsage();
  const reader = new FrozenReaderWasm(Math.min(READ_CHUNK_BYTES, bytes.length + 1));
  const chunks: { values: Float64Array; shapes: Int32Array }[] = [];
  let carry = 0;
  for (let at = 0; at < bytes.length; at += READ_CHUNK_BYTES) {
    const piece = bytes.subarray(at, at + READ_CHUNK_BYTES);
    reader.input(carry, piece.length).set(piece);
    const used = reader.parse(carry + piece.length);
    if (used < 0) throw new Error("the WebAssembly reader gave the bench archive up: it is written in the canonical form");
    chunks.push({ values: reader.values(), shapes: reader.rowShapes() });
    reader.clear();
    carry += piece.length - used;
  }
  const keys = Array.from({ length: reader.shapeCount() }, (_, s) => reader.shapeKeys(s)!);
  cpu.read += cpuSince(t);
  t = process.cpuUsage();
  const exported = keys.map(exportedSlots);
  const width = Math.max(...exported.map((e) => e.length));
  const slots = exported.map((e) => Int32Array.from({ length: width }, (_, c) => (c < e.length ? c : -1)));
  const printer = new CsvPrinterWasm({ texts: [], nonFinite: ["NaN", "Inf", "-Inf"], lead: [], slots, width });
  const text = createHash("sha256");
  for (const { values, shapes } of chunks) {
    const offsets = new Int32Array(shapes.length);
    for (let r = 1; r < shapes.length; r++) offsets[r] = offsets[r - 1] + keys[shapes[r - 1]].length;
    for (let from = 0; from < shapes.length; from += BATCH_ROWS) {
      const to = Math.min(shapes.length, from + BATCH_ROWS);
      let total = 0;
      for (let r = from; r < to; r++) total += exported[shapes[r]].length;
      const lines = printer.print(to - from, total, (batch) => {
        let v = 0;
        for (let r = from; r < to; r++) {
          const e = exported[shapes[r]];
          batch.shape[r - from] = shapes[r];
          for (let c = 0; c < e.length; c++) batch.vals[v + c] = values[offsets[r] + e[c]];
          v += e.length;
        }
      });
      const h = process.cpuUsage();
      text.update(lines);
      cpu.printHash += cpuSince(h);
    }
  }
  text.digest("hex");
  cpu.print += cpuSince(t);
}

/** The floor side: hash, read, format and hash the text, each timed on its own, a batch of lines at a time. */
function floorSide(archiveDir: string): FloorReport {
  const manifest = JSON.parse(readFileSync(path.join(archiveDir, "manifest.json"), "utf8")) as { runs: { file: string }[] };
  const cpu = { hash: 0, read: 0, print: 0, printHash: 0, decode: 0, parse: 0, format: 0, csvHash: 0 };
  const count = { lines: 0, values: 0, copy: 0 };
  const csv = createHash("sha256");
  for (const run of manifest.runs) {
    const bytes = readFileSync(path.join(archiveDir, run.file));
    let t = process.cpuUsage();
    createHash("sha256").update(bytes).digest("hex");
    cpu.hash += cpuSince(t);
    wasmReadAndPrint(bytes, cpu);
    // Decoded 64 KB at a time, as the loader does (a whole file's string costs fresh pages).
    const decoder = new StringDecoder("utf8");
    let carry = "";
    let pending: string[] = [];
    for (let at = 0; at < bytes.length; at += DECODE_BYTES) {
      t = process.cpuUsage();
      const lines = (carry + decoder.write(bytes.subarray(at, at + DECODE_BYTES))).split("\n");
      carry = lines.pop()!;
      pending = pending.concat(lines);
      cpu.decode += cpuSince(t);
      if (pending.length >= BATCH) {
        floorBatch(pending, cpu, count, csv);
        pending = [];
      }
    }
    floorBatch(pending.concat(carry + decoder.end()), cpu, count, csv);
  }
  csv.digest("hex");
  const { copy, ...counts } = count;
  return { side: "floor", ...counts, cpu, copy };
}

/**
 * The values' texts of a frozen line, comma-separated, copied as they are (a frozen line prints each
 * number as the CSV does): what printing them again could be replaced by. Values are numbers or
 * "NaN"-like strings, so a value ends at the next `,"` or at the closing brace.
 */
function copiedValues(line: string): string {
  let out = "";
  for (let at = line.indexOf('":'); at >= 0; at = line.indexOf('":', at)) {
    const from = at + 2;
    let to = line.indexOf(',"', from);
    if (to < 0) to = line.length - 1;
    out += out.length === 0 ? line.slice(from, to) : `,${line.slice(from, to)}`;
    at = to;
  }
  return out;
}

/** One batch of lines: parsed, each row's values printed as one JSON array, the texts hashed. */
function floorBatch(
  lines: string[],
  cpu: FloorReport["cpu"],
  count: { lines: number; values: number; copy: number },
  csv: ReturnType<typeof createHash>,
): void {
  let t = process.cpuUsage();
  const parsed = lines.filter((l) => l.length > 0).map((l) => JSON.parse(l) as Record<string, unknown>);
  cpu.parse += cpuSince(t);
  t = process.cpuUsage();
  const row: number[] = [];
  const texts = parsed.map((r) => {
    count.values += exportedValues(r, row);
    return JSON.stringify(row);
  });
  cpu.format += cpuSince(t);
  t = process.cpuUsage();
  for (const x of texts) csv.update(x, "latin1");
  cpu.csvHash += cpuSince(t);
  count.lines += parsed.length;
  t = process.cpuUsage();
  let copied = 0;
  for (const l of lines) copied += copiedValues(l).length;
  count.copy += cpuSince(t);
  if (copied < 0) throw new Error("unreachable: keeps the copies from being optimised away");
}

/** The floor's CPU seconds: what the export cannot avoid (the JSON.parse reader's parts are only beside it). */
const floorCpu = (c: FloorReport["cpu"]): number => c.hash + c.read + c.print;

interface SideReport {
  seconds: number;
  /** user + system of every thread of the process. */
  cpuSeconds: number;
  peakRssKb: number | null;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      side: { type: "string" },
      updates: { type: "string", default: "1000000" },
      reps: { type: "string", default: "3" },
      "work-dir": { type: "string", default: path.join("bench", "work") },
    },
    allowPositionals: true,
  });
  if (values.side === "floor") {
    const [archiveDir] = process.argv.slice(-1);
    process.stdout.write(`${JSON.stringify(floorSide(archiveDir))}\n`);
    return;
  }
  const updates = Number(values.updates);
  const reps = Number(values.reps);
  const archive = await ensureAnalysisArchive(updates, { workDir: path.resolve(values["work-dir"]!), log: (l) => process.stderr.write(`${l}\n`) });
  const floors: FloorReport[] = [];
  const ours: SideReport[] = [];
  const duck: SideReport[] = [];
  for (let rep = 0; rep < reps; rep++) {
    const tmp = mkdtempSync(path.join(os.tmpdir(), "bench-floor-"));
    try {
      const [cmd, args] = tsxCommand("bench/export-floor.ts", ["--side", "floor", archive.dir]);
      floors.push((await runChild<FloorReport>(cmd, args, process.env)).report);
      const [oc, oa] = tsxCommand("bench/analysis-ours.ts", [archive.dir, path.join(tmp, "ours")]);
      ours.push((await runChild<SideReport>(oc, oa, process.env)).report);
      const script = path.join(__dirname, "analysis_duckdb_minimal.py");
      duck.push((await runChild<SideReport>(VENV_PYTHON, [script, archive.dir, path.join(tmp, "duck")], process.env)).report);
      const f = floors[rep].cpu;
      process.stderr.write(
        `rep ${rep + 1}/${reps}: floor CPU ${fmt(floorCpu(f))} s, ours ${fmt(ours[rep].seconds)} s, minimal DuckDB ${fmt(duck[rep].seconds)} s\n`,
      );
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  }
  const side = (r: SideReport[]) =>
    `${fmt(median(r.map((x) => x.seconds)))} (CPU ${fmt(median(r.map((x) => x.cpuSeconds)))} s, peak ${mib(median(r.map((x) => x.peakRssKb ?? 0)))} MiB)`;
  const part = (k: keyof FloorReport["cpu"]) => median(floors.map((f) => f.cpu[k]));
  const total = median(floors.map((f) => floorCpu(f.cpu)));
  const duckSeconds = median(duck.map((d) => d.seconds));
  const oursSeconds = median(ours.map((o) => o.seconds));
  const rows: (string | number)[][] = [
    ["floor: sha256 of the frozen files (CPU s)", fmt(part("hash"))],
    [`floor: ${floors[0].lines.toLocaleString("en-US")} lines read by the WebAssembly reader, as the loader does (CPU s)`, fmt(part("read"))],
    ["instead of that reader: UTF-8 decoding and splitting into lines (CPU s, not in the floor)", fmt(part("decode"))],
    ["instead of that reader: JSON.parse of every line (CPU s, not in the floor)", fmt(part("parse"))],
    ["floor: every exported value printed by the WebAssembly printer, as the CSV workers do (CPU s)", fmt(part("print"))],
    ["floor: of which sha256 of that text (CPU s)", fmt(part("printHash"))],
    [
      `instead of that printer: shortest text of ${floors[0].values.toLocaleString("en-US")} values by one JSON.stringify per row (CPU s, not in the floor)`,
      fmt(part("format")),
    ],
    ["instead of printing: each value's text copied from its line (CPU s, not in the floor)", fmt(median(floors.map((f) => f.copy)))],
    ["floor, all (CPU s, one thread)", fmt(total)],
    ["floor on 2 cores at best (s)", fmt(total / 2)],
    ["minimal DuckDB job (s)", side(duck)],
    ["ours, whole job (s)", side(ours)],
    ["floor on 2 cores / minimal DuckDB", fmt(total / 2 / duckSeconds)],
    ["ours / minimal DuckDB", fmt(oursSeconds / duckSeconds)],
  ];
  process.stdout.write(
    `${updates} updates, ${archive.rows} rows, medians of ${reps}, ${os.cpus().length} cores, load average ${os.loadavg()[0].toFixed(2)} after\n\n`,
  );
  process.stdout.write(`${mdTable(["", "value"], rows)}\n`);
}

main().catch((e) => {
  process.stderr.write(`${(e as Error).stack ?? e}\n`);
  process.exit(1);
});
