import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

import { loadArchive } from "../../lib/archive/load-archive";
import { alignRuns } from "../../lib/align/align-runs";
import { buildExports } from "../../lib/export/build-exports";
import { type ExportManifest, exportSourceRuns, FLAGS_UNKNOWN } from "../../lib/export/export-manifest";
import type { RunFlags } from "../../lib/registry/semantic-flags";
import { loadParquetWriter } from "../../lib/export/parquet-file";
import { writeExports } from "../../lib/export/write-exports";
import { SLIME_SPECS as METRICS } from "../fixtures/metric-keys";

const ROOT = path.resolve(__dirname, "../..");

async function sample() {
  const archive = await loadArchive(path.join(ROOT, "data", "wandb"));
  return { archive, aligned: alignRuns(archive.runs) };
}

test("buildExports: the five CSVs, then manifest.json, in that order", async () => {
  const { archive, aligned } = await sample();
  const { files } = buildExports(archive, aligned);
  assert.deepEqual(
    files.map((f) => f.name),
    ["rollouts.csv", "updates.csv", "summary.csv", "superseded.csv", "health.csv", "manifest.json"],
  );
  for (const f of files) assert.ok(f.text.endsWith("\n") && !f.text.includes("\r"), `${f.name}: \\n endings, trailing newline`);
});

test("the export manifest lists sources, files (sha256, rows, columns), axes, column meanings; no wall-clock time", async () => {
  const { archive, aligned } = await sample();
  const { files } = buildExports(archive, aligned);
  const text = files[5].text;
  const m = JSON.parse(text) as ExportManifest;
  assert.equal(text, JSON.stringify(m, null, 2) + "\n", "2-space indent, trailing newline");
  assert.deepEqual(Object.keys(m), [
    "kind",
    "formatVersion",
    "workspaceVersion",
    "source",
    "profile",
    "axes",
    "files",
    "cells",
    "summaryColumns",
    "summaryNotes",
    "alignmentIssues",
    "builtDespiteIssues",
    "superseded",
    "alignmentNotes",
    "meaningNotes",
  ]);
  assert.equal(m.workspaceVersion, JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")).version);
  assert.deepEqual(
    m.source.runs.map((r) => [r.round, r.runId, r.state, r.historyEvents, r.lastStep, r.fetchedAt, r.sha256]),
    archive.manifest.runs.map((r) => [r.round, r.runId, r.state, r.historyEvents, r.lastStep, r.fetchedAt, r.sha256]),
  );
  assert.deepEqual(Object.keys(m.source.runs[0]), [
    "entity",
    "project",
    "runId",
    "round",
    "state",
    "historyEvents",
    "lastStep",
    "fetchedAt",
    "file",
    "sha256",
    "flags",
  ]);
  // The sample's configs were read: each run's flags as frozen (grpo, no meaning-changing flag set: no note).
  assert.deepEqual(
    m.source.runs.map((r) => r.flags),
    archive.manifest.runs.map((r) => r.flags),
  );
  assert.equal((m.source.runs[0].flags as RunFlags).advantage_estimator.value, "grpo");
  assert.deepEqual(m.meaningNotes, []);
  // An archive that read no config (an old one): its runs say so.
  const old = { ...archive.manifest, runs: archive.manifest.runs.map(({ flags: _f, ...r }) => r) };
  assert.ok(exportSourceRuns(old).every((r) => r.flags === FLAGS_UNKNOWN));
  assert.match(FLAGS_UNKNOWN, /^unknown: no config was read, so every metric keeps its default meaning/);
  assert.deepEqual(m.axes, { n: 2, r0: 1, formulas: aligned.mapping.formulas, runs: aligned.mapping.runs });
  assert.deepEqual(
    m.axes.runs.map((r) => [r.round, r.n, r.alwaysUseTrainStep, r.firstRollout, r.formula]),
    [
      ["R0", 2, false, 1, "update = train/step - 2*1 + 0 + 1"],
      ["R1", 2, false, 21, "update = train/step - 2*21 + 40 + 1"],
      ["R2", 2, false, 41, "update = train/step - 2*41 + 80 + 1"],
      ["R3", 2, false, 61, "update = train/step - 2*61 + 120 + 1"],
    ],
  );
  assert.deepEqual([m.builtDespiteIssues, m.superseded, m.alignmentNotes], [false, [], []]);
  files.slice(0, 5).forEach((f, i) => {
    const entry = m.files[i];
    assert.equal(entry.name, f.name);
    assert.equal(entry.sha256, createHash("sha256").update(f.text).digest("hex"), `${f.name} sha256`);
    assert.equal(entry.bytes, Buffer.byteLength(f.text));
    assert.equal(entry.rows, f.text.split("\n").length - 2, `${f.name} rows exclude the header`);
    assert.equal(entry.columns.join(","), f.text.slice(0, f.text.indexOf("\n")), `${f.name} columns = header`);
  });
  assert.deepEqual(
    m.files.map((f) => f.rows),
    [80, 160, 5, 0, 1],
  );
  assert.deepEqual(
    m.summaryColumns.map((c) => c.name),
    m.files[2].columns,
  );
  const entropy = m.summaryColumns.find((c) => c.name === "entropy_mean")!;
  assert.deepEqual([entropy.key, entropy.grain, entropy.is, entropy.isNot], [METRICS.entropy.key, "update", METRICS.entropy.is, METRICS.entropy.isNot]);
  assert.equal(m.summaryColumns.find((c) => c.name === "actor_tok_per_s_mean")!.over, "rollout batches");
  assert.equal(m.summaryColumns.find((c) => c.name === "ppo_kl_later_updates_mean")!.over, "later updates of a rollout batch (position >= 1)");
  assert.equal(m.summaryColumns.find((c) => c.name === "updates")!.kind, "count");
  assert.deepEqual(m.alignmentIssues, []);
  // The only times are the source fetch times.
  const times = text.match(/\d{4}-\d\d-\d\dT\d\d:\d\d[:\d.]*Z?/g) ?? [];
  assert.deepEqual([...new Set(times)], [...new Set(archive.manifest.runs.map((r) => r.fetchedAt))]);
});

test("buildExports is deterministic and refuses an alignment of other runs", async () => {
  const { archive, aligned } = await sample();
  assert.deepEqual(buildExports(archive, aligned), buildExports(archive, aligned));
  const other = alignRuns(archive.runs.slice(1));
  assert.throws(() => buildExports(archive, other), {
    message:
      "invalid aligned: runs sim-r1-kf63, sim-r2-85gs, sim-r3-1v8k are not the archive's runs sim-r0-ghfk, sim-r1-kf63, sim-r2-85gs, sim-r3-1v8k (align archive.runs)",
  });
});

test("writeExports streams the same bytes buildExports makes in memory (Parquet included), and the rows it releases change nothing", async (t) => {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), "exports-stream-"));
  t.after(() => fs.rmSync(out, { recursive: true, force: true }));
  await loadParquetWriter();
  const { archive, aligned } = await sample();
  const built = buildExports(archive, aligned, { parquet: { layout: "flat" } });
  const result = await writeExports({ dataDir: path.join(ROOT, "data", "wandb"), outDir: out, parquet: { layout: "flat" } });
  assert.deepEqual(result.files, built.manifest.files);
  for (const f of built.files) {
    const expected = f.bytes ?? Buffer.from(f.text, "utf8");
    assert.ok(fs.readFileSync(path.join(out, f.name)).equals(expected), `${f.name}: same bytes`);
  }
  assert.equal(
    result.manifest.sha256,
    createHash("sha256")
      .update(built.files[built.files.length - 1].text)
      .digest("hex"),
  );
});
