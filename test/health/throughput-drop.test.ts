import { SLIME_PROFILE } from "../../lib/registry/profile-slime";
import { test } from "node:test";
import assert from "node:assert/strict";

import { throughputDrop } from "../../lib/health/throughput-drop";
import { buildAligned } from "../diagnostics/aligned-builder";

const tok = (...xs: number[]) => xs.map((x) => ({ rollout: { "perf/actor_train_tok_per_s": x } }));
const flagsOf = (out: ReturnType<typeof throughputDrop.run>) =>
  out.applicable ? out.flags.map((f) => [f.round, f.first, f.last, f.count, f.value]) : out.reason;

test("throughput_drop: a round median below (1 - 0.2) x the previous logged round's; rounds without values are skipped", () => {
  const aligned = buildAligned([
    { round: "R0", batches: tok(90, 100, 110) }, // rollouts 1-3, median 100
    { round: "R1", batches: tok(85, 80, 90) }, // 4-6, median 85: -15 %, fine
    { round: "R2", batches: tok(60, NaN, 59, 61) }, // 7-10, median 60 < 68: flagged over its 3 finite batches
    { round: "R3", batches: [{ rollout: { "rollout/kl": 0 } }] }, // 11: no throughput
    { round: "R4", batches: tok(30) }, // 12, median 30 < 0.8 x 60 (R2, the previous round that logged it)
  ]);
  const out = throughputDrop.run(aligned, { max_drop: 0.2 }, SLIME_PROFILE);
  assert.deepEqual(flagsOf(out), [
    ["R2", 7, 10, 3, 60],
    ["R4", 12, 12, 1, 30],
  ]);
  assert.equal(out.applicable && out.evidence, "round medians: R0 100, R1 85, R2 60, R4 30");
});

test("throughput_drop does NOT fire on a fall of exactly max_drop, nor on a rise", () => {
  const aligned = buildAligned([
    { round: "R0", batches: tok(100) },
    { round: "R1", batches: tok(80) },
    { round: "R2", batches: tok(200) },
  ]);
  assert.deepEqual(flagsOf(throughputDrop.run(aligned, { max_drop: 0.2 }, SLIME_PROFILE)), []);
});

test("throughput_drop is not applicable with fewer than two rounds that log it", () => {
  const aligned = buildAligned([
    { round: "R0", batches: tok(100) },
    { round: "R1", batches: [{ rollout: { "rollout/kl": 0 } }] },
  ]);
  assert.equal(
    flagsOf(throughputDrop.run(aligned, { max_drop: 0.2 }, SLIME_PROFILE)),
    "fewer than two rounds with a finite perf/actor_train_tok_per_s: nothing to compare",
  );
});
