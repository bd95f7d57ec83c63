/**
 * The parquet path freezes the same bytes as the paged path: every fixture run is frozen by
 * `HistoryPage` windows alone, then from exported parquet files (whole, split over files, and with a
 * live tail paged after the exports), and the history files, hashes and dropped-key counts must be
 * identical; only the manifest's `historyPath` differs (and is absent on the paged path).
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { after, before, test } from "node:test";

import { startWandbTestServer, type WandbTestServer } from "../../tools/wandb-test-server/server";
import { fetchAndFreeze, type FetchAndFreezeOptions } from "../../lib/archive/fetch-and-freeze";
import { serializeFrozenRow } from "../../lib/values/frozen-row";
import type { SourceManifest } from "../../lib/types";
import { benchRunSet, generateRun, pyJsonRow, rolloutsForRows } from "../../bench/slime-history";
import { SAMPLE_ARCHIVE } from "../reliability/sample-archive";

const KEY = "parquet-freeze-key-".padEnd(40, "0");
let server: WandbTestServer;
const root = fs.mkdtempSync(path.join(os.tmpdir(), "freeze-parquet-"));
let n = 0;

/** Fixture runs: id -> rows (raw JSON text as W&B stores it, or objects). */
const FIXTURES: Record<string, Array<string | Record<string, unknown>>> = {
  // Non-finite tokens and markers, null (stands for NaN), strings, media, float steps, big and tiny numbers.
  tokens: [
    '{"_step": 0, "_runtime": 1.5, "_timestamp": 1714564800.5, "train/loss": NaN, "rollout/step": 0, "img": {"_type": "image-file", "path": "media/x.png"}}',
    '{"_step": 1.0, "_runtime": 2.25, "_timestamp": 1714564801.25, "train/loss": 0.125, "note": "hi", "gn": Infinity, "neg": -Infinity}',
    '{"_step": 3, "b": null, "a": 1e-05, "c": 12.0, "big": 1e+21, "s": "NaN", "t": "-Infinity", "flag": true}',
    '{"_step": 4, "note": "1.5", "a": -0.0, "c": 5e-324, "d": 1.7976931348623157e+308}',
  ],
  // Sparse keys: most rows lack most keys (parquet gives null there; they must stay absent).
  sparse: Array.from({ length: 1200 }, (_, i) => {
    const row: Record<string, unknown> = { _step: i };
    if (i % 2 === 0) row.even = i / 7;
    if (i % 3 === 0) row["train/grad_norm"] = i % 9 === 0 ? NaN : 1 / (i + 1);
    if (i % 250 === 5) row.rare = -i;
    return row;
  }),
  // A resumed round: first step is not 0 (W&B #12067 gave 0 rows here), with gaps.
  late: Array.from({ length: 900 }, (_, i) => ({ _step: 160_000 + i * 3, v: i * 0.25, ...(i % 4 === 0 ? { w: i } : {}) })),
  // Slime-shaped rows as the Python SDK writes them (bare NaN in ~1% of rows).
  slime: (() => {
    const set = benchRunSet(1, rolloutsForRows(1500), 7, "fx", 1500);
    const rows: string[] = [];
    generateRun(set.runs[0].spec, (row) => rows.push(pyJsonRow(row)));
    return rows;
  })(),
  empty: [],
};

/** The bundled sample's runs, re-served from their frozen rows. */
function sampleFixtures(): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  const manifest = JSON.parse(fs.readFileSync(path.join(SAMPLE_ARCHIVE, "manifest.json"), "utf8")) as SourceManifest;
  for (const run of manifest.runs.slice(0, 2)) {
    const text = fs.readFileSync(path.join(SAMPLE_ARCHIVE, run.file), "utf8");
    // Frozen rows hold "NaN" strings: W&B rows would hold the bare token, which the server keeps as text.
    out[`sample-${run.runId}`] = text
      .trimEnd()
      .split("\n")
      .map((l) => l.replace(/"(NaN|-?Infinity)"/g, "$1"));
  }
  return out;
}

before(async () => {
  server = await startWandbTestServer({ apiKey: KEY });
  for (const [runId, rows] of Object.entries({ ...FIXTURES, ...sampleFixtures() })) server.addRun({ entity: "e", project: "p", runId, rows });
});
after(async () => {
  await server.close();
  fs.rmSync(root, { recursive: true, force: true });
});

function opts(runIds: string[], extra: Partial<FetchAndFreezeOptions> = {}): FetchAndFreezeOptions {
  return {
    entity: "e",
    project: "p",
    runs: runIds.map((runId, i) => ({ runId, round: `R${i}` })),
    outDir: path.join(root, `w${n++}`, "archive"),
    baseUrl: server.url,
    apiKey: KEY,
    env: {},
    now: () => new Date("2025-01-02T03:04:05.000Z"),
    retry: { random: () => 0, sleep: async () => undefined },
    ...extra,
  };
}

/** History files of an archive (relative path -> text). */
function historyFiles(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const f of fs.readdirSync(path.join(dir, "history")).sort()) out[f] = fs.readFileSync(path.join(dir, "history", f), "utf8");
  return out;
}

const EXPORT_SETTINGS = [
  { label: "one file, everything exported", lagSteps: 0, filesPerRun: 1, rowGroupSize: 10_000 },
  { label: "three files, small row groups", lagSteps: 0, filesPerRun: 3, rowGroupSize: 64 },
  { label: "exports lag 100 steps: live tail paged", lagSteps: 100, filesPerRun: 2, rowGroupSize: 500 },
];

test("parquet path freezes byte-identical files, hashes and dropped keys on every fixture", async () => {
  const runIds = Object.keys({ ...FIXTURES, ...sampleFixtures() });
  server.setParquetExports({ enabled: false });
  const pagesOpts = opts(runIds);
  const paged = await fetchAndFreeze({ ...pagesOpts, historyPath: "pages" });
  const pagedFiles = historyFiles(pagesOpts.outDir);
  assert.ok(paged.runs.every((r) => r.historyPath === undefined));
  for (const setting of EXPORT_SETTINGS) {
    server.setParquetExports({ enabled: true, lagSteps: setting.lagSteps, filesPerRun: setting.filesPerRun, rowGroupSize: setting.rowGroupSize });
    const o = opts(runIds);
    const frozen = await fetchAndFreeze(o);
    assert.deepEqual(historyFiles(o.outDir), pagedFiles, setting.label);
    frozen.runs.forEach((r, i) => {
      const { historyPath, ...rest } = r;
      assert.deepEqual(rest, paged.runs[i], `${setting.label}: manifest run ${r.runId}`);
      // Hand rule of the server's export lag: rows with _step > lastStep - lag are live.
      const steps = pagedFiles[`${r.runId}.jsonl`]
        .trimEnd()
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l)._step as number);
      const live = steps.filter((s) => s > r.lastStep - setting.lagSteps).length;
      const expected = live === steps.length ? undefined : live > 0 ? "parquet+pages" : "parquet";
      assert.equal(historyPath, expected, `${setting.label}: historyPath of ${r.runId}`);
    });
  }
  server.setParquetExports({ enabled: false });
});

test("absent keys stay absent and NaN stays NaN on the parquet path (hand-checked rows)", async () => {
  server.setParquetExports({ enabled: true, lagSteps: 0, filesPerRun: 1 });
  const o = opts(["tokens"]);
  await fetchAndFreeze({ ...o, historyPath: "parquet" });
  assert.equal(
    fs.readFileSync(path.join(o.outDir, "history/tokens.jsonl"), "utf8"),
    [
      '{"_runtime":1.5,"_step":0,"_timestamp":1714564800.5,"rollout/step":0,"train/loss":"NaN"}',
      '{"_runtime":2.25,"_step":1,"_timestamp":1714564801.25,"gn":"Infinity","neg":"-Infinity","train/loss":0.125}',
      '{"_step":3,"a":0.00001,"b":"NaN","big":1e+21,"c":12,"s":"NaN","t":"-Infinity"}',
      '{"_step":4,"a":0,"c":5e-324,"d":1.7976931348623157e+308}',
      "",
    ].join("\n"),
  );
  const manifest = JSON.parse(fs.readFileSync(path.join(o.outDir, "manifest.json"), "utf8")) as SourceManifest;
  assert.deepEqual(manifest.runs[0].droppedKeys, { flag: 1, img: 1, note: 2 });
  assert.equal(manifest.runs[0].historyPath, "parquet");
  assert.equal(serializeFrozenRow({ _step: 4, a: -0 }), '{"_step":4,"a":0}');
  server.setParquetExports({ enabled: false });
});

test("pages path leaves the manifest without historyPath (the sample archive's bytes do not change)", async () => {
  const o = opts(["late"]);
  await fetchAndFreeze(o);
  assert.doesNotMatch(fs.readFileSync(path.join(o.outDir, "manifest.json"), "utf8"), /historyPath/);
});
