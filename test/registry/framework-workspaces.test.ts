/**
 * verl, OpenRLHF and TRL runs from the framework simulators (tools/simulate-frameworks/), with a
 * restart overlap between rounds: alignment, superseding and the exported summary equal the
 * simulator's ground truth (what it generated), round by round; every notebook runs headless on
 * each framework's workspace, sections a framework cannot fill saying so.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";

import { alignRuns } from "../../lib/align/align-runs";
import { buildExports } from "../../lib/export/build-exports";
import { readExportCsv } from "../../lib/export/read-export-csv";
import { metricOf } from "../../lib/registry/framework-profile";
import { profileByName } from "../../lib/registry/profiles";
import type { ConceptId } from "../../lib/registry/concepts";
import type { RunHistory } from "../../lib/types";
import { frameworkManifest } from "../../tools/simulate-frameworks/archive-data";
import { simulateFramework } from "../../tools/simulate-frameworks/simulate";
import type { FrameworkSimulation } from "../../tools/simulate-frameworks/types";
import { compactRuns } from "../fixtures/compact-runs";

const ROOT = path.resolve(__dirname, "../..");
const SCENARIOS: Record<string, Parameters<typeof simulateFramework>[0]> = {
  verl: { framework: "verl", rounds: [{ steps: 12 }, { steps: 8 }, { steps: 12 }], restartOverlap: 3 },
  openrlhf: { framework: "openrlhf", rounds: [{ steps: 12 }, { steps: 8 }, { steps: 12 }], restartOverlap: 3 },
  // As a real TRL run reports to W&B: its profiling rows, stamped by step_sync (the case that once
  // exported empty cells; checked against real runs in test/simulate-frameworks/real-traits-trl.test.ts).
  trl: {
    framework: "trl",
    rounds: [{ steps: 60 }, { steps: 40 }, { steps: 60 }],
    restartOverlap: 15,
    profiling: true,
    stepSync: true,
    generation: "transformers",
    numIterations: 2,
  },
};

/** Summary columns read through each profile's concept, checked against the truth's mean of that key. */
const MEAN_COLUMNS: [string, ConceptId][] = [
  ["entropy_mean", "entropy"],
  ["clipfrac_mean", "clipfrac"],
  ["grad_norm_mean", "gradNorm"],
  ["response_len_mean", "responseLen"],
  ["truncated_ratio_mean", "truncated"],
  ["rollout_time_mean", "rolloutTime"],
];

function histories(s: FrameworkSimulation): RunHistory[] {
  return s.runs.map((r) => ({ runId: r.runId, round: r.round, entity: s.entity, project: s.project, state: r.state, rows: r.history }));
}

for (const [name, opts] of Object.entries(SCENARIOS)) {
  test(`${name}: records, superseded steps and summary.csv equal the simulator's truth, round by round`, () => {
    const s = simulateFramework(opts);
    const runs = histories(s);
    const aligned = alignRuns(runs);
    assert.equal(aligned.profile!.name, name, "detected from the keys");
    assert.deepEqual(aligned.issues, []);
    assert.deepEqual(aligned.updates, []);
    s.truth.runs.forEach((t, i) => {
      assert.deepEqual(
        aligned.rollouts.filter((r) => r.runId === t.runId).map((r) => r.rollout),
        t.ownedSteps,
        `${t.round} owned steps`,
      );
      // Superseded records: the run's logged rows at steps a later round re-trained (TRL logs every logging_steps, and a last partial window).
      const sup = aligned.superseded.filter((x) => x.runId === t.runId).flatMap((x) => x.rollouts);
      const next = s.truth.runs[i + 1];
      if (next === undefined) assert.deepEqual(sup, [], "the last round keeps every record");
      else {
        assert.ok(
          sup.length > 0 && sup.every((st) => st > next.checkpointStep!),
          `${t.round}: superseded steps ${sup} all after ${next.round}'s checkpoint ${next.checkpointStep}`,
        );
        assert.ok(
          t.ownedSteps.every((st) => st <= next.checkpointStep!),
          `${t.round}: owned steps end at the checkpoint`,
        );
      }
    });
    const { files } = buildExports({ manifest: frameworkManifest(s) }, aligned, { workspaceVersion: "t" });
    const compactInput = compactRuns(runs);
    const compact = buildExports({ manifest: frameworkManifest(s) }, alignRuns(compactInput, { compact: true, releaseRows: true }), { workspaceVersion: "t" });
    assert.ok(
      compactInput.every((r) => r.rows.length === 0),
      `${name}: rows released once aligned`,
    );
    files.forEach((f, j) => assert.equal(compact.files[j].text, f.text, `${name} ${f.name}: compact rows give the same bytes`));
    const summary = readExportCsv(files.find((f) => f.name === "summary.csv")!.text, { file: "summary.csv" });
    const profile = profileByName(name);
    s.truth.runs.forEach((t, i) => {
      const row = summary.rows[i];
      assert.equal(row.rollouts, t.ownedSteps.length, `${t.round} rollouts`);
      assert.equal(row.history_events, t.historyRows, `${t.round} history_events`);
      for (const empty of ["updates", "ppo_kl_first_update_mean", "ppo_kl_later_updates_mean", "zero_grad_norm_updates", "actor_tok_per_s_mean"]) {
        assert.equal(row[empty], null, `${t.round} ${empty} empty`);
      }
      for (const [column, concept] of MEAN_COLUMNS) {
        const metric = metricOf(profile, concept);
        if (metric === null) {
          assert.equal(row[column], null, `${t.round} ${column}: ${name} does not log ${concept}`);
          continue;
        }
        const want = t.means[metric.key];
        if (want === undefined) continue; // a key the truth does not average (e.g. OpenRLHF's entropy, absent by default)
        const got = row[column] as number | null;
        if (want.mean === null) assert.equal(got, null, `${t.round} ${column}`);
        else assert.ok(got !== null && Math.abs(got - want.mean) <= 1e-12 * Math.max(1, Math.abs(want.mean)), `${t.round} ${column}: ${got} vs ${want.mean}`);
      }
    });
    const manifest = JSON.parse(files.find((f) => f.name === "manifest.json")!.text);
    assert.equal(manifest.profile.name, name);
    const updatesColumn = manifest.summaryColumns.find((c: { name: string }) => c.name === "updates");
    assert.match(updatesColumn.description, /^empty: /, "the manifest says why updates is empty");
    assert.equal(files.find((f) => f.name === "updates.csv")!.text, "round,run_id,update,train_step,rollout,update_in_rollout\n", "header only");
  });
}

test("notebooks 01-06 run headless on a verl, an OpenRLHF and a TRL workspace; sections they cannot fill say so", { timeout: 600_000 }, (t) => {
  const tmp = mkdtempSync(path.join(tmpdir(), "fw-notebooks-"));
  t.after(() => rmSync(tmp, { recursive: true, force: true }));
  for (const [name, opts] of Object.entries(SCENARIOS)) {
    const dir = path.join(tmp, name);
    const args = [
      "--import",
      "tsx",
      path.join(ROOT, "tools/simulate-frameworks/cli.ts"),
      "--framework",
      name,
      "--out-dir",
      dir,
      "--rounds",
      opts.rounds!.map((r) => r.steps).join(","),
      "--restart-overlap",
      String(opts.restartOverlap),
    ];
    const sim = spawnSync(process.execPath, args, { cwd: ROOT, encoding: "utf8" });
    assert.equal(sim.status, 0, sim.stderr);
    const out = path.join(tmp, `${name}-out`);
    const env = { ...process.env, WORKSPACE_DATA: dir, WORKSPACE_EXPORTS: path.join(tmp, `${name}-exports`), TZ: "UTC" };
    const nbs = ["01-fetch", "02-alignment", "03-policy-diagnostics", "04-response-length-throughput", "05-export", "06-health"].map((n) =>
      path.join(ROOT, "notebooks", `${n}.ipynb`),
    );
    const run = spawnSync(path.join(ROOT, ".venv/bin/python"), [path.join(ROOT, "scripts/run-notebooks.py"), "--jobs", "2", "--out", out, ...nbs], {
      cwd: ROOT,
      env,
      encoding: "utf8",
    });
    assert.equal(run.status, 0, `${name}: ${run.stdout}\n${run.stderr}`);
    const text = (nb: string) => readFileSync(path.join(out, `${nb}.ipynb`), "utf8");
    assert.match(
      text("03-policy-diagnostics"),
      new RegExp(`framework profile: ${profileByName(name).label.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} \\(detected`),
    );
    assert.match(text("03-policy-diagnostics"), /ppo_kl by update position: not applicable/);
    assert.match(text("03-policy-diagnostics"), /updates with gradient norm exactly 0: not applicable/);
    // The mismatch panel reads each framework's own keys, or says there are none.
    const mismatch: Record<string, RegExp> = {
      verl: /rollout_corr\/k3_kl: [-+0-9.e]+ per round, the least-squares slope of \d round means/,
      trl: /train\/sampling\/sampling_logp_difference\/mean: [-+0-9.e]+ per round, the least-squares slope of \d round means/,
      openrlhf: /Train\/inference mismatch: nothing to show.\* these OpenRLHF runs log none of its declared mismatch keys/,
    };
    assert.match(text("03-policy-diagnostics"), mismatch[name], `${name}: the mismatch panel`);
    assert.match(text("05-export"), /framework profile: .*\(detected\)/);
  }
});
