/**
 * rollouts.csv and updates.csv printed run by run while the archive aligns (lib/export/early-record-csv.ts):
 * the same bytes as printed after alignment, taken only when nothing makes them differ, and given up
 * (the files then written as before) on a new key, records out of order, a worker that cannot start,
 * or columns that are not the finished table's; nothing left behind, whatever happens.
 */
import { type TestContext, test } from "node:test";
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

import type { RunRecords } from "../../lib/align/align-options";
import { alignRuns } from "../../lib/align/align-runs";
import { loadArchive } from "../../lib/archive/load-archive";
import { PREBUILT_WORKERS } from "../../lib/archive/worker-code";
import { csvByteChunks } from "../../lib/export/csv-text";
import { EarlyRecordCsvs } from "../../lib/export/early-record-csv";
import { defaultHealthParams } from "../../lib/health/health-params";
import { rolloutsTable, updatesTable } from "../../lib/export/record-tables";
import { writeExports } from "../../lib/export/write-exports";
import type { AxisRecord, UpdateRecord } from "../../lib/types";
import { ValuesArena } from "../../lib/values/compact-values";
import { ValuesBuilder } from "../../lib/values/values-builder";

const DATA = path.resolve(__dirname, "../../data/wandb");
const EXPORT_FILES = ["rollouts.csv", "updates.csv", "summary.csv", "superseded.csv", "health.csv", "manifest.json"];

function tempDir(t: TestContext, prefix: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A table's CSV bytes as printed after alignment, on this thread. */
function printed(table: ReturnType<typeof rolloutsTable>): Buffer {
  return Buffer.concat([...csvByteChunks(table)].map((c) => (typeof c === "string" ? Buffer.from(c) : Buffer.from(c))));
}

test("the sample's record tables printed run by run while aligning are the bytes printed after it, and the folder goes with dispose", async (t) => {
  const out = tempDir(t, "early-");
  const early = new EarlyRecordCsvs(out, 0);
  t.after(() => early.dispose());
  const archive = await loadArchive(DATA, {}, { compact: true });
  const runs: string[] = [];
  const aligned = alignRuns(archive.runs, {
    compact: true,
    onRunRecords: (run) => {
      runs.push(`${run.runId}:${run.updatesFrom}-${run.updates.length}`);
      early.onRun(run);
    },
  });
  assert.equal(runs.length, archive.runs.length, "told once per run");
  assert.equal(runs.at(-1)!.split("-").at(-1), String(aligned.updates.length), "the last run ends at the last update");
  for (const table of [rolloutsTable(aligned), updatesTable(aligned)]) {
    assert.equal(early.has(table.name), true, table.name);
    const taken = await early.take(table.name, table.columns);
    assert.notEqual(taken, null, table.name);
    const bytes = fs.readFileSync(taken!.file);
    assert.ok(bytes.equals(printed(table)), `${table.name}: the bytes printed after alignment`);
    assert.equal(taken!.bytes, bytes.length);
  }
  await early.dispose();
  assert.deepEqual(fs.readdirSync(out), [], "its folder removed, the export folder (there before) kept");
});

test("by default (auto) the sample is too small to print while aligning: no worker starts and no folder is made", async (t) => {
  const root = tempDir(t, "early-auto-");
  const out = path.join(root, "not-yet");
  const early = new EarlyRecordCsvs(out);
  t.after(() => early.dispose());
  const archive = await loadArchive(DATA, {}, { compact: true });
  alignRuns(archive.runs, { compact: true, onRunRecords: (run) => early.onRun(run) });
  assert.equal(early.has("rollouts.csv"), false);
  assert.equal(early.has("updates.csv"), false);
  assert.equal(fs.existsSync(out), false, "nothing made");
});

test("writeExports printing while aligning writes the files and results it writes without, and leaves no folder of its own", async (t) => {
  const never = tempDir(t, "early-never-");
  const always = tempDir(t, "early-always-");
  const a = await writeExports({ dataDir: DATA, outDir: never, printWhileAligning: "never" });
  const b = await writeExports({ dataDir: DATA, outDir: always, printWhileAligning: "always" });
  assert.deepEqual(b, { ...a, outDir: always });
  for (const name of EXPORT_FILES) assert.ok(fs.readFileSync(path.join(always, name)).equals(fs.readFileSync(path.join(never, name))), name);
  assert.deepEqual(fs.readdirSync(always).sort(), [...EXPORT_FILES].sort(), "no early or staging folder left");
  await assert.rejects(writeExports({ dataDir: DATA, outDir: always, printWhileAligning: "sometimes" as "auto" }), {
    message: 'invalid printWhileAligning: "sometimes" (auto, always or never)',
  });
});

test("a refused export that printed while aligning leaves the export folder as it was, and does not make a missing one", async (t) => {
  const root = tempDir(t, "early-refused-");
  const missing = path.join(root, "not-yet");
  const defaults = defaultHealthParams();
  const bad = { ...defaults, entropy_collapse: { ...defaults.entropy_collapse, sudden: -1 } };
  await assert.rejects(writeExports({ dataDir: DATA, outDir: missing, printWhileAligning: "always", health: bad }), /invalid entropy_collapse\.sudden/);
  assert.equal(fs.existsSync(missing), false, "not made");
  const kept = path.join(root, "kept");
  fs.mkdirSync(kept);
  fs.writeFileSync(path.join(kept, "notes.txt"), "mine");
  await assert.rejects(writeExports({ dataDir: DATA, outDir: kept, printWhileAligning: "always", health: bad }), /invalid entropy_collapse\.sudden/);
  assert.deepEqual(fs.readdirSync(kept), ["notes.txt"]);
});

/** Rollout and update records of compact views in a shared arena, one per rollout id (keys `keys`). */
function records(runId: string, rollouts: number[], keys: string[]): { rollouts: AxisRecord[]; updates: UpdateRecord[] } {
  const vb = new ValuesBuilder(new ValuesArena({ shared: true }));
  const values = (x: number) => {
    vb.reset();
    for (const k of keys) vb.push(k, x);
    return vb.build();
  };
  return {
    rollouts: rollouts.map((r) => ({ runId, round: runId, rollout: r, historySteps: [r], values: values(r) })),
    updates: rollouts.map((r) => ({ runId, round: runId, trainStep: r, update: r + 1, rollout: r, updateInRollout: 0, historyStep: r, values: values(r) })),
  };
}

/** Tells `early` the runs' records, each appended to one list as the aligner does. */
function tell(early: EarlyRecordCsvs, runs: { runId: string; rollouts: AxisRecord[]; updates: UpdateRecord[] }[]): void {
  const rollouts: AxisRecord[] = [];
  const updates: UpdateRecord[] = [];
  for (const run of runs) {
    const told: RunRecords = { runId: run.runId, rollouts, rolloutsFrom: rollouts.length, updates, updatesFrom: updates.length };
    rollouts.push(...run.rollouts);
    updates.push(...run.updates);
    early.onRun(told);
  }
}

test("a later run with another key, records out of order, or other columns at the end: the file is given up", async (t) => {
  const cases: [string, { runId: string; rollouts: AxisRecord[]; updates: UpdateRecord[] }[], string[] | null][] = [
    [
      "same keys, in order (taken)",
      [
        { runId: "a", ...records("a", [0, 1], ["k"]) },
        { runId: "b", ...records("b", [2, 3], ["k"]) },
      ],
      null,
    ],
    [
      "another key in a later run",
      [
        { runId: "a", ...records("a", [0, 1], ["k"]) },
        { runId: "b", ...records("b", [2, 3], ["k", "z"]) },
      ],
      null,
    ],
    [
      "out of order",
      [
        { runId: "a", ...records("a", [0, 5], ["k"]) },
        { runId: "b", ...records("b", [2, 3], ["k"]) },
      ],
      null,
    ],
    ["other columns at the end", [{ runId: "a", ...records("a", [0, 1], ["k"]) }], ["round", "run_id", "rollout", "k", "j"]],
  ];
  for (const [what, runs, columns] of cases) {
    const out = tempDir(t, "early-cases-");
    const early = new EarlyRecordCsvs(out, 0);
    // Its worker stopped even when an assertion fails (a live worker keeps the test process running).
    t.after(() => early.dispose());
    tell(early, runs);
    const taken = await early.take("rollouts.csv", columns ?? ["round", "run_id", "rollout", "k"]);
    if (what.endsWith("(taken)")) {
      assert.notEqual(taken, null, what);
      assert.equal(fs.readFileSync(taken!.file, "utf8"), "round,run_id,rollout,k\na,a,0,0\na,a,1,1\nb,b,2,2\nb,b,3,3\n", what);
    } else {
      assert.equal(taken, null, what);
      assert.equal(early.has("rollouts.csv"), false, what);
    }
    await early.dispose();
    assert.deepEqual(fs.readdirSync(out), [], what);
  }
});

test("a worker that cannot start: nothing is printed early and the export writes the same files", async (t) => {
  const out = tempDir(t, "early-noworker-");
  const g = globalThis as { [PREBUILT_WORKERS]?: Record<string, string> };
  g[PREBUILT_WORKERS] = { "csv-worker": path.join(out, "no-such-csv-worker.cjs") };
  try {
    const early = new EarlyRecordCsvs(out, 0);
    t.after(() => early.dispose());
    tell(early, [{ runId: "a", ...records("a", [0, 1], ["k"]) }]);
    assert.equal(await early.take("rollouts.csv", ["round", "run_id", "rollout", "k"]), null);
    await early.dispose();
    const never = tempDir(t, "early-noworker-never-");
    const a = await writeExports({ dataDir: DATA, outDir: never, printWhileAligning: "never" });
    const b = await writeExports({ dataDir: DATA, outDir: out, printWhileAligning: "always" });
    assert.deepEqual(b, { ...a, outDir: out });
  } finally {
    delete g[PREBUILT_WORKERS];
  }
});
