/**
 * The two guards issue 26 adds, on a REAL TRL run (test/fixtures/real-runs/trl/grpo-log1, written by
 * TRL 1.16 and wandb 0.31): read with the TRL profile as it was before (no `ownRows`), its profiling
 * rows stamped with the last train/global_step made every training row look re-logged. The superseding
 * guard must refuse that; and a profile that keeps no record of rows holding a mapped key must make
 * the export refuse instead of writing empty cells.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { after, before, test } from "node:test";

import { fetchAndFreeze } from "../../lib/archive/fetch-and-freeze";
import { loadArchive } from "../../lib/archive/load-archive";
import { alignRuns } from "../../lib/align/align-runs";
import { alignSteps } from "../../lib/align/steps/align-steps";
import { assertMappingHolds } from "../../lib/align/issues";
import { supersedingIssues } from "../../lib/align/superseding-guard";
import { ids, slimeRun } from "../align/slime-history";
import { buildExports, planExports } from "../../lib/export/build-exports";
import { writePlannedExports } from "../../lib/export/write-exports";
import type { FrameworkProfile } from "../../lib/registry/framework-profile";
import { TRL_PROFILE } from "../../lib/registry/profile-trl";
import type { Archive } from "../../lib/types";

const CASE = path.resolve(__dirname, "../fixtures/real-runs/trl/grpo-log1");
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "real-guards-"));
let archive: Archive;

before(async () => {
  const meta = JSON.parse(fs.readFileSync(path.join(CASE, "case.json"), "utf8"));
  const r = meta.rounds[0];
  await fetchAndFreeze({ entity: "", project: "", runs: [{ runId: r.wandbRunId, round: "R0", file: path.join(CASE, r.wandbFile) }], outDir: tmp, env: {} });
  archive = await loadArchive(tmp);
});
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

function ownRowsOf(p: FrameworkProfile) {
  return p.axis.kind === "step" ? p.axis.ownRows : [];
}

/** The TRL profile with other own-row families (`[]`: as it was before issue 26). */
function trlWithOwnRows(ownRows: { prefix: string; what: string }[]): FrameworkProfile {
  if (TRL_PROFILE.axis.kind !== "step") throw new Error("TRL is a step profile");
  return { ...TRL_PROFILE, axis: { ...TRL_PROFILE.axis, ownRows } };
}

test("the TRL profile as it was (profiling rows read as training rows) supersedes most of the run: refused with the evidence", () => {
  const aligned = alignSteps(archive.runs, trlWithOwnRows([]));
  const gone = aligned.superseded.reduce((s, x) => s + x.rows, 0);
  const rows = archive.runs[0].rows.length;
  assert.ok(2 * gone > rows, `superseded ${gone} of ${rows}`);
  const issues = supersedingIssues(aligned, aligned.keyRows ?? []);
  assert.equal(issues[0].kind, "superseding-dominates");
  assert.equal(issues[0].key, null);
  assert.match(
    issues[0].message,
    new RegExp(`^run trlgrpolog1 \\(round R0\\): superseding would drop ${gone} of its ${rows} frozen rows \\(more than half\\): `),
  );
  assert.match(issues[0].message, /re-logged by the same run \(its step went back\)/);
  // 5 of the 6 rows holding train/entropy go: the record kept for each step is a profiling row.
  assert.deepEqual(
    aligned.keyRows?.find((k) => k.key === "train/entropy"),
    { runId: "trlgrpolog1", round: "R0", key: "train/entropy", rows: 6, superseded: 5 },
  );
});

test("the TRL profile as it is: no superseding, no guard issue, every training row a record", () => {
  const aligned = alignRuns(archive.runs);
  assert.deepEqual(aligned.superseded, []);
  assert.deepEqual(aligned.issues, []);
  assert.equal(aligned.rollouts.length, 6);
  assert.deepEqual(
    aligned.keyRows?.find((k) => k.key === "train/entropy"),
    { runId: "trlgrpolog1", round: "R0", key: "train/entropy", rows: 6, superseded: 0 },
  );
});

test("export refuses a concept cell left empty while live frozen rows hold its key, naming key, run and rows", () => {
  // A profile that takes TRL's training rows for rows of its own too: they stay live, but no record keeps them.
  const aligned = alignSteps(archive.runs, trlWithOwnRows([...ownRowsOf(TRL_PROFILE), { prefix: "train/", what: "a misread" }]));
  const withProfile = { ...aligned, profile: { name: "trl", how: "given" as const, evidence: [] } };
  assert.equal(aligned.rollouts.length, 0);
  assert.throws(
    () => buildExports(archive, withProfile, { workspaceVersion: "test" }),
    /^Error: refusing to export: summary cell entropy_mean of round R0 is empty, but run trlgrpolog1 \(round R0\): train\/entropy in 6 live frozen row\(s\); no logged steps record kept it \(round R0 has no logged steps\): the records miss rows that hold the metric .*\(and 11 more such cell\(s\)\)\. Nothing was written/,
  );
  // Allowed: the manifest lists every such cell instead.
  const build = buildExports(archive, withProfile, { workspaceVersion: "test", allowIssues: true });
  const unfilled = build.manifest.summaryNotes.filter((n) => n.startsWith("unfilled despite the frozen rows: "));
  assert.deepEqual(
    unfilled.map((n) => /summary cell (\S+) of round (\S+)/.exec(n)!.slice(1).join(" ")),
    ["entropy_mean", "clipfrac_mean", "grad_norm_mean", "response_len_mean", "truncated_ratio_mean", "reward_mean"].flatMap((c) => [`${c} R0`, `${c} all`]),
  );
});

test("with the summary deferred (writeExports), the same refusal comes from writing it, and the export folder is left as it was", async () => {
  const aligned = alignSteps(archive.runs, trlWithOwnRows([...ownRowsOf(TRL_PROFILE), { prefix: "train/", what: "a misread" }]));
  const withProfile = { ...aligned, profile: { name: "trl", how: "given" as const, evidence: [] } };
  const out = path.join(tmp, "deferred-refused");
  fs.mkdirSync(out);
  fs.writeFileSync(path.join(out, "summary.csv"), "an earlier export\n");
  // Planning makes no summary yet, so it cannot refuse.
  const plan = planExports(archive, withProfile, { workspaceVersion: "test", deferSummary: true });
  await assert.rejects(
    writePlannedExports(out, plan, { csvWorkers: true }),
    /^Error: refusing to export: summary cell entropy_mean of round R0 is empty, but run trlgrpolog1 .*\(and 11 more such cell\(s\)\)\. Nothing was written/,
  );
  assert.deepEqual(fs.readdirSync(out), ["summary.csv"], "no new file, no staging folder left");
  assert.equal(fs.readFileSync(path.join(out, "summary.csv"), "utf8"), "an earlier export\n");
  // Allowed: the same files as the eager plan's.
  const allowed = path.join(tmp, "deferred-allowed");
  const written = await writePlannedExports(allowed, planExports(archive, withProfile, { workspaceVersion: "test", allowIssues: true, deferSummary: true }));
  const build = buildExports(archive, withProfile, { workspaceVersion: "test", allowIssues: true });
  for (const f of build.files) assert.equal(fs.readFileSync(path.join(allowed, f.name), "utf8"), f.text, f.name);
  assert.equal(written.files.length, 5);
});

test("a cell empty because its key is nowhere in the frozen rows is not refused, and its note is true of the frozen data", () => {
  const aligned = alignRuns(archive.runs);
  const build = buildExports(archive, aligned, { workspaceVersion: "test" });
  // TRL without vLLM logs no sampling log-prob gap: the column is empty, and no frozen row holds its key.
  const summary = build.files.find((f) => f.name === "summary.csv")!.text.split("\n");
  const header = summary[0].split(",");
  const col = header.indexOf("logprob_abs_diff_mean");
  assert.equal(summary[1].split(",")[col], "");
  const key = "train/sampling/sampling_logp_difference/mean";
  assert.ok(!archive.runs[0].rows.some((row) => key in row), `${key} in no frozen row`);
  for (const note of build.manifest.summaryNotes) {
    const m = /none of the \d+ .* has (\S+)$/.exec(note);
    if (m) assert.ok(!archive.runs[0].rows.some((row) => m[1] in row), `note "${note}" is false: ${m[1]} is in the frozen rows`);
  }
});

test("the bundled slime sample: key rows counted as the frozen rows say, no guard issue, no unfilled cell (its exports are unchanged: test/export/write-exports.test.ts)", async () => {
  const bundled = await loadArchive(path.resolve(__dirname, "../../data/wandb"));
  const aligned = alignRuns(bundled.runs);
  assert.deepEqual(
    aligned.issues.filter((x) => x.kind === "superseding-dominates"),
    [],
  );
  for (const k of aligned.keyRows ?? []) {
    const run = bundled.runs.find((r) => r.runId === k.runId)!;
    assert.equal(k.rows, run.rows.filter((row) => k.key in row).length, `run ${k.runId} ${k.key}`);
  }
  const keys = new Set((aligned.keyRows ?? []).map((k) => k.key));
  for (const key of ["train/entropy_loss", "train/pg_clipfrac", "train/grad_norm", "rollout/response_len/mean", "perf/step_time"])
    assert.ok(keys.has(key), key);
  const build = buildExports(bundled, aligned, { workspaceVersion: "test" });
  assert.deepEqual(
    build.manifest.summaryNotes.filter((n) => n.startsWith("unfilled")),
    [],
  );
});

test("slime: a relaunch that re-logs most of the previous round is a blocking issue naming runs, rows and rollouts; one that re-logs a little is not", () => {
  // Round R0 logs rollouts 1..5 (5 rows each with N = 2); R1 starts again at rollout 2: R0 keeps 1 of 5.
  const most = alignRuns([slimeRun({ runId: "a", round: "R0", n: 2, rollouts: ids(1, 5) }), slimeRun({ runId: "b", round: "R1", n: 2, rollouts: ids(2, 6) })]);
  const issues = most.issues.filter((x) => x.kind === "superseding-dominates");
  assert.deepEqual(
    issues.map((x) => [x.runId, x.round, x.key, x.step]),
    [["a", "R0", null, 2]],
  );
  assert.match(
    issues[0].message,
    /^run a \(round R0\): superseding would drop 20 of its 25 frozen rows \(more than half\): run a \(round R0\): 20 row\(s\) superseded, replaced by round R1 \(run b\), which starts at rollout 2/,
  );
  assert.throws(
    () => assertMappingHolds(most, { what: "to export" }),
    /^Error: refusing to export: the axis mapping does not hold for run a, round R0, rollout 2: superseding-dominates: /,
  );
  // R1 restarting at rollout 5 takes 5 of R0's 25 rows: no issue.
  const little = alignRuns([
    slimeRun({ runId: "a", round: "R0", n: 2, rollouts: ids(1, 5) }),
    slimeRun({ runId: "b", round: "R1", n: 2, rollouts: ids(5, 6) }),
  ]);
  assert.deepEqual(little.issues, []);
});
