/**
 * The floor of the 10^6-update export in V8, beside the minimal DuckDB job, in one run (issue 42):
 *   npx tsx bench/export-floor.ts [--updates 1000000] [--reps 3] [--work-dir bench/work]
 *
 * The export must at least hash the frozen files (sha256, the manifest's check), JSON.parse every
 * line (Node has no faster JSON reader than its own: a hand-written one was 1.6x slower) and print
 * every exported value in its shortest round-trip text (the CSV contract), then hash the CSVs. The
 * floor side does only that, one thread, with the fastest ways found (one JSON.stringify per row of
 * numbers), and reports each part's CPU seconds. Half of it is what two cores could do at best with
 * nothing else (no alignment, checks, records or writes). Beside it, the whole job (bench/analysis-ours.ts)
 * and the minimal DuckDB job (bench/analysis_duckdb_minimal.py), each its own process, sides in turn.
 */
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { parseArgs } from "node:util";

import { ensureAnalysisArchive } from "./analysis-data";
import { runChild, tsxCommand, VENV_PYTHON } from "./child";
import { fmt, mdTable, median, mib } from "./stats";

/** CPU seconds of each part of the floor (one thread). */
interface FloorReport {
  side: "floor";
  lines: number;
  values: number;
  cpu: { hash: number; parse: number; format: number; csvHash: number };
}

/** user + system CPU seconds since `from`. */
function cpuSince(from: NodeJS.CpuUsage): number {
  const c = process.cpuUsage(from);
  return (c.user + c.system) / 1e6;
}

/** The values of a parsed row a CSV cell holds (W&B bookkeeping `_*` keys are not exported), into `out`. */
function exportedValues(row: Record<string, unknown>, out: number[]): number {
  let n = 0;
  for (const k in row) {
    if (k.charCodeAt(0) === 95) continue;
    const v = row[k];
    out[n++] = typeof v === "number" ? v : 0;
  }
  out.length = n;
  return n;
}

/** Lines parsed, formatted and hashed at a time: few enough to die young, many enough that timing them costs nothing. */
const BATCH = 4096;

/** The floor side: hash, parse, format and hash the text, each timed on its own, a batch of lines at a time. */
function floorSide(archiveDir: string): FloorReport {
  const manifest = JSON.parse(readFileSync(path.join(archiveDir, "manifest.json"), "utf8")) as { runs: { file: string }[] };
  const cpu = { hash: 0, parse: 0, format: 0, csvHash: 0 };
  const count = { lines: 0, values: 0 };
  const csv = createHash("sha256");
  for (const run of manifest.runs) {
    const bytes = readFileSync(path.join(archiveDir, run.file));
    const t = process.cpuUsage();
    createHash("sha256").update(bytes).digest("hex");
    cpu.hash += cpuSince(t);
    const lines = bytes.toString("utf8").split("\n");
    for (let from = 0; from < lines.length; from += BATCH) floorBatch(lines.slice(from, from + BATCH), cpu, count, csv);
  }
  csv.digest("hex");
  return { side: "floor", ...count, cpu };
}

/** One batch of lines: parsed, each row's values printed as one JSON array, the texts hashed. */
function floorBatch(lines: string[], cpu: FloorReport["cpu"], count: { lines: number; values: number }, csv: ReturnType<typeof createHash>): void {
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
}

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
        `rep ${rep + 1}/${reps}: floor CPU ${fmt(f.hash + f.parse + f.format + f.csvHash)} s, ours ${fmt(ours[rep].seconds)} s, minimal DuckDB ${fmt(duck[rep].seconds)} s\n`,
      );
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  }
  const side = (r: SideReport[]) =>
    `${fmt(median(r.map((x) => x.seconds)))} (CPU ${fmt(median(r.map((x) => x.cpuSeconds)))} s, peak ${mib(median(r.map((x) => x.peakRssKb ?? 0)))} MiB)`;
  const part = (k: keyof FloorReport["cpu"]) => median(floors.map((f) => f.cpu[k]));
  const total = median(floors.map((f) => f.cpu.hash + f.cpu.parse + f.cpu.format + f.cpu.csvHash));
  const duckSeconds = median(duck.map((d) => d.seconds));
  const oursSeconds = median(ours.map((o) => o.seconds));
  const rows: (string | number)[][] = [
    ["floor: sha256 of the frozen files (CPU s)", fmt(part("hash"))],
    [`floor: JSON.parse of ${floors[0].lines.toLocaleString("en-US")} lines (CPU s)`, fmt(part("parse"))],
    [`floor: shortest text of ${floors[0].values.toLocaleString("en-US")} values (CPU s)`, fmt(part("format"))],
    ["floor: sha256 of that text (CPU s)", fmt(part("csvHash"))],
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
