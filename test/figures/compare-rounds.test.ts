import { test } from "node:test";
import assert from "node:assert/strict";

import { compareArms, type Arm } from "../../lib/compare/compare-arms";
import { compareAxis } from "../../lib/compare/compare-axis";
import { comparedColumns } from "../../lib/compare/compared-columns";
import type { Experiment } from "../../lib/compare/experiment";
import { compareReadingMarkdown, outsideRows, refusalRows, scopeRows } from "../../lib/display/show-compare";
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
  const rows = scopeRows(result.compare, "R0").filter((r) => r.arm === "b" && r.concept === "reward_mean");
  assert.equal(iqm.y[0], rows[0].iqm, "the IQM drawn is compare.csv's");
  assert.equal(fig.layout.meta?.figure, "compare-rounds");
  assert.throws(() => compareRoundsFigure(arms, result, "entropy_mean"), /invalid column: entropy_mean/);
});

test("the reading rule under a figure: the metric's is / is not, the direction and the cross-run rule from the registry", () => {
  const md = compareReadingMarkdown(arms, "reward_mean");
  assert.match(md, /`rollout\/raw_reward`/);
  assert.match(md, /higher is better: improvement\.csv gives P\(X > Y\)/);
  assert.match(md, /never comparable across reward functions/);
  assert.deepEqual(
    outsideRows(result.corridor!).map((r) => r.archive),
    ["a2", "b1", "b2", "a2", "b1", "b2", "a2", "b1", "b2"],
    "reward band max(0.1 x |ref|, 0.02): only a1 stays inside",
  );
  assert.ok(
    refusalRows(result).every((r) => /no value logged/.test(r.why)),
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
