import { test } from "node:test";
import assert from "node:assert/strict";

import { compareArms, type Arm } from "../../lib/compare/compare-arms";
import { compareAxis } from "../../lib/compare/compare-axis";
import { comparedColumns } from "../../lib/compare/compared-columns";
import type { Experiment } from "../../lib/compare/experiment";
import { armRows, compareReadingMarkdown, multipleComparisonsMarkdown, outsideRows, pairRows, refusalRows } from "../../lib/display/show-compare";
import { compareForestFigure } from "../../lib/figures/compare-forest";
import { compareRoundsFigure } from "../../lib/figures/compare-rounds";
import { SLIME_PROFILE } from "../../lib/registry/profile-slime";

function experiment(dir: string, r0: number, r1: number): Experiment {
  return {
    dir,
    manifestSha256: dir,
    profile: SLIME_PROFILE,
    updatesPerBatch: [2],
    rounds: ["R0", "R1"],
    columns: comparedColumns(SLIME_PROFILE),
    runs: [{ runId: dir }],
    cells: { reward_mean: { R0: r0, R1: r1, all: (r0 + r1) / 2 } },
    axisMissing: {},
    unplaced: 0,
    axis: "round",
  };
}
const arms: Arm[] = [
  { name: "a", experiments: [experiment("a1", 0.1, 0.2), experiment("a2", 0.3, 0.4)] },
  { name: "b", experiments: [experiment("b1", 0.5, 0.6), experiment("b2", 0.7, 0.8)] },
];
const result = compareArms(arms, experiment("ref", 0.1, 0.2), { seed: 0, resamples: 200 });

test("the figure draws each experiment thin and each arm's IQM bold with its band, from the comparison's own numbers", () => {
  const fig = compareRoundsFigure(arms, result, "reward_mean");
  // Per arm: band upper edge, band, two experiments, IQM.
  assert.equal(fig.data.length, 2 * 5);
  const byName = (n: string) => fig.data.find((t) => (t as { name?: string }).name === n) as { x: string[]; y: number[]; line: { width: number } };
  const a1 = fig.data.find((t) => (t as { text?: string[] }).text?.[0] === "a1") as { x: string[]; y: number[]; line: { width: number }; name: string };
  assert.deepEqual(a1.x, ["R0", "R1"]);
  assert.deepEqual(a1.y, [0.1, 0.2]);
  assert.equal(a1.line.width, 1);
  assert.equal(a1.name, "a: each experiment");
  const iqm = byName("b: IQM");
  assert.equal(iqm.line.width, 3);
  const row = result.compare.rows.find((r) => r[0] === "b" && r[1] === "reward_mean" && r[2] === "R0")!;
  assert.equal(iqm.y[0], row[result.compare.columns.indexOf("iqm")], "the IQM drawn is compare.csv's");
  assert.equal(fig.layout.meta?.figure, "compare-rounds");
  assert.throws(() => compareRoundsFigure(arms, result, "entropy_mean"), /invalid column: entropy_mean/);
});

test("the reading rule under a figure: the metric's is / is not, the direction and the cross-run rule from the registry", () => {
  const md = compareReadingMarkdown(arms, "reward_mean");
  assert.match(md, /`rollout\/raw_reward`/);
  assert.match(md, /higher is better: improvement\.csv gives P\(X > Y\)/);
  assert.match(md, /never comparable across reward functions/);
  assert.deepEqual(
    outsideRows(arms, result.corridor!).map((r) => r.archive),
    ["a2", "b1", "b2", "a2", "b1", "b2", "a2", "b1", "b2"],
    "reward band max(0.1 x |ref|, 0.02): only a1 stays inside",
  );
  assert.ok(
    refusalRows(arms, result).every((r) => /no value logged/.test(r.why)),
    "only the columns these experiments leave empty are refused",
  );
});

test("on a binned axis: points at bin centres, an empty bin a gap (null, never bridged), long series reduced and said so", () => {
  const axis = compareAxis("update", 10);
  const binned = (dir: string, cells: Record<string, number>): Experiment => ({
    ...experiment(dir, 0, 0),
    axis: "update",
    rounds: Object.keys(cells),
    cells: { reward_mean: { ...cells, all: 0.5 } },
  });
  const few: Arm[] = [{ name: "a", experiments: [binned("a1", { "0-10": 0.1, "20-30": 0.3 }), binned("a2", { "0-10": 0.2, "10-20": 0.25, "20-30": 0.4 })] }];
  const r = compareArms(few, null, { seed: 0, resamples: 200, axis });
  const fig = compareRoundsFigure(few, r, "reward_mean");
  const a1 = fig.data.find((t) => (t as { text?: string[] }).text?.[0]?.startsWith("a1")) as { x: number[]; y: (number | null)[]; connectgaps?: boolean };
  assert.deepEqual(a1.x, [5, 15, 25]);
  assert.deepEqual(a1.y, [0.1, null, 0.3], "no value in 10-20: a gap, not 0.2");
  assert.notEqual(a1.connectgaps, true);
  assert.equal(fig.layout.meta?.figure, "compare-axis");
  assert.match(String((fig.layout.xaxis as { title?: { text?: string } })?.title?.text ?? ""), /update \(optimizer update\), bins of 10/);
  // 3,000 bins: reduced like every long series, and the caption says so.
  const many: Record<string, number> = {};
  for (let k = 0; k < 3000; k++) many[`${k * 10}-${(k + 1) * 10}`] = Math.sin(k);
  const big: Arm[] = [{ name: "a", experiments: [binned("a1", many)] }];
  const rb = compareArms(big, null, { seed: 0, resamples: 100, axis });
  const fb = compareRoundsFigure(big, rb, "reward_mean");
  const drawn = (fb.data[2] as { x: number[] }).x.length;
  assert.ok(drawn < 3000 && drawn > 1000, `${drawn} points drawn`);
  assert.deepEqual(fb.layout.meta?.reduced, { from: 3000 * 4, to: drawn * 4 });
});

test("the forest plot of a concept: one row per arm, the IQM with its interval from compare.csv, each experiment's value, the reference's corridor", () => {
  const fig = compareForestFigure(arms, result, "reward_mean");
  const named = (n: string) => fig.data.find((t) => (t as { name?: string }).name === n) as Record<string, any>;
  const cell = (arm: string, name: string) =>
    result.compare.rows.find((r) => r[0] === arm && r[1] === "reward_mean" && r[2] === "all")![result.compare.columns.indexOf(name)] as number;
  // b's experiments over all rounds: (0.5 + 0.6) / 2 and (0.7 + 0.8) / 2; its IQM (2 values: their mean) 0.65.
  assert.deepEqual(named("b: each experiment").x, [0.55, 0.75]);
  const iqm = named("b: IQM, 95% interval");
  assert.ok(Math.abs(iqm.x[0] - 0.65) < 1e-15);
  assert.deepEqual(iqm.y, ["b"]);
  assert.ok(Math.abs(iqm.x[0] + iqm.error_x.array[0] - cell("b", "iqm_ci_high")) < 1e-15, "the interval drawn is compare.csv's");
  assert.ok(Math.abs(iqm.x[0] - iqm.error_x.arrayminus[0] - cell("b", "iqm_ci_low")) < 1e-15);
  // The reference over all rounds: (0.1 + 0.2) / 2 = 0.15; reward's band max(0.1 x 0.15, 0.02) = 0.02.
  const [band, line] = fig.layout.shapes as Record<string, number>[];
  assert.ok(Math.abs(band.x0 - 0.13) < 1e-12 && Math.abs(band.x1 - 0.17) < 1e-12, `${band.x0}..${band.x1}`);
  assert.ok(Math.abs(line.x0 - 0.15) < 1e-15);
  assert.equal(String((fig.layout.title as { text: string }).text), "reward, all rounds: each arm's IQM and 95% interval");
  assert.equal(fig.layout.meta?.figure, "compare-forest");
  assert.equal(
    compareForestFigure(arms, compareArms(arms, null, { seed: 0, resamples: 100 }), "reward_mean").layout.shapes,
    undefined,
    "no reference, no corridor",
  );
});

test("the page's tables: registry labels, numbers to 3 significant digits (the CSVs keep all), Welch p beside Holm p, and the caveat in numbers", () => {
  const a = armRows(arms, result, "all").find((r) => r.arm === "b")!;
  assert.deepEqual(
    Object.keys(a),
    ["concept", "arm", "n", "mean", "mean 95% interval", "IQM", "IQM 95% interval"],
    "no values column: each experiment's value is in compare.csv",
  );
  assert.equal(a.concept, "reward");
  assert.equal(a.mean, 0.65);
  assert.match(String(a["IQM 95% interval"]), /^\[0\.\d{1,3}, 0\.\d{1,3}\]$/);
  const [p] = pairRows(arms, result, "all");
  const raw = result.improvement.rows.find((r) => r[2] === "reward_mean" && r[3] === "all")!;
  const at = (n: string) => raw[result.improvement.columns.indexOf(n)] as number;
  assert.equal(p["Welch p"], Number(at("welch_p").toPrecision(3)));
  assert.equal(p["Holm p"], Number(at("welch_p_holm").toPrecision(3)));
  assert.ok(String(at("welch_p")).length > 6, "the CSV keeps every digit");
  // Three scopes, one pair, one compared concept: 3 tests.
  assert.match(multipleComparisonsMarkdown(result), /^\*\*3 Welch tests\*\* .*: 0 below 0\.05 as computed, 0 after Holm's adjustment over all 3/);
  assert.deepEqual(
    refusalRows(arms, result).map((r) => r.concept),
    [
      "entropy",
      "clip fraction",
      "gradient norm",
      "actor tokens/s",
      "mean response length",
      "truncated fraction",
      "rollout wall time",
      "|train - rollout log-prob|",
      "ppo_kl (first update of batch)",
      "ppo_kl (later updates of batch)",
    ],
    "each refused concept once, by its label",
  );
});
