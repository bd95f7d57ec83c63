import { SLIME_PROFILE } from "../../lib/registry/profile-slime";
import { test } from "node:test";
import assert from "node:assert/strict";

import { ppoKlFirstUpdate } from "../../lib/health/ppo-kl-first-update";
import { buildAligned } from "../diagnostics/aligned-builder";

const P = { threshold: 1e-8 };
const kl = (a: number, b: number) => [{ "train/ppo_kl": a }, { "train/ppo_kl": b }];

test("ppo_kl_first_update: one flag per round with the offending position-0 updates, the largest |ppo_kl| kept signed", () => {
  // N = 2, r0 = 1: rollout 1 -> updates 1, 2; rollout 2 -> 3, 4; rollout 3 -> 5, 6.
  const aligned = buildAligned([
    { round: "R0", batches: [{ updates: kl(0, 0.001) }, { updates: kl(2e-8, 0.002) }, { updates: kl(-5e-7, 0.001) }] },
    { round: "R1", batches: [{ updates: kl(3e-8, 0.001) }] },
  ]);
  const out = ppoKlFirstUpdate.run(aligned, P, SLIME_PROFILE);
  assert.ok(out.applicable);
  assert.deepEqual(out.applicable && out.flags.map((f) => [f.round, f.runId, f.first, f.last, f.count, f.key, f.value, f.at]), [
    ["R0", "syn-r0", 3, 5, 2, "train/ppo_kl", -5e-7, [3, 5]],
    ["R1", "syn-r1", 7, 7, 1, "train/ppo_kl", 3e-8, [7]],
  ]);
});

test("ppo_kl_first_update does NOT fire on 5e-9 or exactly the threshold at position 0, nor on a large ppo_kl at position 1, nor on NaN", () => {
  const aligned = buildAligned([
    { round: "R0", batches: [{ updates: kl(5e-9, 0.5) }, { updates: kl(1e-8, 3) }, { updates: kl(-1e-8, -2) }, { updates: kl(NaN, 0) }] },
  ]);
  const out = ppoKlFirstUpdate.run(aligned, P, SLIME_PROFILE);
  assert.deepEqual(out, { applicable: true, flags: [] });
});

test("ppo_kl_first_update: the threshold is a parameter", () => {
  const aligned = buildAligned([{ round: "R0", batches: [{ updates: kl(5e-7, 0) }, { updates: kl(2e-3, 0) }] }]);
  const out = ppoKlFirstUpdate.run(aligned, { threshold: 1e-3 }, SLIME_PROFILE);
  assert.deepEqual(out.applicable && out.flags.map((f) => [f.first, f.last, f.count]), [[3, 3, 1]]);
  assert.equal(
    ppoKlFirstUpdate.rule({ threshold: 1e-3 }, SLIME_PROFILE),
    "|train/ppo_kl| > 0.001 on an update at position 0 of its rollout batch (one flag per round)",
  );
});

test("ppo_kl_first_update is not applicable when no update logs train/ppo_kl", () => {
  const aligned = buildAligned([{ round: "R0", batches: [{ updates: [{ "train/grad_norm": 1 }, { "train/grad_norm": 2 }] }] }]);
  assert.deepEqual(ppoKlFirstUpdate.run(aligned, P, SLIME_PROFILE), {
    applicable: false,
    reason: "no optimizer update logs train/ppo_kl (the framework or these runs do not log it)",
  });
});
