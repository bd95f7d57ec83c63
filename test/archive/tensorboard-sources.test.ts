/**
 * TensorBoard event files frozen into the same archive as W&B runs: from data/runs.json
 * (`{"tensorboard", "round"}`, mixed with a `.wandb` file) and from `npm run fetch -- --tensorboard`.
 * One frozen row per step with `_step` = the event step and `_timestamp` = the wall time; the manifest
 * names the source kind, every file with the sha256 and size computed here from the file itself,
 * the superseded values and the dropped summaries; a damaged file leaves the previous archive as it was.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { after, test } from "node:test";

import { fetchAndFreeze } from "../../lib/archive/fetch-and-freeze";
import { loadArchive } from "../../lib/archive/load-archive";
import { parseManifest, sourceLabel } from "../../lib/archive/manifest";
import { readRunsConfig } from "../../lib/archive/runs-config";
import { readEventFile } from "../../lib/tensorboard/read-event-file";
import type { ManifestSource, TensorboardSource } from "../../lib/types";

const ROOT = path.join(__dirname, "../..");
const TB = path.join(ROOT, "test/fixtures/tensorboard");
const WANDB = path.join(ROOT, "test/fixtures/real-runs/trl/grpo-log1/R0-run-trlgrpolog1.wandb");
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "tb-sources-"));
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

const NOW = () => new Date("2026-12-01T00:00:00.000Z");

function sha256(file: string): string {
  return createHash("sha256").update(fs.readFileSync(file)).digest("hex");
}

function frozen(dir: string, runId: string): Record<string, number | string>[] {
  return fs
    .readFileSync(path.join(dir, "history", `${runId}.jsonl`), "utf8")
    .trimEnd()
    .split("\n")
    .map((l) => JSON.parse(l));
}

test("runs.json mixes a TensorBoard log folder and a .wandb file: one archive, no server, each source named", async () => {
  const dir = path.join(tmp, "config");
  fs.mkdirSync(dir);
  fs.cpSync(path.join(TB, "restart"), path.join(dir, "logs", "restart"), { recursive: true });
  fs.copyFileSync(WANDB, path.join(dir, "R0-run-trlgrpolog1.wandb"));
  const config = path.join(dir, "runs.json");
  fs.writeFileSync(
    config,
    JSON.stringify({
      runs: [
        { tensorboard: "logs/restart", round: "R0" },
        { file: "R0-run-trlgrpolog1.wandb", round: "R1" },
      ],
    }),
  );
  const cfg = readRunsConfig(config);
  assert.deepEqual(cfg.runs[0], { runId: "restart", round: "R0", tensorboard: path.join(dir, "logs", "restart") });
  const out = path.join(dir, "archive");
  const manifest = await fetchAndFreeze({ ...cfg, outDir: out, env: {}, now: NOW });
  const [tb, wb] = manifest.runs;
  assert.equal((wb.source as ManifestSource).kind, "wandb-file");
  const source = tb.source as TensorboardSource;
  const files = fs
    .readdirSync(path.join(TB, "restart"))
    .filter((f) => f.includes("tfevents"))
    .sort();
  assert.deepEqual(
    source.files.map((f) => [f.file, f.sha256, f.bytes, f.fileVersion, f.tornTail]),
    files.map((f) => [f, sha256(path.join(TB, "restart", f)), fs.statSync(path.join(TB, "restart", f)).size, "brain.Event:2", null]),
  );
  // restart/: a, b, only_first at steps 0-9 (30 values); then a 6-12, b 6-8, c 7 (11): a and b at 6-9 superseded (8).
  assert.equal(source.scalarValues, 41);
  assert.equal(source.supersededValues, 8);
  assert.deepEqual(source.restarts, [{ file: files[0], by: files[1], fromStep: 6, toStep: 9, values: 8 }], "the restart found at fetch");
  assert.deepEqual(source.droppedSummaries, {});
  assert.equal(source.server, null);
  assert.equal(tb.state, "unknown", "event files record no exit");
  assert.equal(tb.historyEvents, 17, "one row per step, 0..12, and the earlier file's re-logged steps 6..9 before them");
  assert.equal(tb.lastStep, 12);
  let firstWall: number | null = null;
  await readEventFile(path.join(TB, "restart", files[0]), (ev) => {
    firstWall ??= ev.wallTime;
  });
  assert.equal(tb.createdAt, new Date(firstWall! * 1000).toISOString().slice(0, 19), "the wall time of the first event (its file_version)");
  const rows = frozen(out, "restart");
  assert.deepEqual(
    rows.map((r) => r._step),
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 6, 7, 8, 9, 10, 11, 12],
    "the steps go back once, at the restart",
  );
  assert.deepEqual(rows[9], { _step: 9, _timestamp: 1_800_000_009, a: 10, b: 10.5 }, "the earlier file's values the later one re-logged");
  assert.deepEqual(rows[13], { _step: 9, _timestamp: 1_800_000_109, a: 109, only_first: 10 });
  assert.deepEqual(rows[11], { _step: 7, _timestamp: 1_800_000_107, a: 107, b: 207, only_first: 8, c: 3.25 });
  assert.match(
    sourceLabel(tb),
    /^TensorBoard: events\.out\.tfevents\.1800000000\.maker\.3\.0, events\.out\.tfevents\.1800000100\.maker\.4\.0 \(one row per step, no server\)$/,
  );
  const archive = await loadArchive(out);
  assert.equal(archive.runs[0].sourceKind, "tensorboard");
  assert.equal(archive.runs[1].sourceKind, undefined);
  assert.equal(archive.runs[0].rows.length, 17);
});

test("a torn event file freezes as crashed with its torn tail in the manifest; dropped summaries are counted by tag and kind", async () => {
  const out = path.join(tmp, "torn");
  const manifest = await fetchAndFreeze({
    entity: "",
    project: "",
    runs: [{ runId: "torn", round: "R0", tensorboard: path.join(TB, "torn") }],
    outDir: out,
    env: {},
    now: NOW,
  });
  const run = manifest.runs[0];
  const source = run.source as TensorboardSource;
  const expected = JSON.parse(fs.readFileSync(path.join(TB, "torn", "expected.json"), "utf8"));
  assert.equal(run.state, "crashed");
  assert.deepEqual(source.files[0].tornTail, expected.tornTail);
  assert.deepEqual(source.droppedSummaries, { histogram: 10, image: 1 });
  assert.deepEqual(run.droppedKeys, { sample: 1, weights: 10 });
});

test("a damaged event file fails the fetch naming file and byte offset, and the previous archive stays byte-identical", async () => {
  const dir = path.join(tmp, "damaged");
  fs.mkdirSync(path.join(dir, "logs"), { recursive: true });
  const src = path.join(TB, "tensorboardx-plain", "events.out.tfevents.1800000000.maker.1.0");
  const file = path.join(dir, "logs", path.basename(src));
  fs.copyFileSync(src, file);
  const out = path.join(dir, "archive");
  const runs = [{ runId: "plain", round: "R0", tensorboard: path.join(dir, "logs") }];
  await fetchAndFreeze({ entity: "", project: "", runs, outDir: out, env: {}, now: NOW });
  const before = fs.readFileSync(path.join(out, "manifest.json"));
  const bytes = fs.readFileSync(file);
  bytes[300] ^= 0xff;
  fs.writeFileSync(file, bytes);
  await assert.rejects(fetchAndFreeze({ entity: "", project: "", runs, outDir: out, env: {}, now: NOW }), (e: Error) => {
    assert.match(e.message, new RegExp(`^TensorBoard file ${file.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} at byte \\d+: .*damaged inside`));
    return true;
  });
  assert.deepEqual(fs.readFileSync(path.join(out, "manifest.json")), before);
});

test("runs.json refuses a TensorBoard entry without event files, with a file as well, or with an unsafe run id", () => {
  const dir = path.join(tmp, "bad-config");
  fs.mkdirSync(path.join(dir, "empty"), { recursive: true });
  const cases: [unknown, RegExp][] = [
    [{ tensorboard: "empty", round: "R0" }, /runs\[0\]: TensorBoard file .*empty: a folder without TensorBoard event files/],
    [{ tensorboard: "empty", file: "x.wandb", round: "R0" }, /runs\[0\] has both "file" and "tensorboard": one source per run/],
    [{ tensorboard: path.join(TB, "restart"), runId: "a/b", round: "R0" }, /runs\[0\]: invalid runId: "a\/b"/],
    [{ tensorboard: path.join(TB, "restart") }, /runs\[0\]\.round must be a non-empty string/],
  ];
  for (const [run, message] of cases) {
    const config = path.join(dir, "runs.json");
    fs.writeFileSync(config, JSON.stringify({ runs: [run] }));
    assert.throws(
      () => readRunsConfig(config),
      (e: Error) => message.test(e.message) && e.message.startsWith(`invalid runs config: ${config}: `),
      JSON.stringify(run),
    );
  }
});

test("a manifest whose TensorBoard source names a file with its folder, lacks a sha256, or states a restart of files it lacks, is refused on load", () => {
  const good = {
    kind: "tensorboard",
    files: [{ file: "events.out.tfevents.1.h.1.0", sha256: "0".repeat(64), bytes: 1, fileVersion: null, events: 1, tornTail: null }],
    scalarValues: 1,
    supersededValues: 0,
    droppedSummaries: {},
    server: null,
  };
  const manifest = (source: unknown) =>
    JSON.stringify({
      kind: "wandb-frozen-history",
      formatVersion: 1,
      readerVersion: "x",
      pageSize: 1000,
      runs: [
        {
          entity: "",
          project: "",
          runId: "r",
          round: "R0",
          state: "unknown",
          historyEvents: 1,
          lastStep: 0,
          createdAt: null,
          fetchedAt: "t",
          file: "history/r.jsonl",
          sha256: "0".repeat(64),
          bytes: 1,
          source,
        },
      ],
    });
  assert.equal(parseManifest(manifest(good), "m.json").runs.length, 1);
  assert.throws(
    () => parseManifest(manifest({ ...good, files: [{ ...good.files[0], file: "logs/events" }] }), "m.json"),
    /runs\[0\]\.source\.files\[0\]\.file must be a file name without folders/,
  );
  assert.throws(
    () => parseManifest(manifest({ ...good, files: [{ ...good.files[0], sha256: "x" }] }), "m.json"),
    /runs\[0\]\.source\.files\[0\]\.sha256 is not a sha256 hex digest/,
  );
  assert.throws(() => parseManifest(manifest({ ...good, kind: "other" }), "m.json"), /expected "wandb-file" or "tensorboard"/);
  const restart = { file: good.files[0].file, by: good.files[0].file, fromStep: 0, toStep: 0, values: 1 };
  assert.equal(parseManifest(manifest({ ...good, restarts: [restart] }), "m.json").runs.length, 1);
  assert.throws(
    () => parseManifest(manifest({ ...good, restarts: [{ ...restart, by: "events.out.tfevents.2.h.2.0" }] }), "m.json"),
    /runs\[0\]\.source\.restarts\[0\]\.file and \.by must name files of the source/,
  );
  assert.throws(
    () => parseManifest(manifest({ ...good, restarts: [{ ...restart, fromStep: -1 }] }), "m.json"),
    /restarts\[0\]\.fromStep is not a non-negative integer/,
  );
  assert.throws(() => parseManifest(manifest({ ...good, restarts: [] }), "m.json"), /runs\[0\]\.source\.restarts is not a non-empty list/);
});

test("npm run fetch -- --tensorboard PATH=LABEL freezes without a server and says what it read; a log of no RL framework is refused", async () => {
  const out = path.join(tmp, "cli", "archive");
  const fetchCli = (spec: string) =>
    new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      execFile(
        process.execPath,
        ["--import", "tsx", path.join(ROOT, "scripts/fetch.ts"), "--tensorboard", spec, "--out", out],
        { cwd: ROOT, env: { PATH: process.env.PATH ?? "", HOME: tmp } },
        (err, stdout, stderr) => resolve({ code: err ? (typeof err.code === "number" ? err.code : 1) : 0, stdout, stderr }),
      );
    });
  // TRL 1.16's own event file (test/fixtures/real-runs): one file given, not its folder.
  const trl = path.join(__dirname, "../fixtures/real-runs/trl/grpo-log1/R0-0-events.out.tfevents");
  const r = await fetchCli(`${trl}=R0`);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(
    r.stdout,
    `froze 1 run(s), 6 rows, into ${out}\n  R0  //R0-0-events_out_tfevents  unknown  6 rows  history/R0-0-events_out_tfevents.jsonl  (2 non-numeric keys left out)  from TensorBoard: R0-0-events.out.tfevents (one row per step, no server)\n`,
  );
  assert.match(r.stderr, /left out 2 text summaries \(not scalars\)/);
  // Scalars of every writer, but no framework's keys: nothing the notebooks could read.
  const generic = await fetchCli(`${path.join(TB, "tensor-scalars")}=R0`);
  assert.equal(generic.code, 1);
  assert.match(generic.stderr, /left out 3 tensor, 3 text summaries \(not scalars\)/);
  assert.match(
    generic.stderr,
    /fetch failed: not a run of a framework the workspace reads: run tensor-scalars \(round R0\) holds none of them; its keys: half\/val, /,
  );
  const bad = await new Promise<{ code: number; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      ["--import", "tsx", path.join(ROOT, "scripts/fetch.ts"), "--tensorboard", "nowhere", "--out", out],
      { cwd: ROOT },
      (err, _o, stderr) => resolve({ code: err ? (typeof err.code === "number" ? err.code : 1) : 0, stderr }),
    );
  });
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /^invalid --tensorboard: nowhere \(expected PATH=ROUND_LABEL, e\.g\. runs\/grpo-1=R0\)/);
});
