import { test } from "node:test";
import assert from "node:assert/strict";

import type { AnalysisBenchResult } from "../../bench/analysis-bench";
import type { FetchBenchResult } from "../../bench/fetch-bench";
import { judgeTargets, renderResults, type BenchResults } from "../../bench/report";

function fetchResult(freeze: number, official: number, scan: number, raw: number, peakKb: number): FetchBenchResult {
  const side = (s: "ours-freeze" | "official" | "ours-scan" | "server-raw", sec: number) => ({
    side: s,
    medianSeconds: sec,
    medianWallSeconds: sec + 1,
    rowsPerSecond: 400_000 / sec,
    maxPeakRssKb: s === "ours-freeze" ? peakKb : 100_000,
  });
  return {
    rowsPerRun: 100_000,
    latencyMs: 0,
    runs: 4,
    totalRows: 400_000,
    reps: 1,
    frozenBytes: 200 * 2 ** 20,
    setupSeconds: 10,
    samples: (["ours-freeze", "official", "ours-scan", "server-raw"] as const).map((s, i) => ({
      side: s,
      rep: 0,
      rows: [100_000, 100_000, 100_000, 100_000],
      seconds: [freeze, official, scan, raw][i],
      wallSeconds: 1,
      peakRssKb: 1,
      bytes: null,
    })),
    sides: [side("ours-freeze", freeze), side("official", official), side("ours-scan", scan), side("server-raw", raw)],
    ratioFreeze: official / freeze,
    ratioScan: official / scan,
    ratioFreezeWall: 1,
    rowsAgree: true,
    wandbVersion: "0.21.0",
  };
}

function analysisResult(ours: number, pandas: number, differences: string[] = []): AnalysisBenchResult {
  return {
    updates: 1_000_000,
    rows: 2_550_000,
    archiveBytes: 2 ** 30,
    archiveWriteSeconds: 0,
    reps: 1,
    samples: [],
    differences,
    ratio: differences.length ? null : pandas / ours,
    medianPhases: { ours: { load: 1, align: 2, summaries: 1, export: ours - 4 }, pandas: { load: 1, align: 1, summaries: 1, export: pandas - 3 } },
    medianSeconds: { ours, pandas },
    maxPeakRssKb: { ours: 1024, pandas: 2048 },
    oursNote: null,
    oursNodeOptions: [],
    defaultHeapFailed: false,
  };
}

function results(over: Partial<BenchResults>): BenchResults {
  return {
    startedAt: "2026-06-01T00:00:00.000Z",
    command: "npm run bench",
    machine: {
      cpuModel: "Test CPU",
      cores: 2,
      memoryGiB: 8,
      os: "Linux",
      node: "v20",
      nodeDefaultHeapMiB: 4144,
      python: "3.11.7",
      wandb: "0.21.0",
      pandas: "3.1.1",
      numpy: "2.4.6",
      loadAverage: 0.5,
    },
    loadAverageEnd: 0.7,
    totalSeconds: 600,
    partSeconds: { "set-up": 6, fetch: 300, analysis: 294 },
    targetRows: 100_000,
    targetUpdates: 1_000_000,
    fetch: [],
    analysis: [],
    workspace: null,
    skipped: [],
    ...over,
  };
}

test("targets: met and not met are judged from the measured figures, with the reason", () => {
  const r = results({
    fetch: [fetchResult(10, 20, 5, 4, 300 * 1024)],
    analysis: [analysisResult(20, 30)],
    workspace: {
      skipped: null,
      reps: 1,
      wallSeconds: [42],
      medianWallSeconds: 42,
      notebooks: [{ path: "notebooks/01.ipynb", codeCells: 3, seconds: 20 }],
      failure: null,
    },
  });
  const t = judgeTargets(r);
  assert.deepEqual(
    t.map((x) => x.met),
    ["not met", "met", "not measured", "met", "not measured", "met", "not met"],
  );
  assert.match(t[0].measured, /^2\.00x/);
  assert.match(t[0].why, /freezing costs 5\.0 s over the bare scan/);
  assert.match(t[0].why, /no client can be more than 5\.0x faster/);
  assert.match(t[1].measured, /peak 300 MiB for 200 MiB frozen = 1\.50x/);
  assert.match(t[2].why, /DuckDB side not run/);
  assert.match(t[3].measured, /peak 0\.00 GiB in 20\.0 s \(Node's default heap, 4\.0 GiB\)/);
  assert.match(t[4].why, /needs two analysis sizes a decade apart/);
  assert.match(t[5].measured, /pandas\/ours = 1\.50 at 10\^6/);
  assert.match(t[6].why, /1 notebook; their times add up to 20\.0 s .*slowest notebooks\/01\.ipynb 20\.0 s/);
});

test("targets: an analysis that only runs with a raised heap does not meet the target", () => {
  const a = {
    ...analysisResult(20, 30),
    oursNodeOptions: ["--max-old-space-size=16384"],
    defaultHeapFailed: true,
    maxPeakRssKb: { ours: 8 * 2 ** 20, pandas: 1 },
  };
  const t = judgeTargets(results({ analysis: [a] }))[5];
  assert.equal(t.met, "not met");
  assert.match(t.measured, /ours with --max-old-space-size=16384/);
  assert.match(t.why, /default heap \(4\.0 GiB, what a tslab kernel gets\) it runs out of memory; peak RSS 8\.0 GiB/);
  const untried = judgeTargets(results({ analysis: [{ ...a, defaultHeapFailed: null }] }))[5];
  assert.match(untried.why, /not tried: --raised-heap was given/);
  // Older results without a default-heap record: the memory target is not judged on a raised heap.
  const memory = judgeTargets(results({ analysis: [{ ...a, defaultHeapFailed: null }] }))[3];
  assert.equal(memory.met, "not measured");
});

test("targets: DuckDB ratio, memory with the default heap, and scaling per decade", () => {
  const withDuckdb = (updates: number, ours: number, duckdb: number): AnalysisBenchResult => ({
    ...analysisResult(ours, ours),
    updates,
    sides: ["ours", "pandas", "duckdb"],
    oursOverDuckdb: ours / duckdb,
    medianSeconds: { ours, pandas: ours, duckdb },
    medianPhases: {
      ours: { load: 1, align: 2, summaries: 1, export: ours - 4 },
      pandas: { load: 1, align: 2, summaries: 1, export: ours - 4 },
      duckdb: { load: 1, align: 1, summaries: 0.5, export: duckdb - 2.5 },
    },
    maxPeakRssKb: { ours: 3 * 2 ** 20, pandas: 1, duckdb: 2 ** 20 },
    oursNodeOptions: updates >= 1_000_000 ? ["--max-old-space-size=16384"] : [],
    defaultHeap:
      updates >= 1_000_000
        ? { ok: false, seconds: null, peakRssKb: null, failure: "ran out of heap (JavaScript heap out of memory)", fromSamples: false }
        : null,
  });
  const t = judgeTargets(results({ analysis: [withDuckdb(100_000, 4, 1), withDuckdb(1_000_000, 50, 10)] }));
  const [duck, memory, scaling, pandas] = t.slice(2, 6);
  // 50 s vs 10 s: 5x DuckDB's time, not within 2x.
  assert.equal(duck.met, "not met");
  assert.match(duck.measured, /^ours\/duckdb = 5\.00 \(50\.0 s vs 10\.0 s, median of 1 paired\), ours with --max-old-space-size=16384/);
  assert.match(duck.why, /largest gap in phase "export": ours 46\.0 s vs duckdb 7\.5 s; peak ours 3072 MiB vs DuckDB 1024 MiB/);
  // The default-heap run failed: not met, whatever the raised-heap run's peak was.
  assert.equal(memory.met, "not met");
  assert.match(memory.measured, /failed with Node's default heap, 4\.0 GiB/);
  assert.match(memory.why, /ran out of heap/);
  // 4 s -> 50 s is 12.5x per decade.
  assert.equal(scaling.met, "not met");
  assert.match(scaling.measured, /^10\^5 -> 10\^6: 12\.5x \(4\.0 s -> 50\.0 s, 10\^6 with --max-old-space-size=16384\); 10\^7 not run$/);
  assert.match(scaling.why, /phase "export" 0\.0 s -> 46\.0 s/);
  // Equal times with pandas at every size, but 10^6 needed a raised heap.
  assert.equal(pandas.met, "not met");
  assert.match(pandas.measured, /pandas\/ours = 1\.00 at 10\^5, 1\.00 at 10\^6 \(ours with/);
  assert.doesNotMatch(pandas.why, /10\^5:/);
  const good = judgeTargets(
    results({
      analysis: [
        { ...withDuckdb(100_000, 4, 1), defaultHeap: null },
        {
          ...withDuckdb(1_000_000, 19, 10),
          oursNodeOptions: [],
          defaultHeap: { ok: true, seconds: 19, peakRssKb: 1.5 * 2 ** 20, failure: null, fromSamples: true },
        },
      ],
    }),
  );
  assert.deepEqual(
    good.slice(2, 6).map((x) => x.met),
    ["met", "met", "met", "met"],
  );
  assert.match(good[3].measured, /peak 1\.50 GiB in 19\.0 s \(Node's default heap, 4\.0 GiB\)$/);
});

test("targets: not measured when a part was skipped or outputs differ", () => {
  const t = judgeTargets(results({ analysis: [analysisResult(20, 30, ["rep 1 summary $.n: 2 vs 3"])], workspace: null }));
  assert.deepEqual(
    t.map((x) => x.met),
    ["not measured", "not measured", "not measured", "met", "not measured", "not measured", "not measured"],
  );
  assert.match(t[5].why, /\$\.n: 2 vs 3/);
});

test("renderResults: machine table, targets and the measured tables", () => {
  const remote = { ...fetchResult(10, 50, 9, 8, 100 * 1024), latencyMs: 100 };
  const text = renderResults(results({ fetch: [fetchResult(5, 20, 4, 2, 100 * 1024), remote], analysis: [analysisResult(40, 30)] }));
  assert.match(text, /\| \(same, with 100 ms per page like a remote server\) \| 5\.00x \(median of 1 paired runs\); scan alone 5\.56x \| met \|/);
  assert.match(text, /^# Benchmark results/);
  assert.match(text, /Time per part: set-up 0\.1 min, fetch 5\.0 min, analysis 4\.9 min\./);
  assert.match(text, /\| CPU \| Test CPU \|/);
  assert.match(text, /\| pandas \/ numpy \| 3\.1\.1 \/ 2\.4\.6 \|/);
  assert.match(text, /\| fetch >= 3x faster than the official client \(its HistoryPage path\) at 10\^5 rows per run \| 4\.00x/);
  assert.match(text, /\| 4 x 100,000 \| ours: fetchAndFreeze \(default settings\) \| 5\.00 \|/);
  assert.match(text, /\| 4 x 100,000 \(\+100 ms\/page\) \| ours: fetchAndFreeze/);
  assert.match(text, /\| 10\^6 \| 2,550,000 \| 1024 \| 1 \| yes \| 40\.00 \| 30\.00 \| - \| - \| - \| 0\.75 \| - \| - \| - \|/);
  assert.match(text, /\| 10\^6 \| 1\.00 \/ 1\.00 \/ - \/ - \| 2\.00 \/ 1\.00 \/ - \/ - \|/);
  assert.match(text, /largest gap in phase "export": ours 36\.0 s vs pandas 27\.0 s/);
  assert.doesNotMatch(text, /\n\n\n/);
});

test("renderResults: a size ours ran alone is not called equal, and a load the bench made itself is not blamed on others", () => {
  const alone: AnalysisBenchResult = {
    ...analysisResult(40, 30),
    updates: 10_000_000,
    ratio: null,
    medianSeconds: { ours: 400 },
    medianPhases: { ours: { load: 100, align: 100, summaries: 20, export: 180 } },
    maxPeakRssKb: { ours: 1024 },
  };
  const text = renderResults(results({ analysis: [analysisResult(40, 30), alone], loadAverageEnd: 2.5 }));
  assert.match(text, /\| 10\^6 \| 2,550,000 \| 1024 \| 1 \| yes \|/);
  assert.match(text, /\| 10\^7 \| 2,550,000 \| 1024 \| 1 \| - \(ours alone\) \| 400\.00 \| - \| - \|/);
  assert.match(text, /load average after exceeded the core count; it was below it before the start/);
  assert.doesNotMatch(text, /other processes shared the CPUs/);
  const busy = renderResults(results({ machine: { ...results({}).machine, loadAverage: 3 } }));
  assert.match(busy, /exceeded the core count before the bench started: other processes shared the CPUs/);
});

test("targets: the minimal DuckDB job, judged on time and a 1 GiB peak only where it ran", () => {
  const withMinimal = (ours: number, minimal: number, peakMiB: number): AnalysisBenchResult => ({
    ...analysisResult(ours, ours),
    updates: 1_000_000,
    sides: ["ours", "duckdb-minimal"],
    oursOverDuckdbMinimal: ours / minimal,
    medianSeconds: { ours, "duckdb-minimal": minimal },
    medianPhases: {
      ours: { load: 1, align: 2, summaries: 1, export: ours - 4 },
      "duckdb-minimal": { load: 1, align: 1, summaries: 0, export: minimal - 2 },
    },
    maxPeakRssKb: { ours: peakMiB * 1024, "duckdb-minimal": 2048 * 1024 },
  });
  const row = (a: AnalysisBenchResult) => judgeTargets(results({ analysis: [a] })).find((t) => /minimal DuckDB/.test(t.target));
  const slow = row(withMinimal(12, 6, 900))!;
  assert.equal(slow.met, "not met");
  assert.match(slow.measured, /^ours\/minimal = 2\.00 \(12\.0 s vs 6\.0 s, median of 1 paired\); peak ours 900 MiB, minimal DuckDB 2048 MiB$/);
  assert.match(slow.why, /largest gap in phase "export": ours 8\.0 s vs duckdb-minimal 4\.0 s/);
  assert.equal(row(withMinimal(6, 6, 1024))!.met, "met");
  const big = row(withMinimal(5, 6, 1100))!;
  assert.equal(big.met, "not met");
  assert.match(big.why, /^peak 1100 MiB over 1024 MiB$/);
  assert.equal(row(analysisResult(20, 30)), undefined);
  // With the export alone measured (npm run export's job), the target is judged on it, the full job said beside it.
  const withExport = (ours: number, alone: number, minimal: number, peakMiB: number): AnalysisBenchResult => {
    const a = withMinimal(ours, minimal, 950);
    return {
      ...a,
      sides: ["ours", "ours-export", "duckdb-minimal"],
      oursExportOverDuckdbMinimal: alone / minimal,
      medianSeconds: { ...a.medianSeconds, "ours-export": alone },
      maxPeakRssKb: { ...a.maxPeakRssKb, "ours-export": peakMiB * 1024 },
    };
  };
  const alone = row(withExport(9, 8, 8, 900))!;
  assert.equal(alone.met, "met", "the full job (9 s) is slower, the export alone (8 s) is not");
  assert.equal(
    alone.measured,
    "export alone/minimal = 1.00 (8.0 s vs 8.0 s, median of 1 paired); full job with the notebook summaries/minimal = 1.13 (9.0 s); peak export alone 900 MiB, full job 950 MiB, minimal DuckDB 2048 MiB",
  );
  assert.equal(row(withExport(8, 9, 8, 900))!.met, "not met", "the export alone slower: not met, however fast the full job");
  assert.match(row(withExport(8, 7, 8, 1100))!.why, /^peak 1100 MiB over 1024 MiB$/);
});
