/**
 * verl's timers on REAL verl 0.9.1 runs (test/fixtures/real-runs/verl/): the stacked time breakdown
 * adds up only the phases inside the step timer, so a step's bar never exceeds its `timing_s/step`
 * (found by driving verl's own loop: stacking every `timing_s/*` key, the agent loop's per-sample
 * statistics and `timing_s/testing` included, gave bars of seconds against steps under one).
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";

import { alignRuns } from "../../lib/align/align-runs";
import { timeBreakdown } from "../../lib/diagnostics/time-breakdown";
import { VERL_PROFILE } from "../../lib/registry/profile-verl";
import { stackableTimeCells } from "../../lib/tables/time-breakdown-rows";
import type { RunHistory } from "../../lib/types";
import { keysOf } from "../../lib/values/compact-values";
import { readWandbFile } from "../../lib/wandb-file/read-wandb-file";

const ROOT = path.resolve(__dirname, "../fixtures/real-runs/verl");
const SKIP = fs.existsSync(ROOT) ? false : `real verl fixtures absent (${ROOT})`;
const CASES = ["plain", "val", "ckpt"];

async function run(name: string): Promise<RunHistory> {
  const dir = path.join(ROOT, name);
  const file = fs.readdirSync(dir).find((f) => f.endsWith(".wandb"))!;
  const r = await readWandbFile(path.join(dir, file));
  return { runId: r.runId, round: "R0", entity: "", project: r.project, state: r.state, rows: r.rows };
}

test("every training step: the stackable timers add up to at most timing_s/step, and the agent loop's statistics are no timers", { skip: SKIP }, async () => {
  const { isTimer, stackable } = VERL_PROFILE.timers;
  let steps = 0;
  for (const name of CASES) {
    for (const row of (await run(name)).rows) {
      const step = row["timing_s/step"];
      if (step === undefined) continue;
      steps++;
      const keys = keysOf(row).filter((k) => k.startsWith("timing_s/"));
      assert.ok(
        keys.some((k) => k.startsWith("timing_s/agent_loop/")),
        `${name}: real rows log the agent loop's statistics`,
      );
      for (const k of keys) if (k.startsWith("timing_s/agent_loop/")) assert.equal(isTimer(k), false, k);
      const stacked = keys.filter(stackable).reduce((s, k) => s + row[k], 0);
      assert.ok(stacked <= step * (1 + 1e-9), `${name} step ${row._step}: stacked ${stacked} s > step ${step} s`);
      assert.ok(stacked >= 0.9 * step, `${name} step ${row._step}: the phases cover ${stacked} of ${step} s`);
      for (const outside of ["timing_s/testing", "timing_s/start_profile", "timing_s/stop_profile"]) assert.equal(stackable(outside), false, outside);
    }
  }
  assert.ok(steps >= 10, `training steps checked: ${steps}`);
});

// Runs whose every step logs every phase (in `ckpt`, timing_s/save_checkpoint is averaged over the two
// steps that saved, as the breakdown's notes say, so its bar is not a per-step sum).
test("the stacked figure's bars: no round's stack exceeds its mean step time", { skip: SKIP }, async () => {
  for (const name of ["plain", "val"]) {
    const aligned = alignRuns([await run(name)]);
    const tb = timeBreakdown(aligned);
    const cells = stackableTimeCells(tb, VERL_PROFILE);
    const stepMean = tb.rows[0].entries.find((e) => e.key === "timing_s/step")!.time.mean!;
    const bar = cells.filter((c) => c.round === "R0").reduce((s, c) => s + (c.mean ?? 0), 0);
    assert.ok(bar > 0 && bar <= stepMean * (1 + 1e-9), `${name}: bar ${bar} s vs mean step ${stepMean} s`);
  }
});
