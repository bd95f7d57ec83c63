import { test } from "node:test";
import assert from "node:assert/strict";
import { updatesByPositionFigure } from "../../lib/figures/updates-by-position";
import { CATEGORY_COLORS } from "../../lib/figures/palette";
import { alignedFixture } from "./aligned-fixture";

test("ppo_kl coloured by position in the rollout batch", () => {
  const fig = updatesByPositionFigure(alignedFixture(true));
  const [all, first, second] = fig.data as any[];
  assert.equal(fig.data.length, 3, "a grey line plus one trace per position (N = 2)");
  assert.deepEqual(all.x, [1, 2, 3, 4, 5, 6, 7, 8]);
  assert.deepEqual(all.y, [0, 0.02, 0, 0.04, 0, 0.06, 0, 0.08]);
  assert.equal(first.name, "update 1 of 2 in its batch");
  assert.deepEqual(first.x, [1, 3, 5, 7], "first update of each batch: train/step even");
  assert.deepEqual(first.y, [0, 0, 0, 0]);
  assert.equal(first.marker.color, CATEGORY_COLORS[0]);
  assert.equal(second.name, "update 2 of 2 in its batch");
  assert.deepEqual(second.x, [2, 4, 6, 8]);
  assert.deepEqual(second.y, [0.02, 0.04, 0.06, 0.08]);
  assert.equal(second.marker.color, CATEGORY_COLORS[1]);
  assert.equal(fig.layout.shapes![0].x0, 4.5);
  assert.equal(fig.layout.title!.text, "ppo_kl per optimizer update, by position in its rollout batch");
  assert.deepEqual(fig.layout.meta, { figure: "updates-by-position", key: "train/ppo_kl", missing: 0, nonFinite: 0, updatesPerRollout: 2 });
});

test("a position with no updates still gets its legend entry", () => {
  const aligned = alignedFixture();
  aligned.mapping = { ...aligned.mapping, n: 3 };
  const fig = updatesByPositionFigure(aligned, "train/ppo_kl");
  assert.deepEqual(
    (fig.data as any[]).slice(1).map((t) => [t.name, t.x.length]),
    [
      ["update 1 of 3 in its batch", 4],
      ["update 2 of 3 in its batch", 4],
      ["update 3 of 3 in its batch", 0],
    ],
  );
});

test("rejects a rollout key", () => {
  assert.throws(() => updatesByPositionFigure(alignedFixture(), "perf/rollout_time"), /^Error: invalid key: perf\/rollout_time/);
});
