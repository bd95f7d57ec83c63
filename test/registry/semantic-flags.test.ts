/**
 * Semantic flags: only declared config entries are read, typed; a conditional meaning changes a
 * concept's rule and turns a check "not applicable" with the reason, for the runs it holds in.
 */
import assert from "node:assert/strict";
import { test } from "node:test";

import { alignRuns } from "../../lib/align/align-runs";
import { summaryColumnEntry } from "../../lib/export/export-manifest";
import { conceptSeriesFigure } from "../../lib/figures/concept-series";
import { summaryColumnsFor } from "../../lib/export/summary-table";
import { HEALTH_CHECKS } from "../../lib/health/health-checks";
import { runHealthChecks } from "../../lib/health/run-health-checks";
import { SLIME_PROFILE } from "../../lib/registry/profile-slime";
import { OPENRLHF_PROFILE } from "../../lib/registry/profile-openrlhf";
import { VERL_PROFILE } from "../../lib/registry/profile-verl";
import { flagsLines, meaningNotes, metricOfAligned, PROFILES } from "../../lib/registry/profiles";
import { holdsIn, namespaceRepr, readFlags, type RunFlags } from "../../lib/registry/semantic-flags";
import { compareVersions, versionsOfRequirements, versionText } from "../../lib/registry/versions";
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
      if (m.when.flag !== undefined) assert.ok(names.has(m.when.flag), `${p.name}: a meaning reads ${m.when.flag}, which is declared`);
      if (m.when.version !== undefined) assert.equal(m.when.version.package, p.package, `${p.name}: a version condition names its own package`);
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
    "algo.dynamic_filtering_enable": false,
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
  // A concept figure's note reads the rule that holds too.
  const series = conceptSeriesFigure(on, "ppoKl");
  assert.ok("metric" in series && /rollout engine's log-probs/.test(series.metric.is));
  // The export manifest's column meaning reads the rule that holds; without the runs, the default.
  const col = summaryColumnsFor(SLIME_PROFILE).find((c) => c.name === "ppo_kl_first_update_mean")!;
  assert.match(summaryColumnEntry(col, (c) => metricOfAligned(on, c)).is!, /rollout engine's log-probs/);
  assert.equal(summaryColumnEntry(col).is, metricOfAligned(alignRuns([plain]), "ppoKl").is);
});

test("flagsLines: a run's declared flags, or 'unknown' when no config was read", () => {
  const a = slimeRun({ runId: "a", round: "R0", n: 2, rollouts: ids(1, 2) });
  const b = slimeRun({ runId: "b", round: "R1", n: 2, rollouts: ids(3, 4) });
  const aligned = alignRuns([withFlags(a, { use_rollout_logprobs: { value: true, source: "config" }, beta: { value: 0.1, source: "config" } }), b]);
  const lines = flagsLines(aligned);
  assert.deepEqual(lines.slice(0, 2), [
    "flags of run a (round R0): use_rollout_logprobs = true",
    "flags of run b (round R1): unknown (no config was read); metrics keep their default meaning",
  ]);
  // Then the meanings the flag makes hold in run a: ppo_kl's and the gap's rules, and three checks not applicable.
  assert.deepEqual(
    lines.slice(2).map((l) =>
      l
        .split(": ")
        .slice(0, 2)
        .join(": ")
        .replace(/ not applicable$/, ""),
    ),
    [
      "use_rollout_logprobs = true in run a: ppoKl",
      "use_rollout_logprobs = true in run a: logprobGap",
      "use_rollout_logprobs = true in run a: ppo_kl_first_update",
      "use_rollout_logprobs = true in run a: mismatch_drift",
      "use_rollout_logprobs = true in run a: mismatch_resume_spike",
      "use_rollout_logprobs = true in run a: mismatch_growth",
    ],
  );
  assert.match(lines[4], /ppo_kl_first_update not applicable: with --use-rollout-logprobs/);
});

test("versions: compareVersions by numeric parts; requirements.txt lines of declared packages only, names as pip normalises them", () => {
  assert.ok(compareVersions("0.16.1", "0.17.0") < 0);
  assert.ok(compareVersions("0.4.0.post1", "0.4.1") < 0);
  assert.ok(compareVersions("1.10.0", "1.9.3") > 0);
  assert.equal(compareVersions("0.17", "0.17.0"), 0);
  assert.deepEqual(
    versionsOfRequirements("TRL==0.16.1\nopen_rlhf==1\nOpenRLHF==0.8.5\nverl @ git+https://example.com/verl.git\ntorch==2.5.1+cu121\n", [
      "trl",
      "openrlhf",
      "verl",
    ]),
    {
      trl: "0.16.1",
      openrlhf: "0.8.5",
    },
  );
  assert.equal(versionText("checkpoints/secret-run"), undefined, "a path is no version");
  assert.equal(versionText("0.19.1"), "0.19.1");
});

test("a version condition: holds below the release, not at it; 'maybe' when the version is not recorded, never when the flag is off or unknown", () => {
  const dyn = { "actor_rollout_ref.actor.use_dynamic_bsz": { value: true, source: "config" as const } };
  const when = VERL_PROFILE.meanings.find((m) => m.concept?.id === "entropy")!.when;
  const v = (value: string) => ({ verl: { value, source: "requirements" as const } });
  assert.equal(holdsIn(when, { flags: dyn, versions: v("0.4.0") }), "yes");
  assert.equal(holdsIn(when, { flags: dyn, versions: v("0.4.1") }), "no");
  assert.equal(holdsIn(when, { flags: dyn }), "maybe");
  assert.equal(holdsIn(when, { flags: { "actor_rollout_ref.actor.use_dynamic_bsz": { value: false, source: "config" } } }), "no");
  assert.equal(holdsIn(when, {}), "no", "flags unknown: the default meaning");
  // The entropy rule: replaced where it holds in every run, a named note where it may hold.
  const verl = { profile: { name: "verl" } };
  const old = metricOfAligned({ ...verl, runs: [{ runId: "a", flags: dyn, versions: v("0.3.1") }] }, "entropy");
  assert.match(old.is, /verl 0.4.0 and earlier did not put the old-log-prob pass's entropies back in sample order/);
  const unknown = metricOfAligned({ ...verl, runs: [{ runId: "a", flags: dyn }] }, "entropy");
  assert.equal(unknown.is, metricOfAligned({ ...verl, runs: [] }, "entropy").is);
  assert.match(
    unknown.isNot,
    /; in run a, if actor_rollout_ref.actor.use_dynamic_bsz = true and verl < 0.4.1 \(version not recorded\): with dynamic batch size/,
  );
  const fixed = metricOfAligned({ ...verl, runs: [{ runId: "a", flags: dyn, versions: v("0.9.1") }] }, "entropy");
  assert.deepEqual(fixed, metricOfAligned({ ...verl, runs: [] }, "entropy"), "a fixed version keeps the default rule");
});

test("meaningNotes: slime's rollout/kl under --advantage-estimator ppo is noted with its evidence; grpo runs and runs with flags unknown get none", () => {
  const a = slimeRun({ runId: "a", round: "R0", n: 2, rollouts: ids(1, 2) });
  const ppo = alignRuns([withFlags(a, { advantage_estimator: { value: "ppo", source: "config" } })]);
  assert.deepEqual(
    meaningNotes(ppo).map((n) => n.slice(0, 60)),
    ["advantage_estimator = ppo in run a: rollout/kl: with --advan"],
  );
  assert.match(meaningNotes(ppo)[0], /045310b2b .* \[THUDM\/slime#2114\]$/);
  assert.deepEqual(meaningNotes(alignRuns([withFlags(a, { advantage_estimator: { value: "grpo", source: "config" } })])), []);
  assert.deepEqual(meaningNotes(alignRuns([a])), []);
  // TRL's clip ratio before 0.17: every TRL run whose version is not recorded gets the note; a recorded 0.17+ none.
  const trl = { profile: { name: "trl" } };
  assert.match(
    meaningNotes({ ...trl, runs: [{ runId: "t", round: "R0", flags: {} }] })[0],
    /^if trl < 0\.17\.0 \(version not recorded\) in run t: clipfrac: TRL before 0\.17/,
  );
  assert.deepEqual(
    meaningNotes({ ...trl, runs: [{ runId: "t", round: "R0", flags: {}, versions: { trl: { value: "1.16.0", source: "requirements" } } }] }),
    [],
  );
  assert.match(
    meaningNotes({ ...trl, runs: [{ runId: "t", round: "R0", flags: {}, versions: { trl: { value: "0.16.1", source: "requirements" } } }] })[0],
    /^trl < 0\.17\.0 in run t: clipfrac/,
  );
});
