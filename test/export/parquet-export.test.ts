import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

import { csvText, type ExportTable } from "../../lib/export/csv-text";
import type { ExportManifest } from "../../lib/export/export-manifest";
import { parquetBytes, parquetCreatedBy, parquetFiles } from "../../lib/export/parquet-file";
import { writeExports } from "../../lib/export/write-exports";

const ROOT = path.resolve(__dirname, "../..");
const DATA = path.join(ROOT, "data", "wandb");
const PYTHON = path.join(ROOT, ".venv", "bin", "python");
const READ_BACK = path.join(__dirname, "parquet_vs_csv.py");

/** Why DuckDB cannot read here, or null when it can (the project venv with requirements-bench.txt). */
function duckdbMissing(): string | null {
  if (!fs.existsSync(PYTHON)) return "no project venv (.venv): run scripts/setup.sh";
  const r = spawnSync(PYTHON, ["-c", "import duckdb"], { encoding: "utf8" });
  return r.status === 0 ? null : "Python duckdb is not installed in .venv (pip install -r requirements-bench.txt)";
}

interface ReadBack {
  rows: number;
  /** [name, DuckDB type] in the order DuckDB reads them. */
  columns: [string, string][];
  createdBy: string[];
  mismatches: unknown[];
  mismatchCount: number;
}

/** DuckDB's reading of `parquet` (a file or a glob) compared cell by cell with `csv`. */
function readBack(csv: string, parquet: string, layout: "flat" | "hive"): ReadBack {
  const r = spawnSync(PYTHON, [READ_BACK, csv, parquet, layout], { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout) as ReadBack;
}

/** DuckDB type of a column read back. */
function typeOf(got: ReadBack, column: string): string | undefined {
  return got.columns.find(([name]) => name === column)?.[1];
}

function tempDir(t: { after: (fn: () => void) => void }, prefix: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

const sha256 = (p: string): string => createHash("sha256").update(fs.readFileSync(p)).digest("hex");

for (const layout of ["flat", "hive"] as const) {
  test(`sample exports as Parquet (${layout}): DuckDB reads every cell of the CSVs back, typed; the manifest hashes each file`, async (t) => {
    const missing = duckdbMissing();
    if (missing) return t.skip(missing);
    const out = tempDir(t, `parquet-${layout}-`);
    const result = await writeExports({ dataDir: DATA, outDir: out, parquet: { layout } });
    const manifest = JSON.parse(fs.readFileSync(path.join(out, "manifest.json"), "utf8")) as ExportManifest;
    for (const table of ["rollouts", "updates"]) {
      const csv = path.join(out, `${table}.csv`);
      const glob = layout === "flat" ? path.join(out, `${table}.parquet`) : path.join(out, table, "*", "*.parquet");
      const got = readBack(csv, glob, layout);
      const csvEntry = manifest.files.find((f) => f.name === `${table}.csv`)!;
      assert.equal(got.mismatchCount, 0, `${table}: ${JSON.stringify(got.mismatches)}`);
      assert.equal(got.rows, csvEntry.rows, `${table}: every row`);
      assert.deepEqual(got.columns.map(([name]) => name).sort(), [...csvEntry.columns].sort(), `${table}: the CSV's columns (hive: round from the path)`);
      assert.equal(typeOf(got, "round"), "VARCHAR");
      assert.equal(typeOf(got, "run_id"), "VARCHAR");
      assert.equal(typeOf(got, table === "updates" ? "update" : "rollout"), "BIGINT");
      assert.equal(typeOf(got, table === "updates" ? "train/grad_norm" : "rollout/kl"), "DOUBLE");
      assert.deepEqual(got.createdBy, [parquetCreatedBy(manifest.workspaceVersion)], "created_by set, no writer build string");
      const entries = manifest.files.filter((f) => f.name.startsWith(layout === "flat" ? `${table}.parquet` : `${table}/`));
      assert.equal(entries.length, layout === "flat" ? 1 : 4, "one file, or one per round");
      assert.equal(
        entries.reduce((s, e) => s + e.rows, 0),
        csvEntry.rows,
      );
      for (const e of entries) {
        assert.equal(e.sha256, sha256(path.join(out, e.name)), `${e.name}: sha256 in the manifest`);
        assert.equal(e.bytes, fs.statSync(path.join(out, e.name)).size);
        if (layout === "hive") {
          assert.match(e.name, new RegExp(`^${table}/round=R[0-3]/part-0\\.parquet$`));
          assert.ok(!e.columns.includes("round"), "hive files leave round to the path");
        } else assert.deepEqual(e.columns, csvEntry.columns);
      }
    }
    assert.deepEqual(
      result.files.map((f) => f.name).slice(0, 5),
      ["rollouts.csv", "updates.csv", "summary.csv", "superseded.csv", "health.csv"],
      "CSVs first, then Parquet",
    );
  });
}

test("Parquet exports are byte-reproducible, and a CSV-only export removes them and lists none", async (t) => {
  const a = tempDir(t, "parquet-a-");
  const b = tempDir(t, "parquet-b-");
  await writeExports({ dataDir: DATA, outDir: a, parquet: { layout: "hive" } });
  await writeExports({ dataDir: DATA, outDir: b, parquet: { layout: "hive" } });
  const files = (dir: string): string[] => (fs.readdirSync(dir, { recursive: true }) as string[]).filter((f) => f.endsWith(".parquet")).sort();
  assert.equal(files(a).length, 8);
  assert.deepEqual(files(a), files(b));
  for (const f of files(a)) assert.ok(fs.readFileSync(path.join(a, f)).equals(fs.readFileSync(path.join(b, f))), `${f}: same bytes`);
  assert.equal(fs.readFileSync(path.join(a, "manifest.json"), "utf8"), fs.readFileSync(path.join(b, "manifest.json"), "utf8"));

  // Flat over hive: the round folders go; CSV only over flat: the Parquet files go, the manifest is the committed one.
  await writeExports({ dataDir: DATA, outDir: a, parquet: { layout: "flat" } });
  assert.deepEqual(files(a), ["rollouts.parquet", "updates.parquet"]);
  fs.mkdirSync(path.join(a, "notebooks"));
  await writeExports({ dataDir: DATA, outDir: a });
  assert.deepEqual(files(a), []);
  assert.ok(fs.existsSync(path.join(a, "notebooks")), "other folders stay");
  assert.equal(fs.readFileSync(path.join(a, "manifest.json"), "utf8"), fs.readFileSync(path.join(ROOT, "exports", "manifest.json"), "utf8"));
});

test("a hand-made table: NaN, ±Infinity, nulls, extreme doubles and non-ASCII text read back exactly", (t) => {
  const missing = duckdbMissing();
  if (missing) return t.skip(missing);
  const dir = tempDir(t, "parquet-cells-");
  const table: ExportTable = {
    name: "updates.csv",
    columns: ["round", "run_id", "update", "train/x", "0", 'train/y, "quoted"'],
    rows: [
      ["R0", "run-é", 1, NaN, 1e-7, null],
      ["R0", "run,2", 2, Infinity, 5e-324, 0.1 + 0.2],
      ["R1", 'run"3', 3, -Infinity, 1.7976931348623157e308, -2.5],
      ["R1", "r4", 4, null, null, 123456789012345],
    ],
  };
  fs.writeFileSync(path.join(dir, "t.csv"), csvText(table));
  fs.writeFileSync(path.join(dir, "t.parquet"), parquetBytes(table, "test"));
  const got = readBack(path.join(dir, "t.csv"), path.join(dir, "t.parquet"), "flat");
  assert.equal(got.mismatchCount, 0, JSON.stringify(got.mismatches));
  assert.deepEqual(
    got.columns.map(([name]) => name),
    table.columns,
    "column order kept, even for a name that looks like an index",
  );
  assert.equal(typeOf(got, "0"), "DOUBLE");
  const hive = parquetFiles(table, "hive", "test");
  assert.deepEqual(
    hive.map((f) => [f.name, f.rows]),
    [
      ["updates/round=R0/part-0.parquet", 2],
      ["updates/round=R1/part-0.parquet", 2],
    ],
  );
});

test("what does not fit is refused, naming the table, row and column; a hive layout needs path-safe round labels", () => {
  const base = { name: "updates.csv", columns: ["round", "run_id", "update", "train/x"] };
  assert.throws(() => parquetBytes({ ...base, rows: [["R0", "a", 1.5, 1]] }, "t"), {
    message: "invalid cell of updates.csv: data row 1, column update: 1.5 is not a int64 value",
  });
  assert.throws(() => parquetBytes({ ...base, rows: [["R0", "a", 1, "x"]] }, "t"), {
    message: 'invalid cell of updates.csv: data row 1, column train/x: "x" is not a float64 value',
  });
  assert.throws(() => parquetFiles({ ...base, rows: [["R/0", "a", 1, 1]] }, "hive", "t"), {
    message: 'invalid round for the hive layout: "R/0" (letters, digits, ".", "_" and "-" only)',
  });
  assert.equal(parquetFiles({ ...base, rows: [] }, "hive", "t").length, 0, "no rows, no partition");
});

test("npm run export: --format and --layout are checked; csv,parquet lists the Parquet files", (t) => {
  const run = (args: string[]) =>
    spawnSync(process.execPath, ["--import", "tsx", path.join(ROOT, "scripts/export.ts"), ...args], { cwd: ROOT, encoding: "utf8" });
  const out = tempDir(t, "parquet-cli-");
  for (const [args, message] of [
    [["--format", "parquet"], "invalid --format: parquet (csv or csv,parquet: the CSVs and the manifest are always written)"],
    [["--format", "csv,json"], "invalid --format: csv,json (csv or csv,parquet: the CSVs and the manifest are always written)"],
    [["--format", "csv,parquet", "--layout", "tree"], "invalid --layout: tree (flat or hive)"],
    [["--layout", "hive"], "invalid --layout: hive (a layout of Parquet files: add --format csv,parquet)"],
  ] as const) {
    const r = run(["--out", out, ...args]);
    assert.equal(r.status, 2, `${args.join(" ")}: exit 2`);
    assert.equal(r.stderr.split("\n")[0], `export: ${message}`);
  }
  assert.deepEqual(fs.readdirSync(out), [], "nothing written on an option error");
  const r = run(["--out", out, "--format", "csv,parquet", "--layout", "hive"]);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /^wrote 14 files into /);
  assert.match(r.stdout, /\n {2}updates\/round=R3\/part-0\.parquet {2}40 rows x 15 columns {2}sha256 [0-9a-f]{64}\n/);
});
