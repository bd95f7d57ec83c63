/**
 * Semantic flags: only declared config entries are read, typed; a conditional meaning changes a
 * concept's rule and turns a check "not applicable" with the reason, for the runs it holds in.
 */
import assert from "node:assert/strict";
import { test } from "node:test";

import { alignRuns } from "../../lib/align/align-runs";
import { HEALTH_CHECKS } from "../../lib/health/health-checks";
import { runHealthChecks } from "../../lib/health/run-health-checks";
import { SLIME_PROFILE } from "../../lib/registry/profile-slime";
import { OPENRLHF_PROFILE } from "../../lib/registry/profile-openrlhf";
import { VERL_PROFILE } from "../../lib/registry/profile-verl";
import { flagsLines, metricOfAligned, PROFILES } from "../../lib/registry/profiles";
import { namespaceRepr, readFlags, type RunFlags } from "../../lib/registry/semantic-flags";
import type { RunHistory } from "../../lib/types";
import { ids, slimeRun } from "../align/slime-history";

/** The `algo` entry of the run config OpenRLHF 0.11.2 logged in its own run (test/fixtures/real-runs/openrlhf/killed). */
const OPENRLHF_ALGO =
  "namespace(advantage=namespace(is_correction_level='off', is_correction_mode='mask', is_correction_gating='ratio', is_correction_threshold=[0.5, 5.0], lambd=1, gamma=1, estimator='group_norm', no_std_norm=False), kl=namespace(target=None, horizon=10000, init_coef=0.01, estimator='k3', unbiased_gradient=False, use_loss=True), dynamic_filtering_enable=False, dynamic_filtering_range=(0, 1))";

test("every declared flag names a real check and concept; every conditional meaning reads a declared flag", () => {
  const checks = new Set(HEALTH_CHECKS.map((c) => c.name));
  for (const p of PROFILES) {
    const names = new Set(p.flags.map((f) => f.name));
    assert.equal(names.size, p.flags.length, `${p.name}: flag names are unique`);
    for (const f of p.flags) for (const c of f.checks) assert.ok(checks.has(c), `${p.name}: ${f.name} names check ${c}`);
    for (const m of p.meanings) {
      assert.ok(names.has(m.when.flag), `${p.name}: a meaning reads ${m.when.flag}, which is declared`);
      if (m.check) assert.ok(checks.has(m.check.name), `${p.name}: ${m.check.name} is a check`);
    }
  }
});

test("readFlags reads only declared entries, typed: nested dicts, W&B's {value} wrappers, OpenRLHF's namespace reprs; the wrong type is dropped and counted", () => {
  const verl = readFlags(VERL_PROFILE.flags, {
    actor_rollout_ref: { value: { actor: { use_dynamic_bsz: true, secret_token: "hunter2" } } },
    algorithm: { adv_estimator: "grpo", rollout_correction: { rollout_is: null, rollout_rs: "bogus" } },
    trainer: { use_v1: "yes" },
    api_key: "hunter2",
  });
  assert.deepEqual(verl.flags, { "actor_rollout_ref.actor.use_dynamic_bsz": true, "algorithm.adv_estimator": "grpo" });
  assert.deepEqual(
    verl.dropped.map((d) => d.name),
    ["algorithm.rollout_correction.rollout_rs", "trainer.use_v1"],
  );
  assert.ok(!JSON.stringify(verl).includes("hunter2"), "no undeclared entry is read");
  const orl = readFlags(OPENRLHF_PROFILE.flags, { algo: OPENRLHF_ALGO, actor: "namespace(entropy_coef=None, eps_clip=0.2)" });
  assert.deepEqual(orl.flags, {
    "algo.advantage.estimator": "group_norm",
    "algo.advantage.is_correction_level": "off",
    "algo.kl.use_loss": true,
    "algo.kl.init_coef": 0.01,
  });
  assert.deepEqual(orl.dropped, []);
  const slime = readFlags(SLIME_PROFILE.flags, { use_rollout_logprobs: 1, kl_coef: 0, advantage_estimator: "ppo" });
  assert.deepEqual(slime.flags, { kl_coef: 0, advantage_estimator: "ppo" });
  assert.deepEqual(slime.dropped, [{ name: "use_rollout_logprobs", reason: "expected bool, got a number" }]);
});

test("namespaceRepr: keyword values, nested namespaces; lists and tuples skipped; other text is no namespace", () => {
  assert.deepEqual(namespaceRepr("namespace(a=1, b='x, y', c=namespace(d=True, e=None), f=[1, (2, 3)], g=-1e-08)"), {
    a: 1,
    b: "x, y",
    c: { d: true, e: null },
    g: -1e-8,
  });
  assert.equal(namespaceRepr("Namespace(a=1)"), null);
  assert.equal(namespaceRepr("namespace(a=1"), null);
});

function withFlags(run: RunHistory, flags: RunFlags): RunHistory {
  return { ...run, flags };
}

/** A slime run whose every update logs ppo_kl = 0.02 (as the engine mismatch makes it at position 0 under the flag). */
function klRun(runId: string, round: string, rollouts: number[]): RunHistory {
  const run = slimeRun({ runId, round, n: 2, rollouts });
  return { ...run, rows: run.rows.map((r) => ("train/step" in r && !("train/critic-value_loss" in r) ? { ...r, "train/ppo_kl": 0.02 } : r)) };
}

test("slime --use-rollout-logprobs: ppo_kl_first_update is not applicable with the reason, and ppo_kl's rule says the first update carries the engine mismatch", () => {
  const plain = klRun("a", "R0", ids(1, 3));
  // ppo_kl is non-zero at position 0: the check flags it when the flag is off or unknown.
  const base = runHealthChecks(alignRuns([plain])).results.find((r) => r.check === "ppo_kl_first_update")!;
  assert.equal(base.status, "flagged");
  const on = alignRuns([withFlags(plain, { use_rollout_logprobs: { value: true, source: "config" } })]);
  const result = runHealthChecks(on).results.find((r) => r.check === "ppo_kl_first_update")!;
  assert.equal(result.status, "not applicable");
  assert.match(result.reason!, /engine mismatch .* \(use_rollout_logprobs = true in run a \(round R0\)\)$/);
  assert.match(metricOfAligned(on, "ppoKl").is, /rollout engine's log-probs/);
  const off = alignRuns([withFlags(plain, { use_rollout_logprobs: { value: false, source: "config" } })]);
  assert.equal(runHealthChecks(off).results.find((r) => r.check === "ppo_kl_first_update")!.status, "flagged");
  assert.equal(metricOfAligned(off, "ppoKl").is, metricOfAligned(alignRuns([plain]), "ppoKl").is);
  // Two rounds, the flag in one: the rule names that run; the check is refused whole.
  const b = klRun("b", "R1", ids(4, 5));
  const mixed = alignRuns([plain, withFlags(b, { use_rollout_logprobs: { value: true, source: "stated" } })]);
  assert.match(metricOfAligned(mixed, "ppoKl").isNot, /; in run b \(use_rollout_logprobs = true\): mean of old_logp/);
  assert.match(runHealthChecks(mixed).results.find((r) => r.check === "ppo_kl_first_update")!.reason!, /in run b \(round R1\)\)$/);
});

test("flagsLines: a run's declared flags, or 'unknown' when no config was read", () => {
  const a = slimeRun({ runId: "a", round: "R0", n: 2, rollouts: ids(1, 2) });
  const b = slimeRun({ runId: "b", round: "R1", n: 2, rollouts: ids(3, 4) });
  const aligned = alignRuns([withFlags(a, { use_rollout_logprobs: { value: true, source: "config" }, beta: { value: 0.1, source: "config" } }), b]);
  assert.deepEqual(flagsLines(aligned), [
    "flags of run a (round R0): use_rollout_logprobs = true",
    "flags of run b (round R1): unknown (no config was read); metrics keep their default meaning",
  ]);
});
