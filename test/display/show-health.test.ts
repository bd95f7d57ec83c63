import { test } from "node:test";
import assert from "node:assert/strict";

import {
  healthFlagRows,
  healthFlagsCaption,
  healthParamRows,
  healthReadingMarkdown,
  healthResultsHtml,
  healthSummaryFromNotebook,
  showHealthResults,
} from "../../lib/display/show-health";
import type { Notebook } from "../../lib/display/notebook-static-images";
import { resolveHealthParams } from "../../lib/health/health-params";
import { runHealthChecks } from "../../lib/health/run-health-checks";
import { buildAligned } from "../diagnostics/aligned-builder";
import { fakeDisplay } from "./fake-display";
import { alignRuns } from "../../lib/align/align-runs";
import { runOf } from "../align/slime-history";
import { SLIME_PROFILE } from "../../lib/registry/profile-slime";
import { TRL_PROFILE } from "../../lib/registry/profile-trl";

const aligned = buildAligned([
  { round: "R0", batches: [{ rollout: { "rollout/kl": NaN }, updates: [{ "train/ppo_kl": 0.5, "train/loss": -Infinity }, { "train/ppo_kl": 0.1 }] }] },
]);
const report = runHealthChecks(aligned);

test("flags table: one row per flag, values as health.csv writes them", () => {
  assert.deepEqual(
    healthFlagRows(report).map((r) => [r.check, r.unit, r.first, r.key, r.value]),
    [
      ["ppo_kl_first_update", "optimizer update", 1, "train/ppo_kl", "0.5"],
      ["non_finite", "optimizer update", 1, "train/loss", "-Inf"],
      ["non_finite", "rollout batch", 1, "rollout/kl", "NaN"],
    ],
  );
});

test("the per-check table carries a summary the HTML report reads back from the executed notebook", () => {
  const html = healthResultsHtml(report);
  const nb: Notebook = {
    cells: [
      { cell_type: "code", source: "", outputs: [{ output_type: "display_data", data: { "text/html": "<table></table>" } }] },
      { cell_type: "code", source: "", outputs: [{ output_type: "display_data", data: { "text/html": html.split(/(?<=\n)/) } }] },
    ],
    metadata: {},
    nbformat: 4,
    nbformat_minor: 4,
  };
  const summary = healthSummaryFromNotebook(nb)!;
  assert.deepEqual(summary.slice(0, 4), [
    { check: "ppo_kl_first_update", status: "flagged", flags: 1 },
    { check: "zero_grad_norm_streak", status: "not applicable", flags: 0 },
    { check: "non_finite", status: "flagged", flags: 2 },
    { check: "truncation_surge", status: "not applicable", flags: 0 },
  ]);
  assert.equal(summary.length, 20, "one entry per declared check");
  assert.equal(healthSummaryFromNotebook({ ...nb, cells: [nb.cells[0]] }), null, "a notebook without the report has no summary");
  const d = fakeDisplay();
  showHealthResults(report, "caption", { display: d });
  assert.deepEqual(d.calls, [
    ["text/html", html],
    ["text/markdown", "caption"],
  ]);
});

test("reading markdown: result, rule, evidence, what a flag is and is not; not applicable says why", () => {
  const kl = healthReadingMarkdown(report.results[0]);
  assert.match(kl, /^\*\*ppo\\_kl\\_first\\_update\*\* \(warning\): 1 flag\. Rule: \\\|train\/ppo\\_kl\\\| \\> 1e-8 on an update/);
  assert.match(kl, /\n- \*\*What a flag is:\*\* /);
  assert.match(kl, /\n- \*\*What it is not:\*\* not proof of a bug/);
  assert.match(healthReadingMarkdown(report.results[1]), /: not applicable \(no optimizer update logs train\/grad\\_norm/);
});

test("thresholds table: value, default, where it came from, the variable", () => {
  const rows = healthParamRows(resolveHealthParams({ env: { HEALTH_THROUGHPUT_DROP_MAX_DROP: "0.3" } }));
  assert.deepEqual(
    rows.find((r) => r.check === "throughput_drop"),
    {
      check: "throughput_drop",
      parameter: "max_drop",
      value: "0.3",
      default: "0.2",
      from: "environment",
      variable: "HEALTH_THROUGHPUT_DROP_MAX_DROP",
      meaning: "largest accepted fall of the round median against the previous round's (fraction)",
    },
  );
});

test("a TRL run's flags in TRL's words: the unit, the caption and the non_finite rule name its logged steps and train/global_step, never rollouts or display updates", () => {
  const rows = [1, 2, 3].map((s) => ({
    _step: s - 1,
    "train/global_step": s,
    "train/loss": s === 2 ? Number.NaN : 0.5,
    "train/reward": 0.1,
    "train/num_tokens": 100 * s,
  }));
  const trl = alignRuns([runOf("trl-run", "R0", rows)], { profile: "trl" });
  const r = runHealthChecks(trl);
  assert.deepEqual(
    healthFlagRows(r).map((x) => [x.check, x.unit, x.first, x.key]),
    [["non_finite", "logged step", 2, "train/loss"]],
  );
  const caption = healthFlagsCaption(r, TRL_PROFILE);
  assert.equal(
    caption,
    "Flags: one row per flagged range (as in exports/health.csv). first/last are train/global_step values (unit logged step); value is the most extreme value of the range.",
  );
  const rule = r.results.find((x) => x.check === "non_finite")!.rule;
  assert.equal(rule, "a NaN, Inf or -Inf value in a numeric key of a logged step (one flag per key and round)");
  // slime keeps its two kinds of record.
  assert.match(
    healthFlagsCaption(report, SLIME_PROFILE),
    /first\/last are display update numbers \(unit optimizer update\) or rollout\/step values \(unit rollout batch\)/,
  );
  assert.match(report.results.find((x) => x.check === "non_finite")!.rule, /of an optimizer update or rollout batch/);
});
