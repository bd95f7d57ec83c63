/**
 * A run resumed into its own W&B run id offline writes one `.wandb` log per process: the archive
 * freezes them as ONE run (test/fixtures/real-runs/trl/grpo-resume-same-id, written by TRL 1.16 and
 * wandb 0.31: a run killed after step 5, resumed from checkpoint-3 with WANDB_RUN_ID and
 * WANDB_RESUME=allow). Each log's `_step` restarts at 0; the later log's rows are frozen with the
 * stated offset, every other value as read. verl stamps its own step (test/fixtures/real-runs/verl/
 * resume-same-id, verl 0.9.1: the second process resumes from global_step_2 and logs from step 2 on):
 * its later log is kept at the steps verl logged.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { after, test } from "node:test";

import { fetchAndFreeze } from "../../lib/archive/fetch-and-freeze";
import { joinResumedLogs } from "../../lib/archive/run-selection";
import { loadArchive } from "../../lib/archive/load-archive";
import { alignRuns } from "../../lib/align/align-runs";
import { LiveArchive } from "../../lib/follow/live-archive";
import { analyseSnapshot } from "../../lib/follow/poll-analysis";
import { parseManifest, serializeManifest } from "../../lib/archive/manifest";
import { readRunsConfig } from "../../lib/archive/runs-config";
import { keysOf } from "../../lib/values/compact-values";
import { readWandbFile } from "../../lib/wandb-file/read-wandb-file";
import type { ManifestSource } from "../../lib/types";

const CASE = path.resolve(__dirname, "../fixtures/real-runs/trl/grpo-resume-same-id");
const FIRST = path.join(CASE, "R0-run-trlgrporesumesa.wandb");
const SECOND = path.join(CASE, "R1-run-trlgrporesumesa.wandb");
const VERL = path.resolve(__dirname, "../fixtures/real-runs/verl/resume-same-id");
const VERL_LOGS = ["R0", "R1"].map((r) => path.join(VERL, `${r}-run-verl-resume-same-id.wandb`));
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "resumed-logs-"));
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

test("joinResumedLogs: logs of one run id become one selection in the order given; other runs keep their place", () => {
  assert.deepEqual(
    joinResumedLogs([
      { runId: "a", round: "R0", file: "a1.wandb" },
      { runId: "b", round: "R1", file: "b.wandb" },
      { runId: "a", round: "R0", file: "a2.wandb" },
      { runId: "a", round: "R0", file: "a3.wandb" },
    ]),
    [
      { runId: "a", round: "R0", file: "a1.wandb", resumedIn: ["a2.wandb", "a3.wandb"] },
      { runId: "b", round: "R1", file: "b.wandb" },
    ],
  );
});

test("joinResumedLogs: refuses logs of one id in two rounds, and an id given both as a server run and as a log", () => {
  assert.throws(
    () =>
      joinResumedLogs([
        { runId: "a", round: "R0", file: "a1.wandb" },
        { runId: "a", round: "R1", file: "a2.wandb" },
      ]),
    {
      message:
        "invalid runs: run a is listed twice, in rounds R0 and R1: two .wandb logs of one run id are the run resumed into its own id; give them one round",
    },
  );
  assert.throws(
    () =>
      joinResumedLogs([
        { runId: "a", round: "R0" },
        { runId: "a", round: "R0", file: "a.wandb" },
      ]),
    { message: "invalid runs: run a is listed twice" },
  );
  assert.throws(
    () =>
      joinResumedLogs([
        { runId: "a", round: "R0", file: "a.wandb" },
        { runId: "a", round: "R0", file: "a.wandb" },
      ]),
    { message: "invalid runs: run a is listed twice" },
  );
});

test("joinResumedLogs: two runs given one round label are refused naming both and the fix; one run's logs share theirs", () => {
  assert.throws(
    () =>
      joinResumedLogs([
        { runId: "a", round: "R0", file: "/x/a1.wandb" },
        { runId: "s", round: "R1" },
        { runId: "a", round: "R0", file: "/x/a2.wandb" },
        { runId: "t", round: "R1", tensorboard: "/logs/grpo-2" },
      ]),
    {
      message:
        "invalid runs: round R1 is given to two runs, run s and run t (grpo-2): give each run a round label of its own, in the order they trained (e.g. R0, R1); only the .wandb logs of one run resumed into its own id share a round",
    },
  );
  const cfg = path.join(tmp, "shared-round.json");
  fs.writeFileSync(
    cfg,
    JSON.stringify({
      entity: "e",
      project: "p",
      runs: [
        { runId: "a", round: "R0" },
        { runId: "b", round: "R0" },
      ],
    }),
  );
  assert.throws(() => readRunsConfig(cfg), {
    message: `invalid runs config: ${cfg}: round R0 is given to two runs, run a and run b: give each run a round label of its own, in the order they trained (e.g. R0, R1); only the .wandb logs of one run resumed into its own id share a round`,
  });
});

test("data/runs.json may list several logs of one run id in one round; a server run and a log of one id, one file twice, or two rounds stay refused", () => {
  const cfg = path.join(tmp, "runs.json");
  fs.writeFileSync(
    cfg,
    JSON.stringify({
      runs: [
        { file: FIRST, round: "R0" },
        { file: SECOND, round: "R0" },
      ],
    }),
  );
  assert.deepEqual(
    readRunsConfig(cfg).runs.map((r) => [r.runId, r.round, path.basename(r.file!)]),
    [
      ["trlgrporesumesa", "R0", "R0-run-trlgrporesumesa.wandb"],
      ["trlgrporesumesa", "R0", "R1-run-trlgrporesumesa.wandb"],
    ],
  );
  fs.writeFileSync(
    cfg,
    JSON.stringify({
      entity: "e",
      project: "p",
      runs: [
        { runId: "trlgrporesumesa", round: "R0" },
        { file: FIRST, round: "R0" },
      ],
    }),
  );
  assert.throws(() => readRunsConfig(cfg), /run trlgrporesumesa is listed twice/);
});

test("two real logs of one run id freeze as one run: the second log's _step continues the first's, values as read, both logs in the manifest", async () => {
  const out = path.join(tmp, "archive");
  const manifest = await fetchAndFreeze({
    entity: "",
    project: "",
    runs: [
      { runId: "trlgrporesumesa", round: "R0", file: FIRST },
      { runId: "trlgrporesumesa", round: "R0", file: SECOND },
    ],
    outDir: out,
    env: {},
    reporter: { warn: () => {} },
  });
  const first = await readWandbFile(FIRST, { reporter: { warn: () => {} } });
  const second = await readWandbFile(SECOND);
  assert.equal(manifest.runs.length, 1);
  const run = manifest.runs[0];
  assert.equal(run.historyEvents, first.rowCount + second.rowCount);
  assert.equal(run.state, "finished", "the last log's state");
  const source = run.source as ManifestSource | undefined; // a .wandb source
  assert.equal(source?.file, "R0-run-trlgrporesumesa.wandb");
  assert.equal(source?.exitCode, null, "the first log was killed: no exit record");
  assert.deepEqual(
    run.resumedIn?.map((x) => [x.file, x.exitCode, x.stepOffset]),
    [["R1-run-trlgrporesumesa.wandb", 0, first.rows.length]],
  );
  assert.equal(run.lastStep, first.rows.length + second.rows.length - 1);
  const archive = await loadArchive(out);
  const rows = archive.runs[0].rows;
  rows.forEach((row, i) => assert.equal(row._step, i, `row ${i}`));
  second.rows.forEach((want, i) => {
    const got = rows[first.rows.length + i];
    for (const k of keysOf(want)) if (k !== "_step") assert.equal(got[k], want[k], `second log row ${i} key ${k}`);
    assert.equal(got._step, want._step + first.rows.length);
  });
  // The manifest round-trips and is refused when resumedIn is malformed.
  const text = serializeManifest(manifest);
  assert.deepEqual(parseManifest(text, "m.json").runs[0].resumedIn, run.resumedIn);
  const broken = (edit: (r: Record<string, unknown>) => void) => {
    const m = JSON.parse(text);
    edit(m.runs[0]);
    return () => parseManifest(JSON.stringify(m), "m.json");
  };
  assert.throws(
    broken((r) => ((r.resumedIn as Record<string, unknown>[])[0].stepOffset = -1)),
    /^Error: invalid manifest m\.json: runs\[0\]\.resumedIn\[0\]\.stepOffset is not a non-negative integer$/,
  );
  assert.throws(
    broken((r) => delete r.source),
    /^Error: invalid manifest m\.json: runs\[0\]\.resumedIn without a source/,
  );
});

test("the logs of one run given in the wrong order are read in the order their processes started: the same archive bytes, and a note says so", async () => {
  const freeze = async (files: string[], name: string) => {
    const notes: string[] = [];
    const outDir = path.join(tmp, name);
    await fetchAndFreeze({
      entity: "",
      project: "",
      runs: files.map((file) => ({ runId: "trlgrporesumesa", round: "R0", file })),
      outDir,
      env: {},
      now: () => new Date("2026-12-01T00:00:00.000Z"),
      reporter: { warn: () => {}, info: (m) => notes.push(m) },
      profile: "detect",
    });
    const bytes: Record<string, string> = {};
    for (const f of ["manifest.json", "history/trlgrporesumesa.jsonl"]) bytes[f] = fs.readFileSync(path.join(outDir, f), "utf8");
    return { bytes, notes };
  };
  const given = await freeze([FIRST, SECOND], "in-order");
  const reversed = await freeze([SECOND, FIRST], "reversed");
  assert.deepEqual(reversed.bytes, given.bytes);
  assert.deepEqual(given.notes, []);
  assert.deepEqual(reversed.notes, [
    "run trlgrporesumesa: its logs read in the order their processes started: R0-run-trlgrporesumesa.wandb, R1-run-trlgrporesumesa.wandb (given in another order)",
  ]);
  // Not the reversed reading: the first log's 37 rows first, from _step 0.
  const manifest = JSON.parse(given.bytes["manifest.json"]);
  assert.equal(manifest.runs[0].source.file, "R0-run-trlgrporesumesa.wandb");
  assert.deepEqual(
    manifest.runs[0].resumedIn.map((x: { file: string; stepOffset: number }) => [x.file, x.stepOffset]),
    [["R1-run-trlgrporesumesa.wandb", 37]],
  );
});

/** The steps verl's Tracking.log was called with, per process (own-record.jsonl: one line per call), and the validation-only ones. */
function verlOwnSteps(round: string): { steps: number[]; evalSteps: number[] } {
  const calls = fs
    .readFileSync(path.join(VERL, `${round}-own-record.jsonl`), "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as { step: number; data: Record<string, unknown> });
  const evalOnly = (d: Record<string, unknown>) => Object.keys(d).every((k) => k.startsWith("val-core/") || k.startsWith("val-aux/"));
  return { steps: calls.map((c) => c.step), evalSteps: calls.filter((c) => evalOnly(c.data)).map((c) => c.step) };
}

test("a real verl run resumed in place: the later log, logged from the checkpoint's step, is kept at verl's steps in either order given, and its validation row stays an eval", async () => {
  const freeze = async (files: string[], name: string) => {
    const outDir = path.join(tmp, name);
    const manifest = await fetchAndFreeze({
      entity: "",
      project: "",
      runs: files.map((file) => ({ runId: "verl-resume-same-id", round: "R0", file })),
      outDir,
      env: {},
      now: () => new Date("2026-12-01T00:00:00.000Z"),
      reporter: { warn: () => {}, info: () => {} },
      profile: "detect",
    });
    const bytes: Record<string, string> = {};
    for (const f of ["manifest.json", "history/verl-resume-same-id.jsonl"]) bytes[f] = fs.readFileSync(path.join(outDir, f), "utf8");
    return { manifest, bytes, outDir };
  };
  const given = await freeze(VERL_LOGS, "verl-in-order");
  const reversed = await freeze([...VERL_LOGS].reverse(), "verl-reversed");
  assert.deepEqual(reversed.bytes, given.bytes);
  const [r0, r1] = [verlOwnSteps("R0"), verlOwnSteps("R1")];
  assert.deepEqual(
    [r0.steps, r1.steps],
    [
      [0, 1, 2, 3],
      [2, 3, 4, 5],
    ],
  );
  const run = given.manifest.runs[0];
  assert.deepEqual(
    run.resumedIn?.map((x) => [x.file, x.stepOffset]),
    [["R1-run-verl-resume-same-id.wandb", 0]],
  );
  assert.equal(run.lastStep, 5, "verl's last global step, not a shifted one");
  const archive = await loadArchive(given.outDir);
  // One frozen row per Tracking.log call, at the step verl passed (the .wandb logs hold one row per call).
  assert.deepEqual(
    archive.runs[0].rows.map((r) => r._step),
    [...r0.steps, ...r1.steps],
  );
  const aligned = alignRuns(archive.runs);
  assert.deepEqual(
    aligned.evals.map((e) => [e.evalStep, e.historyStep]),
    [...r0.evalSteps, ...r1.evalSteps].map((s) => [s, s]),
    "the validation-only rows (R0's val-before-train at 0, R1's at the checkpoint step 2)",
  );
  assert.deepEqual(
    aligned.rollouts.map((r) => r.rollout),
    [1, 2, 3, 4, 5],
  );
});

test("a frozen file whose _step goes back more often than its later logs allow is refused naming the run and line", async () => {
  const out = path.join(tmp, "verl-in-order");
  const file = path.join(out, "history/verl-resume-same-id.jsonl");
  const lines = fs.readFileSync(file, "utf8").trim().split("\n");
  const twice = [...lines, ...lines.slice(4)].join("\n") + "\n"; // R1's rows once more: a second go-back with one later log
  const copy = path.join(tmp, "verl-twice");
  fs.cpSync(out, copy, { recursive: true });
  fs.writeFileSync(path.join(copy, "history/verl-resume-same-id.jsonl"), twice);
  const manifest = JSON.parse(fs.readFileSync(path.join(copy, "manifest.json"), "utf8"));
  const { createHash } = await import("node:crypto");
  manifest.runs[0].sha256 = createHash("sha256").update(twice).digest("hex");
  manifest.runs[0].bytes = Buffer.byteLength(twice);
  manifest.runs[0].historyEvents = 12;
  fs.writeFileSync(path.join(copy, "manifest.json"), JSON.stringify(manifest, null, 2));
  await assert.rejects(
    loadArchive(copy),
    /line 9: _step 2 does not increase \(previous 5\) \(run verl-resume-same-id: its 1 later log\(s\) may each go back once, 1 already did\)/,
  );
});

test("npm run follow's incremental reader takes the real verl resume in place as loadArchive does: the same analysis, no refusal", async () => {
  const dir = path.join(tmp, "verl-followed");
  await fetchAndFreeze({
    entity: "",
    project: "",
    runs: VERL_LOGS.map((file) => ({ runId: "verl-resume-same-id", round: "R0", file })),
    outDir: dir,
    env: {},
    now: () => new Date("2026-12-01T00:00:00.000Z"),
    reporter: { warn: () => {}, info: () => {} },
    profile: "detect",
  });
  const live = new LiveArchive(dir);
  try {
    const inc = await live.analyse();
    const full = await analyseSnapshot(dir);
    assert.deepEqual(inc.health, full.health);
    assert.equal(live.stats.rowsParsed, 8, "the two logs' 4 + 4 rows");
  } finally {
    await live.close();
  }
});
