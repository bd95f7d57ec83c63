/**
 * A restart found in TensorBoard event files is the restart alignment, superseded.csv and the health
 * checks read, as from W&B (issue 39, case 6). On the real verl run resumed in place
 * (test/fixtures/real-runs/verl/resume-same-id, verl 0.9.1: R0 trains steps 1-3 with a checkpoint at
 * 2, R1 resumes from global_step_2, validates at 2 and re-logs 3, then 4-5), frozen from its two event
 * files and from its two `.wandb` logs: the same restart (resumed in place, re-logged from step 3),
 * the same superseded training record, the same mismatch_resume_spike evidence.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { after, test } from "node:test";

import { alignRuns } from "../../lib/align/align-runs";
import { fetchAndFreeze, type RunSelection } from "../../lib/archive/fetch-and-freeze";
import { loadArchive } from "../../lib/archive/load-archive";
import { resumePoints } from "../../lib/diagnostics/mismatch-resumes";
import { buildExports } from "../../lib/export/build-exports";
import { runHealthChecks } from "../../lib/health/run-health-checks";
import type { TensorboardSource } from "../../lib/types";

const CASE = path.resolve(__dirname, "../fixtures/real-runs/verl/resume-same-id");
const R0_EVENTS = "R0-events.out.tfevents.1796488615.vm.24532.0";
const R1_EVENTS = "R1-events.out.tfevents.1796488668.vm.25555.0";
const ID = "verl-resume-same-id";
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "restart-facts-"));
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** Freezes, loads, aligns and exports the runs; the notes of the fetch are kept. */
async function frozen(name: string, runs: RunSelection[]) {
  const outDir = path.join(tmp, name);
  const notes: string[] = [];
  const manifest = await fetchAndFreeze({
    entity: "",
    project: "",
    runs,
    outDir,
    env: {},
    now: () => new Date("2026-12-01T00:00:00.000Z"),
    reporter: { info: (m) => notes.push(m), warn: () => {} },
    profile: "detect",
  });
  const archive = await loadArchive(outDir);
  const aligned = alignRuns(archive.runs);
  const superseded = buildExports(archive, aligned, { workspaceVersion: "t" }).files.find((f) => f.name === "superseded.csv")!.text!;
  return { outDir, manifest, aligned, superseded, notes, health: runHealthChecks(aligned) };
}

const fromWandb = () =>
  frozen(
    "wandb",
    ["R0", "R1"].map((r) => ({ runId: ID, round: "R0", file: path.join(CASE, `${r}-run-${ID}.wandb`) })),
  );
const fromTensorboard = () => frozen("tensorboard", [{ runId: ID, round: "R0", tensorboard: CASE }]);

const spike = (h: ReturnType<typeof runHealthChecks>) => h.results.find((r) => r.check === "mismatch_resume_spike")!;

test("the restart found at fetch from TensorBoard is in the manifest, and the note says alignment supersedes", async () => {
  const tb = await fromTensorboard();
  const source = tb.manifest.runs[0].source as TensorboardSource;
  // R1 logs its validation at 2 (the tags R0 logged at 2 and 3) and its training from 3: 154 of R0's values.
  assert.deepEqual(source.restarts, [{ file: R0_EVENTS, by: R1_EVENTS, fromStep: 2, toStep: 3, values: 154 }]);
  assert.equal(source.supersededValues, 154);
  assert.equal(tb.manifest.runs[0].lastStep, 5);
  assert.ok(
    tb.notes.some((m) =>
      m.endsWith(
        `${R1_EVENTS} re-logged steps 2-3 of ${R0_EVENTS} (a restart from a checkpoint): its 154 earlier value(s) there are frozen before the re-logged ones, and alignment supersedes records by the rule it applies to a W&B run resumed in place (notebook 02, superseded.csv)`,
      ),
    ),
    tb.notes.join("\n"),
  );
});

test("TensorBoard and W&B: the same restart, the same superseded training record, the same mismatch_resume_spike evidence", async () => {
  const [wb, tb] = [await fromWandb(), await fromTensorboard()];
  for (const side of [wb, tb]) {
    assert.deepEqual(
      resumePoints(side.aligned).map((p) => [p.kind, p.from]),
      [["resumed in place", 3]],
    );
    assert.deepEqual(
      side.aligned.superseded.map((s) => s.rollouts),
      [[3]],
    );
    assert.equal(spike(side.health).status, "no flags");
  }
  assert.equal(spike(tb.health).evidence, spike(wb.health).evidence);
  assert.match(spike(tb.health).evidence ?? "", /^rollout_corr\/log_ppl_abs_diff at resumed in place R0 \(batch 3\): 0\.001636 after/);
  assert.equal(wb.superseded, `round,run_id,record,rollout,update,train_step,by_round,by_run_id\nR0,${ID},rollout,3,,,R0,${ID}\n`);
  // TensorBoard keeps one value per tag and step: R1's validation at the checkpoint step replaced R0's,
  // which W&B holds inside R0's training row of step 2 (a row R1 did not re-log).
  assert.equal(tb.superseded, `round,run_id,record,rollout,update,train_step,by_round,by_run_id\nR0,${ID},rollout,3,,,R0,${ID}\nR0,${ID},eval,2,,,R0,${ID}\n`);
});

test("a TensorBoard archive without the restarts field (frozen before it was kept) still loads; re-logged rows without it are refused", async () => {
  const tb = await fromTensorboard();
  const file = path.join(tb.outDir, "history", `${ID}.jsonl`);
  const lines = fs.readFileSync(file, "utf8").trimEnd().split("\n");
  const steps = lines.map((l) => JSON.parse(l)._step as number);
  assert.deepEqual(steps, [0, 1, 2, 3, 2, 3, 4, 5], "R0's re-logged steps 2-3, then the kept rows from 2 on");
  const rewrite = (name: string, keep: string[], withRestarts: boolean) => {
    const dir = path.join(tmp, name);
    fs.cpSync(tb.outDir, dir, { recursive: true });
    const text = `${keep.join("\n")}\n`;
    fs.writeFileSync(path.join(dir, "history", `${ID}.jsonl`), text);
    const m = JSON.parse(fs.readFileSync(path.join(dir, "manifest.json"), "utf8"));
    Object.assign(m.runs[0], { sha256: createHash("sha256").update(text).digest("hex"), bytes: Buffer.byteLength(text), historyEvents: keep.length });
    if (!withRestarts) delete m.runs[0].source.restarts;
    fs.writeFileSync(path.join(dir, "manifest.json"), JSON.stringify(m, null, 2));
    return dir;
  };
  const old = await loadArchive(rewrite("old", [...lines.slice(0, 2), ...lines.slice(4)], false));
  assert.deepEqual(
    old.runs[0].rows.map((r) => r._step),
    [0, 1, 2, 3, 4, 5],
  );
  await assert.rejects(loadArchive(rewrite("unstated", lines, false)), /line 5: _step 2 does not increase \(previous 3\)$/);
});
