import { test } from "node:test";
import assert from "node:assert/strict";

import { alignRuns } from "../../lib/align/align-runs";
import { buildExports } from "../../lib/export/build-exports";
import { policyRoundTable } from "../../lib/diagnostics/policy-round-table";
import type { Archive, RunHistory } from "../../lib/types";
import { ids, slimeRun } from "../align/slime-history";

function archiveOf(runs: RunHistory[]): Archive {
  return {
    dir: "mem",
    manifest: {
      kind: "wandb-frozen-history",
      formatVersion: 1,
      readerVersion: "test",
      pageSize: 1,
      runs: runs.map((r) => ({
        entity: r.entity,
        project: r.project,
        runId: r.runId,
        round: r.round,
        state: r.state,
        historyEvents: r.rows.length,
        lastStep: r.rows.length - 1,
        createdAt: null,
        fetchedAt: "2026-01-01T00:00:00.000Z",
        file: `history/${r.runId}.jsonl`,
        sha256: "0".repeat(64),
        bytes: 0,
      })),
    },
    runs,
  };
}

test("a run whose axis mapping does not hold: export and round tables refuse, naming run, step and key, unless allowIssues", () => {
  const runs = [slimeRun({ runId: "a", round: "R0", n: 2, rollouts: ids(1, 3), dropSteps: [5] })];
  const aligned = alignRuns(runs);
  const expected =
    "refusing to export: the axis mapping does not hold for run a, round R0, train/step 5: missing-update: run a (round R0): rollout 2 lacks train/step 5 (update 4). Numbers built on it could be wrong; pass allowIssues (CLI: --allow-issues) to build them anyway";
  assert.throws(() => buildExports(archiveOf(runs), aligned, { workspaceVersion: "t" }), { message: expected });
  assert.throws(() => policyRoundTable(aligned), /^Error: refusing the policy round table: the axis mapping does not hold for run a/);
  const built = buildExports(archiveOf(runs), aligned, { workspaceVersion: "t", allowIssues: true });
  assert.equal(built.manifest.builtDespiteIssues, true);
  assert.deepEqual(built.manifest.alignmentIssues, ["missing-update: run a (round R0): rollout 2 lacks train/step 5 (update 4)"]);
});

test("a gap between rounds is reported but does not refuse (nothing is guessed, the mapping holds)", () => {
  const runs = [slimeRun({ runId: "a", round: "R0", n: 2, rollouts: ids(1, 3) }), slimeRun({ runId: "b", round: "R1", n: 2, rollouts: ids(6, 7) })];
  const aligned = alignRuns(runs);
  assert.deepEqual(
    aligned.issues.map((x) => x.kind),
    ["gap-between-rounds"],
  );
  const built = buildExports(archiveOf(runs), aligned, { workspaceVersion: "t" });
  assert.equal(built.manifest.builtDespiteIssues, false);
  assert.equal(built.manifest.alignmentIssues.length, 1);
});

test("superseded records go to superseded.csv and the manifest, never to rollouts.csv or updates.csv", () => {
  const runs = [slimeRun({ runId: "a", round: "R0", n: 2, rollouts: ids(1, 4) }), slimeRun({ runId: "b", round: "R1", n: 2, rollouts: ids(3, 5) })];
  const { files, manifest } = buildExports(archiveOf(runs), alignRuns(runs), { workspaceVersion: "t" });
  const text = (name: string) => files.find((f) => f.name === name)!.text;
  assert.equal(
    text("superseded.csv"),
    "round,run_id,record,rollout,update,train_step,by_round,by_run_id\n" +
      "R0,a,rollout,3,,,R1,b\nR0,a,rollout,4,,,R1,b\n" +
      "R0,a,update,3,5,6,R1,b\nR0,a,update,3,6,7,R1,b\nR0,a,update,4,7,8,R1,b\nR0,a,update,4,8,9,R1,b\n",
  );
  const rollouts = text("rollouts.csv")
    .trim()
    .split("\n")
    .slice(1)
    .map((l) => l.split(",").slice(0, 3).join(","));
  assert.deepEqual(rollouts, ["R0,a,1", "R0,a,2", "R1,b,3", "R1,b,4", "R1,b,5"]);
  const updates = text("updates.csv")
    .trim()
    .split("\n")
    .slice(1)
    .map((l) => l.split(",").slice(0, 4).join(","));
  assert.deepEqual(updates, ["R0,a,1,2", "R0,a,2,3", "R0,a,3,4", "R0,a,4,5", "R1,b,5,6", "R1,b,6,7", "R1,b,7,8", "R1,b,8,9", "R1,b,9,10", "R1,b,10,11"]);
  assert.deepEqual(
    manifest.superseded.map((s) => [s.runId, s.byRunId, s.rollouts, s.updates, s.rows]),
    [["a", "b", 2, 4, 10]],
  );
  // summary.csv keeps history_events = the W&B row count (superseded rows included); rollouts/updates count owned records.
  const summary = text("summary.csv").split("\n");
  const header = summary[0].split(",");
  const r0 = summary[1].split(",");
  assert.deepEqual([r0[header.indexOf("history_events")], r0[header.indexOf("rollouts")], r0[header.indexOf("updates")]], ["20", "2", "4"]);
});

test("superseded.csv lists a superseded eval row as the manifest's message counts it (issue 39, case 8)", () => {
  // A verl run resumed in place: its first process validated alone at step 2 (an eval-only row) and
  // trained step 3; the resumed process re-logs from step 2, so both of those rows are superseded.
  const train = (step: number) => ({ _step: step, "training/global_step": step, "actor/entropy": 1 + step / 10 });
  const val = (step: number) => ({ _step: step, "val-core/acc": step / 10 });
  const runs: RunHistory[] = [
    { entity: "e", project: "p", runId: "v", round: "R0", state: "finished", rows: [val(0), train(1), train(2), val(2), train(3), train(2), train(3)] },
  ];
  const aligned = alignRuns(runs, { profile: "verl" });
  const { files, manifest } = buildExports(archiveOf(runs), aligned, { workspaceVersion: "t" });
  assert.deepEqual(
    manifest.superseded.map((s) => [s.rollouts, s.evals, s.rows, s.message]),
    [
      [
        2,
        1,
        3,
        "run v (round R0): 3 row(s) superseded, re-logged by the same run (its step went back): steps 2..3 (2), 1 eval row(s); excluded from every record, mean and export",
      ],
    ],
  );
  assert.equal(
    files.find((f) => f.name === "superseded.csv")!.text,
    "round,run_id,record,rollout,update,train_step,by_round,by_run_id\nR0,v,rollout,2,,,R0,v\nR0,v,rollout,3,,,R0,v\nR0,v,eval,2,,,R0,v\n",
  );
});
