import { SLIME_PROFILE } from "../../lib/registry/profile-slime";
import { test } from "node:test";
import assert from "node:assert/strict";

import { ppoKlStuckZero } from "../../lib/health/ppo-kl-stuck-zero";
import { buildAligned } from "../diagnostics/aligned-builder";

const P = { threshold: 1e-8, min_updates: 3 };
const kl = (a: number, b: number) => ({ updates: [{ "train/ppo_kl": a }, { "train/ppo_kl": b }] });
const flagsOf = (out: ReturnType<typeof ppoKlStuckZero.run>) =>
  out.applicable ? out.flags.map((f) => [f.round, f.first, f.last, f.count, f.value]) : out.reason;

test("ppo_kl_stuck_zero: a round whose later-position ppo_kl never leaves ~0 gives one flag", () => {
  const aligned = buildAligned([
    { round: "R0", batches: [kl(0, 0), kl(0, -5e-9), kl(0, 0)] }, // updates 2, 4, 6 all ~0
    { round: "R1", batches: [kl(0, 0), kl(0, 0.002), kl(0, 0)] }, // one later update moved
  ]);
  assert.deepEqual(flagsOf(ppoKlStuckZero.run(aligned, P, SLIME_PROFILE)), [["R0", 2, 6, 3, -5e-9]]);
});

test("ppo_kl_stuck_zero does NOT fire on rounds with too few judged updates (NaN not counted) or a normal two-update structure", () => {
  const aligned = buildAligned([
    { round: "R0", batches: [kl(0, 0), kl(0, NaN), kl(0, 0)] }, // 2 finite later-position values < 3
    { round: "R1", batches: [kl(0, 0.001), kl(0, 0.0012), kl(0, 0.0009)] },
  ]);
  assert.deepEqual(flagsOf(ppoKlStuckZero.run(aligned, P, SLIME_PROFILE)), []);
});

test("ppo_kl_stuck_zero is not applicable with one update per batch, or without train/ppo_kl", () => {
  const one = buildAligned([{ round: "R0", batches: [{ updates: [{ "train/ppo_kl": 0 }] }] }], { n: 1 });
  assert.equal(
    flagsOf(ppoKlStuckZero.run(one, P, SLIME_PROFILE)),
    "one optimizer update per rollout batch (N = 1): no update follows a weight change within a batch",
  );
  const absent = buildAligned([{ round: "R0", batches: [{ updates: [{ "train/loss": 0 }] }] }]);
  assert.equal(flagsOf(ppoKlStuckZero.run(absent, P, SLIME_PROFILE)), "no optimizer update logs train/ppo_kl (the framework or these runs do not log it)");
});
