import { test } from "node:test";
import assert from "node:assert/strict";

import { compareArms, type Arm } from "../../lib/compare/compare-arms";
import { comparability, flagRefusal } from "../../lib/compare/comparability";
import { comparedColumns } from "../../lib/compare/compared-columns";
import type { Experiment } from "../../lib/compare/experiment";
import { comparisonFiles } from "../../lib/compare/write-comparison";
import type { ExportCell } from "../../lib/export/export-cell";
import type { FrameworkProfile } from "../../lib/registry/framework-profile";
import { SLIME_PROFILE } from "../../lib/registry/profile-slime";
import { TRL_PROFILE } from "../../lib/registry/profile-trl";
import { VERL_PROFILE } from "../../lib/registry/profile-verl";

/** An experiment with the given cells (column -> scope -> value); every other column empty. */
function experiment(
  dir: string,
  cells: Record<string, Record<string, number | null>>,
  opts: { profile?: FrameworkProfile; n?: number[]; rounds?: string[]; runs?: Experiment["runs"]; axisMissing?: Record<string, string> } = {},
): Experiment {
  const profile = opts.profile ?? SLIME_PROFILE;
  return {
    dir,
    manifestSha256: `sha-of-${dir}`,
    profile,
    updatesPerBatch: opts.n ?? [2],
    rounds: opts.rounds ?? ["R0", "R1"],
    columns: comparedColumns(profile),
    runs: opts.runs ?? [{ runId: `${dir}-r0` }],
    cells,
    axisMissing: opts.axisMissing ?? {},
    unplaced: 0,
    axis: "round",
  };
}

/** Reward and truncated fraction and entropy cells of one experiment, per scope. */
function seed(dir: string, reward: [number, number, number], truncated: number, entropy: number, opts: { n?: number[]; rounds?: string[] } = {}): Experiment {
  return experiment(
    dir,
    {
      reward_mean: { R0: reward[0], R1: reward[1], all: reward[2] },
      truncated_ratio_mean: { R0: truncated, R1: truncated, all: truncated },
      entropy_mean: { R0: entropy, R1: entropy, all: entropy },
    },
    opts,
  );
}

const rowsOf = (rows: ExportCell[][], concept: string, scope: string) => rows.filter((r) => r[2] === concept && r[3] === scope);

const base: Arm = {
  name: "base",
  experiments: [seed("a/s1", [0.1, 0.3, 0.2], 0.2, 0.5), seed("a/s2", [0.2, 0.4, 0.3], 0.3, 0.6), seed("a/s3", [0.3, 0.5, 0.4], 0.1, 0.7)],
};
const cand: Arm = {
  name: "cand",
  experiments: [seed("b/s1", [0.3, 0.5, 0.4], 0.1, 0.5), seed("b/s2", [0.4, 0.6, 0.5], 0.1, 0.4), seed("b/s3", [0.2, 0.4, 0.3], 0.2, 0.3)],
};

test("a flag or a version that changes a concept's meaning on one side only is refused, naming the condition and both sides; same meaning, or a version not recorded, is not", () => {
  const flag = (on: boolean | undefined) => (on === undefined ? {} : { flags: { use_rollout_logprobs: { value: on, source: "config" as const } } });
  const ex = (dir: string, ...on: (boolean | undefined)[]) =>
    experiment(dir, { ppo_kl_first_update_mean: { all: 0.01 } }, { runs: on.map((o, i) => ({ runId: `${dir}-${i}`, ...flag(o) })) });
  const reason = comparability(ex("on", true), ex("off", false), "ppo_kl_first_update_mean")!;
  assert.match(reason, /^ppo_kl_first_update_mean \(ppo_kl\): its meaning depends on use_rollout_logprobs = true \(then: mean of old_logp - new_logp/);
  // Each side with the setting it has.
  assert.match(reason, /which on: holds \(use_rollout_logprobs = true\); off: does not hold \(use_rollout_logprobs = false\)$/);
  assert.match(
    flagRefusal([ex("mixed", true, false), ex("off", false)], "ppo_kl_first_update_mean")!,
    /mixed: does not hold in some runs, holds|mixed: holds in some runs, does not hold/,
  );
  assert.equal(flagRefusal([ex("on1", true), ex("on2", true)], "ppo_kl_first_update_mean"), null, "the same meaning on both sides");
  // Flags unknown count as the default meaning (the flag condition does not hold).
  assert.match(
    flagRefusal([ex("on", true), ex("unknown", undefined)], "ppo_kl_first_update_mean")!,
    /on: holds \(use_rollout_logprobs = true\); unknown: does not hold \(flags unknown: no config was read\)$/,
  );
  // A concept no meaning changes: never refused by flags.
  assert.equal(flagRefusal([ex("on", true), ex("off", false)], "reward_mean"), null);
  // A version condition: a version not recorded refuses nothing; recorded on both sides across the release, refused.
  const verl = (dir: string, version?: string) =>
    experiment(
      dir,
      { entropy_mean: { all: 0.5 } },
      {
        profile: VERL_PROFILE,
        runs: [
          {
            runId: dir,
            flags: { "actor_rollout_ref.actor.use_dynamic_bsz": { value: true, source: "config" } },
            ...(version ? { versions: { verl: { value: version, source: "requirements" as const } } } : {}),
          },
        ],
      },
    );
  assert.equal(flagRefusal([verl("v040", "0.4.0"), verl("unrecorded")], "entropy_mean"), null);
  assert.match(
    flagRefusal([verl("v040", "0.4.0"), verl("v091", "0.9.1")], "entropy_mean")!,
    /depends on actor_rollout_ref.actor.use_dynamic_bsz = true and verl < 0.4.1 .* v040: holds \(actor_rollout_ref.actor.use_dynamic_bsz = true, verl 0.4.0\); v091: does not hold \(actor_rollout_ref.actor.use_dynamic_bsz = true, verl 0.9.1\)$/,
  );
});

test("compare.csv: per arm, concept and scope n, mean, IQM and the values in the order given; rounds then `all`", () => {
  const r = compareArms([base, cand], null, { seed: 1, resamples: 500 });
  assert.deepEqual(r.scopes, ["R0", "R1", "all"]);
  const row = r.compare.rows.find((x) => x[0] === "base" && x[1] === "reward_mean" && x[2] === "all")!;
  assert.equal(row[3], 3);
  assert.ok(Math.abs((row[4] as number) - 0.3) < 1e-15, `mean ${row[4]}`);
  assert.ok(Math.abs((row[5] as number) - 0.3) < 1e-15, "IQM of 3 values trims nothing");
  assert.equal(row[10], "0.2;0.3;0.4");
  const [lo, hi] = [row[6] as number, row[7] as number];
  assert.ok(lo >= 0.2 - 1e-15 && lo <= 0.3 && hi >= 0.3 && hi <= 0.4 + 1e-15, `interval ${lo}..${hi} inside the values' range`);
  // Columns no experiment logs are refused, never written as rows of empty numbers.
  assert.ok(!r.columns.includes("entropy_mean") || r.compare.rows.some((x) => x[1] === "entropy_mean"));
  assert.ok(r.refused.some((x) => x.concept === "clipfrac_mean" && /no value logged/.test(x.reason)));
});

test("improvement.csv: P(X > Y) for higher-is-better, P(X < Y) for lower-is-better, none for a diagnostic", () => {
  const r = compareArms([base, cand], null, { seed: 1, resamples: 500 });
  const [reward] = rowsOf(r.improvement.rows, "reward_mean", "all");
  assert.deepEqual(reward.slice(0, 4), ["cand", "base", "reward_mean", "all"]);
  // cand {0.4, 0.5, 0.3} over base {0.2, 0.3, 0.4}: 0.4 beats 2 and ties 1, 0.5 beats 3, 0.3 beats 1 and ties 1 -> 7 / 9.
  assert.equal(reward[4], 7 / 9);
  assert.ok(Math.abs((reward[7] as number) - 0.1) < 1e-15, "mean difference cand - base");
  assert.equal(typeof reward[8], "number", "Welch p");
  const [trunc] = rowsOf(r.improvement.rows, "truncated_ratio_mean", "all");
  // Lower is better: cand {0.1, 0.1, 0.2} below base {0.2, 0.3, 0.1}: 0.1 < 0.2, 0.3 and ties 0.1 (x2) -> 2.5 * 2; 0.2 < 0.3, ties 0.2 -> 1.5: 6.5 / 9.
  assert.equal(trunc[4], 6.5 / 9);
  const [entropy] = rowsOf(r.improvement.rows, "entropy_mean", "all");
  assert.deepEqual(entropy.slice(4, 7), [null, null, null], "entropy: a difference, never an improvement");
  assert.ok(Math.abs((entropy[7] as number) - -0.2) < 1e-15);
});

test("the same seed gives byte-identical files; another seed moves only the intervals", () => {
  const files = (s: number) =>
    comparisonFiles([base, cand], null, compareArms([base, cand], null, { seed: s, resamples: 500 }), { seed: s, resamples: 500, workspaceVersion: "t" });
  assert.deepEqual(files(3), files(3));
  const a = files(3)[0].text.split("\n");
  const b = files(4)[0].text.split("\n");
  assert.notDeepEqual(a, b);
  const points = (lines: string[]) => lines.map((l) => l.split(",").slice(0, 6).join(","));
  assert.deepEqual(points(a), points(b), "point estimates do not depend on the seed");
});

test("refusals name the concept and both sides: missing on one side, different meanings, different updates per batch", () => {
  const slime = seed("slime/s1", [0.1, 0.2, 0.15], 0.1, 0.5);
  const trl = experiment(
    "trl/s1",
    { reward_mean: { all: 0.3 }, entropy_mean: { all: 0.4 }, ppo_kl_first_update_mean: { all: null } },
    { profile: TRL_PROFILE },
  );
  const kl = comparability(slime, trl, "ppo_kl_first_update_mean")!;
  // slime/s1 declares train/ppo_kl but has no value of it: missing on both sides, each side's reason once.
  assert.equal(
    kl,
    "ppo_kl_first_update_mean (ppo_kl) is missing on both sides: slime/s1 reads slime `train/ppo_kl`: no value logged (empty summary cell); " +
      "trl/s1: TRL GRPOTrainer logs no ppo_kl: TRL logs no policy-ratio KL; its train/kl is the KL to the reference model",
  );
  assert.match(kl, /trl\/s1: TRL GRPOTrainer logs no ppo_kl: TRL logs no policy-ratio KL/);
  const entropy = comparability(slime, trl, "entropy_mean")!;
  assert.match(
    entropy,
    /entropy_mean \(entropy\) means different things: slime\/s1 reads slime `train\/entropy_loss`.*trl\/s1 reads TRL GRPOTrainer `train\/entropy`/,
  );
  const n4 = experiment("slime/n4", { ppo_kl_first_update_mean: { all: 0.01 } }, { n: [4] });
  const n2 = experiment("slime/n2", { ppo_kl_first_update_mean: { all: 0.01 } }, { n: [2] });
  assert.match(comparability(n2, n4, "ppo_kl_first_update_mean")!, /same updates per rollout batch: slime\/n2 has N = 2; slime\/n4 has N = 4/);
  assert.equal(comparability(n2, n2, "ppo_kl_first_update_mean"), null, "same N: comparable");
  assert.equal(flagRefusal([n2, n4], "ppo_kl_first_update_mean"), null, "flags unknown on both sides: the default meaning on both");

  const r = compareArms(
    [
      { name: "slime", experiments: [slime] },
      { name: "trl", experiments: [trl] },
    ],
    null,
    { seed: 0, resamples: 100 },
  );
  assert.ok(!r.columns.includes("entropy_mean") && !r.columns.includes("reward_mean"), "nothing compared across frameworks' different keys");
  assert.equal(r.compare.rows.length, 0);
});

test("corridor.csv: band = max(rel x |ref|, abs_floor) from the registry, overridable; every value listed with outside", () => {
  const ref = seed("paper", [0.2, 0.4, 0.3], 0.2, 0.6);
  const r = compareArms([base], ref, { seed: 0, resamples: 100 });
  const rows = r.corridor!.rows.filter((x) => x[2] === "reward_mean" && x[3] === "all");
  // reward: rel 0.1, abs_floor 0.02: band = max(0.03, 0.02) = 0.03 around 0.3.
  assert.deepEqual(
    rows.map((x) => [x[1], x[4], x[5], x[6], x[7]]),
    [
      ["a/s1", 0.2, 0.3, 0.03, "true"],
      ["a/s2", 0.3, 0.3, 0.03, "false"],
      ["a/s3", 0.4, 0.3, 0.03, "true"],
    ],
  );
  const wide = compareArms([base], ref, { seed: 0, resamples: 100, corridor: { reward: { rel: 0.5 } } });
  const widened = wide.corridor!.rows.filter((x) => x[2] === "reward_mean" && x[3] === "all");
  assert.deepEqual(
    widened.map((x) => x[7]),
    ["false", "false", "false"],
    "band 0.15 holds every value",
  );
});

test("invalid arms are refused by message", () => {
  assert.throws(() => compareArms([], null, { seed: 0 }), /invalid arms: none given/);
  assert.throws(() => compareArms([base, { ...cand, name: "base" }], null, { seed: 0 }), /invalid arms: base is given twice/);
  assert.throws(() => compareArms([{ name: "x", experiments: [] }], null, { seed: 0 }), /invalid arms: x has no archive/);
});

test("the refused list names each concept once, each side once with its own reason: three seeds against three are not five refusals", () => {
  const verl = (dir: string) => experiment(dir, { reward_mean: { all: 0.5 }, ppo_kl_first_update_mean: { all: null } }, { profile: VERL_PROFILE });
  const trl = (dir: string) => experiment(dir, { reward_mean: { all: 0.4 } }, { profile: TRL_PROFILE });
  const r = compareArms(
    [
      { name: "verl", experiments: [verl("v1"), verl("v2"), verl("v3")] },
      { name: "trl", experiments: [trl("t1"), trl("t2"), trl("t3")] },
    ],
    null,
    { seed: 0, resamples: 100 },
  );
  const concepts = r.refused.map((x) => x.concept);
  assert.deepEqual(concepts, [...new Set(concepts)], "one refusal per concept");
  const reward = r.refused.find((x) => x.concept === "reward_mean")!;
  assert.deepEqual(reward.sides, ["v1", "v2, v3, t1, t2, t3"]);
  assert.match(
    reward.reason,
    /^reward_mean \(reward\) means different things: v1, v2, v3 reads verl `critic\/score\/mean` \(.*\); t1, t2, t3 reads TRL GRPOTrainer `train\/reward` \(/,
  );
  // verl logs actor/ppo_kl once per training step: the per-position statistic is not "no value logged" but averaged away.
  const kl = r.refused.find((x) => x.concept === "ppo_kl_first_update_mean")!;
  assert.equal(
    kl.reason,
    "ppo_kl_first_update_mean (ppo_kl) is missing on every side: v1, v2, v3: verl: verl logs one row per training step with actor metrics averaged over its mini-batch updates: " +
      "single updates and their positions are averaged away; t1, t2, t3: TRL GRPOTrainer logs no ppo_kl: TRL logs no policy-ratio KL; its train/kl is the KL to the reference model",
  );
});

test("improvement.csv: welch_p_holm is Holm's adjustment over every Welch p of the comparison (all pairs, concepts, scopes), beside the raw one", () => {
  const r = compareArms([base, cand], null, { seed: 1, resamples: 100 });
  const col = (name: string) => r.improvement.rows.map((row) => row[r.improvement.columns.indexOf(name)] as number | null);
  const raw = col("welch_p");
  const holm = col("welch_p_holm");
  const tests = raw.filter((p) => p !== null) as number[];
  assert.ok(tests.length >= 6, `${tests.length} tests`);
  // By the definition: the j-th smallest of m (0-based) times m - j, running maximum, capped at 1.
  const order = [...tests].sort((a, b) => a - b);
  let running = 0;
  const expected = new Map<number, number>();
  order.forEach((p, j) => {
    running = Math.max(running, Math.min(1, (order.length - j) * p));
    if (!expected.has(p)) expected.set(p, running);
  });
  raw.forEach((p, i) => (p === null ? assert.equal(holm[i], null) : assert.ok(Math.abs(holm[i]! - expected.get(p)!) < 1e-15, `row ${i}`)));
  assert.deepEqual(r.improvement.columns.slice(-3), ["welch_p", "n_needed", "welch_p_holm"]);
});
