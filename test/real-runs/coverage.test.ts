/**
 * Coverage on REAL runs (issue 39): no fixture written by a framework's own code gets a missing-step
 * warning, read from W&B or from TensorBoard. TRL logs a row every `logging_steps` optimizer steps and
 * the partial last interval once, at the run's last step (grpo-epoch-log3: 3, 6, 9, 12, 15, 16); the
 * smallest spacing (16 - 15 = 1) made every full interval look like a hole. A row really missing is
 * still found, against the frozen setting or, with flags unknown, the most common spacing.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { after, test } from "node:test";

import { fetchAndFreeze, type RunSelection } from "../../lib/archive/fetch-and-freeze";
import { loadArchive } from "../../lib/archive/load-archive";
import { alignRuns } from "../../lib/align/align-runs";
import { knownInterval } from "../../lib/registry/logging-interval";
import { OPENRLHF_PROFILE } from "../../lib/registry/profile-openrlhf";
import type { RunHistory } from "../../lib/types";
import { fixtureCases, survivingEntries, type FixtureCase, type FixtureRound } from "./own-record";

const ROOT = path.resolve(__dirname, "../fixtures/real-runs");
const CASES = fixtureCases(ROOT);
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "real-coverage-"));
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

const COVERAGE_KINDS = new Set(["missing-rollout", "gap-between-rounds"]);

/** The archive round of a fixture round: a later log of the same run id belongs to its first log's round. */
function archiveRound(c: FixtureCase, r: FixtureRound): string {
  return c.rounds.find((x) => x.wandbRunId === r.wandbRunId)!.round;
}

/** The case's runs from W&B (one per run id) or from TensorBoard (one per archive round, its files in one folder). */
function selections(c: FixtureCase, source: "wandb" | "tensorboard"): RunSelection[] {
  const rounds = [...new Set(c.rounds.map((r) => archiveRound(c, r)))];
  if (source === "wandb") return c.rounds.map((r) => ({ runId: r.wandbRunId, round: archiveRound(c, r), file: path.join(c.dir, r.wandbFile) }));
  return rounds.map((round) => {
    const files = c.rounds.filter((r) => archiveRound(c, r) === round).flatMap((r) => r.tensorboardFiles);
    const dir = path.join(tmp, "logdirs", c.framework, c.case, round);
    fs.mkdirSync(dir, { recursive: true });
    for (const f of files) fs.copyFileSync(path.join(c.dir, f), path.join(dir, path.basename(f)));
    return { runId: `tb-${round}`, round, tensorboard: dir };
  });
}

async function frozenRuns(c: FixtureCase, source: "wandb" | "tensorboard"): Promise<RunHistory[]> {
  const outDir = path.join(tmp, source, c.framework, c.case);
  await fetchAndFreeze({ entity: "", project: "", runs: selections(c, source), outDir, env: {}, now: () => new Date("2026-12-01T00:00:00.000Z") });
  return (await loadArchive(outDir)).runs;
}

const epoch = CASES.find((c) => c.framework === "trl" && c.case === "grpo-epoch-log3");
const skip = epoch === undefined ? "real-run fixtures absent (test/fixtures/real-runs)" : false;

for (const source of ["wandb", "tensorboard"] as const) {
  test(`no real fixture gets a missing-step or gap warning from ${source}; each round's records are the steps the framework's own record logged`, {
    skip,
  }, async () => {
    let checked = 0;
    for (const c of CASES) {
      if (source === "tensorboard" && c.rounds.some((r) => r.tensorboardFiles.length === 0)) continue;
      const aligned = alignRuns(await frozenRuns(c, source));
      assert.deepEqual(
        aligned.issues.filter((x) => COVERAGE_KINDS.has(x.kind)).map((x) => x.message),
        [],
        `${c.framework}/${c.case}`,
      );
      // A complete run (not killed, not resumed) owns exactly the steps its own record logged.
      if (c.rounds.length === 1 && c.rounds[0].exitRecord) {
        const own = survivingEntries(c)
          .get("R0")!
          .map((e) => e.step);
        assert.deepEqual(
          aligned.rollouts.map((r) => r.rollout),
          own,
          `${c.framework}/${c.case}: records`,
        );
      }
      checked++;
    }
    assert.ok(checked >= 20, `cases checked: ${checked}`);
  });
}

/** Rows of a run without the training row of one step (W&B: its step key; TensorBoard: the event step); profiling rows stay. */
function withoutStep(run: RunHistory, step: number): RunHistory {
  run.rows = run.rows.filter((row) => (row["train/global_step"] ?? row._step) !== step || row["train/reward"] === undefined);
  return run;
}

test("TRL over one epoch, logging_steps 3: rows 3, 6, 9, 12, 15 and the partial 16 are complete; a removed row 9 is the one hole, named with the setting", {
  skip,
}, async () => {
  const c = epoch!;
  // The maker's settings, and TRL's own record of what it logged (not the W&B rows).
  assert.equal(c.options.logging_steps, 3);
  assert.deepEqual(
    survivingEntries(c)
      .get("R0")!
      .map((e) => e.step),
    [3, 6, 9, 12, 15, 16],
  );
  for (const source of ["wandb", "tensorboard"] as const) {
    const runs = await frozenRuns(c, source);
    assert.equal(runs[0].flags?.logging_steps?.value, 3, `${source}: logging_steps frozen`);
    const hole = alignRuns([withoutStep(runs[0], 9)]);
    assert.deepEqual(
      hole.issues.map((x) => [x.kind, x.step, x.message]),
      [["missing-rollout", 9, `run ${runs[0].runId} (round R0): steps 9..9 missing between 6 and 12 (a row every 3 steps: logging_steps = 3)`]],
      source,
    );
  }
  // Flags unknown (a log without its config): the most common spacing, 3, finds the same hole and no other.
  const runs = await frozenRuns(c, "wandb");
  runs[0].flags = undefined;
  const unknown = alignRuns([withoutStep(runs[0], 9)]);
  assert.deepEqual(
    unknown.issues.map((x) => x.message),
    [`run ${runs[0].runId} (round R0): steps 9..9 missing between 6 and 12 (a row every 3 steps: the most common spacing of the records)`],
  );
  // The partial last interval is no hole whichever way the interval is known; without it nothing is missing either.
  const last = await frozenRuns(c, "wandb");
  assert.deepEqual(alignRuns([withoutStep(last[0], 16)]).issues, []);
});

test("OpenRLHF: the interval is the frozen logger.logging_steps (1 in every fixture), read from the logger group's repr without any other entry of it (its W&B key)", {
  skip,
}, async () => {
  for (const c of CASES.filter((x) => x.framework === "openrlhf")) {
    const runs = await frozenRuns(c, "wandb");
    for (const r of runs) {
      assert.deepEqual(knownInterval(OPENRLHF_PROFILE.axis.kind === "step" ? OPENRLHF_PROFILE.axis.interval : undefined, r.flags), {
        every: 1,
        firstStep: false,
        setting: "logger.logging_steps = 1",
      });
      assert.ok(!Object.keys(r.flags!).some((k) => k.startsWith("logger.") && k !== "logger.logging_steps"), Object.keys(r.flags!).join(", "));
    }
    const manifest = fs.readFileSync(path.join(tmp, "wandb", c.framework, c.case, "manifest.json"), "utf8");
    assert.ok(!manifest.includes("offline0fixture0key"), `${c.case}: the logger's wandb key reaches the manifest`);
  }
});
