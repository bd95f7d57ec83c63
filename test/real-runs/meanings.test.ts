/**
 * Meanings that depend on settings, on REAL runs (issue 39): each conditional meaning is checked on a
 * fixture where it holds and one where it does not, against what the framework's own record shows
 * (never against the workspace's reading of the W&B rows), and `npm run compare` refuses a concept
 * whose declared meaning differs between the two sides, naming the setting on each side.
 * - TRL GSPO (`importance_sampling_level` sequence): clip ratios count completions, not tokens;
 * - TRL: clip ratios are 0 by construction only while each generation stays within one optimizer step;
 * - verl `actor.loss_agg_mode`: `actor/entropy` is aggregated with it;
 * - keys that prove a version range settle version notes, from W&B and TensorBoard alike.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { after, test } from "node:test";

import { fetchAndFreeze, type RunSelection } from "../../lib/archive/fetch-and-freeze";
import { loadArchive } from "../../lib/archive/load-archive";
import { alignRuns } from "../../lib/align/align-runs";
import { buildExports } from "../../lib/export/build-exports";
import { runHealthChecks } from "../../lib/health/run-health-checks";
import { flagsLines, meaningNotes, metricOfAligned } from "../../lib/registry/profiles";
import { keysOf } from "../../lib/values/compact-values";
import type { AlignedRuns, HistoryRow } from "../../lib/types";
import { fixtureCases, survivingEntries, type FixtureCase } from "./own-record";

const ROOT = path.resolve(__dirname, "../fixtures/real-runs");
const REPO = path.resolve(__dirname, "../..");
const CASES = fixtureCases(ROOT);
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "real-meanings-"));
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

const find = (framework: string, name: string): FixtureCase | undefined => CASES.find((c) => c.framework === framework && c.case === name);
const skip = find("trl", "grpo-gspo") === undefined ? "real-run fixtures absent (test/fixtures/real-runs)" : false;

/** A one-round case frozen into an archive folder, from its .wandb log or its event file. */
async function archiveOf(c: FixtureCase, source: "wandb" | "tensorboard" = "wandb"): Promise<string> {
  const r = c.rounds[0];
  const outDir = path.join(tmp, source, c.framework, c.case);
  if (fs.existsSync(outDir)) return outDir;
  const run: RunSelection =
    source === "wandb"
      ? { runId: r.wandbRunId, round: "R0", file: path.join(c.dir, r.wandbFile) }
      : { runId: `tb-${c.case}`, round: "R0", tensorboard: path.join(c.dir, r.tensorboardFiles[0]) };
  await fetchAndFreeze({ entity: "", project: "", runs: [run], outDir, env: {}, now: () => new Date("2026-12-01T00:00:00.000Z") });
  return outDir;
}

async function aligned(c: FixtureCase, source: "wandb" | "tensorboard" = "wandb"): Promise<AlignedRuns> {
  return alignRuns((await loadArchive(await archiveOf(c, source))).runs);
}

/** The values one key took in the framework's own record of a one-round case. */
function ownValues(c: FixtureCase, key: string): number[] {
  return survivingEntries(c)
    .get("R0")!
    .flatMap((e) => (e.values[key] === undefined ? [] : [e.values[key]]));
}

/** `npm run compare` of two archives, one arm each; its stdout. */
function compare(a: string, b: string): string {
  const out = path.join(tmp, `compare-${path.basename(a)}-${path.basename(b)}`);
  const run = spawnSync(
    process.execPath,
    ["--import", "tsx", path.join(REPO, "scripts/compare.ts"), "--arm", `a=${a}`, "--arm", `b=${b}`, "--out", out, "--resamples", "100"],
    {
      cwd: REPO,
      encoding: "utf8",
    },
  );
  assert.equal(run.status, 0, run.stderr);
  return run.stdout;
}

/** The refusal line of one summary column in compare's stdout; undefined when it was compared. */
function refusalOf(stdout: string, column: string): string | undefined {
  return stdout.split("\n").find((l) => l.startsWith(`  ${column} (`));
}

test("TRL GSPO: clip ratios count completions (each logged step a multiple of 1/4 with 4 completions a step), the token-level run's do not; the profile says so from W&B and TensorBoard", {
  skip,
}, async () => {
  const gspo = find("trl", "grpo-gspo")!;
  const token = find("trl", "grpo-spg2")!;
  assert.equal(gspo.options.importance_sampling_level, "sequence");
  assert.equal(gspo.options.per_device_train_batch_size, 4);
  // TRL's own record: one value per sequence, so 4 x the fraction is whole; the token-level run's fractions are over tokens.
  const seq = ownValues(gspo, "train/clip_ratio/region_mean");
  assert.ok(seq.length === 6 && seq.every((v) => Number.isInteger(v * 4)), `GSPO clip fractions ${seq}`);
  assert.ok(
    ownValues(token, "train/clip_ratio/region_mean").some((v) => !Number.isInteger(v * 4)),
    "a token-level fraction that is no multiple of 1/4",
  );
  for (const source of ["wandb", "tensorboard"] as const) {
    const a = await aligned(gspo, source);
    assert.equal(a.runs[0].flags?.importance_sampling_level?.value, "sequence", source);
    assert.match(metricOfAligned(a, "clipfrac").is, /^fraction of completions \(sequences, not tokens\)/, source);
    assert.match(
      meaningNotes(a).join("\n"),
      /importance_sampling_level = sequence in run \S+: clipfrac: .*\[trl 1\.16 trl\/trainer\/grpo_trainer\.py _compute_loss/,
    );
    const t = await aligned(token, source);
    assert.equal(
      metricOfAligned(t, "clipfrac").is,
      "fraction of tokens in the clipped region, averaged over the logging_steps optimizer steps of the row",
      source,
    );
  }
});

test("TRL: clip ratios are '0 by construction' exactly where gradient_accumulation_steps is a multiple of steps_per_generation x num_iterations; there TRL logged only 0, and grpo-spg2 logs more", {
  skip,
}, async () => {
  let held = 0;
  for (const c of CASES.filter((x) => x.framework === "trl" && !x.case.startsWith("rloo") && x.rounds.length === 1)) {
    const a = await aligned(c);
    const f = (n: string) => a.runs[0].flags?.[n]?.value as number;
    const construction = f("gradient_accumulation_steps") % (f("steps_per_generation") * f("num_iterations")) === 0;
    const is = metricOfAligned(a, "clipfrac").is;
    assert.equal(/^0 by construction/.test(is), construction, `${c.case}: ${is}`);
    if (construction) {
      held++;
      assert.ok(
        ownValues(c, "train/clip_ratio/region_mean").every((v) => v === 0),
        `${c.case}: TRL's own record holds a clip ratio other than 0`,
      );
    }
  }
  assert.ok(held >= 4, `fixtures where the rule holds: ${held}`);
  const spg2 = find("trl", "grpo-spg2")!;
  assert.equal(spg2.options.steps_per_generation, 2);
  assert.ok(
    ownValues(spg2, "train/clip_ratio/region_mean").some((v) => v > 0.01),
    "one generation over two optimizer steps clips",
  );
});

test("verl loss_agg_mode seq-mean-token-sum-norm: actor/entropy is the token mean x mean length / 8 (the plain run's token mean, same samples); the profile says so only there", {
  skip,
}, async () => {
  const norm = find("verl", "loss-agg-seq-norm")!;
  const plain = find("verl", "plain")!;
  const horizon = Number((norm as FixtureCase & { overrides: string[] }).overrides.find((o) => o.startsWith("data.max_response_length="))!.split("=")[1]);
  const step = (c: FixtureCase) =>
    new Map(
      survivingEntries(c)
        .get("R0")!
        .map((e) => [e.step, e.values]),
    );
  const n = step(norm);
  const p = step(plain);
  let shorter = 0;
  for (const [s, v] of n) {
    const len = v["response_length/mean"];
    assert.equal(len, p.get(s)!["response_length/mean"], `step ${s}: the same samples`);
    const tokenMean = p.get(s)!["actor/entropy"];
    assert.ok(
      Math.abs((v["actor/entropy"] * horizon) / len - tokenMean) < 2e-3 * tokenMean,
      `step ${s}: ${v["actor/entropy"]} x ${horizon} / ${len} vs ${tokenMean}`,
    );
    if (len < horizon) {
      shorter++;
      // What must not happen: the token mean itself (1% apart at least; the relation above holds to 0.2%).
      assert.ok(tokenMean - v["actor/entropy"] > 0.01 * tokenMean, `step ${s}: not the token mean`);
    }
  }
  assert.ok(shorter > 0, "a step with responses shorter than the limit");
  const a = await aligned(norm);
  assert.match(
    metricOfAligned(a, "entropy").is,
    /^the mean over the step's sequences of each sequence's summed token entropy divided by actor\.loss_scale_factor/,
  );
  assert.match(metricOfAligned(await aligned(plain), "entropy").is, /^mean token entropy of the step's batch .*token-mean, verl's default/);
  assert.deepEqual(meaningNotes(await aligned(plain)), []);
});

test("npm run compare refuses clipfrac GSPO vs token level and entropy across verl loss_agg_mode, naming the setting on each side; concepts of the same meaning are compared", {
  skip,
}, async () => {
  const gspo = await archiveOf(find("trl", "grpo-gspo")!);
  const token = await archiveOf(find("trl", "grpo-spg2")!);
  const trl = compare(gspo, token);
  assert.equal(
    refusalOf(trl, "clipfrac_mean"),
    `  clipfrac_mean (clip fraction): its meaning depends on importance_sampling_level = sequence (then: fraction of completions (sequences, not tokens) whose sequence-level ratio exp(mean token log-ratio) is in the clipped region (GSPO), averaged over the logging_steps optimizer steps of the row), which ${gspo}: holds (importance_sampling_level = sequence); ${token}: does not hold (importance_sampling_level = token)`,
  );
  assert.equal(refusalOf(trl, "reward_mean"), undefined, "reward means the same on both sides");
  assert.equal(refusalOf(trl, "entropy_mean"), undefined);
  const norm = await archiveOf(find("verl", "loss-agg-seq-norm")!);
  const plain = await archiveOf(find("verl", "plain")!);
  const verl = compare(norm, plain);
  const entropy = refusalOf(verl, "entropy_mean")!;
  assert.match(entropy, /^ {2}entropy_mean \(entropy\): its meaning depends on actor_rollout_ref\.actor\.loss_agg_mode = seq-mean-token-sum-norm /);
  assert.ok(
    entropy.endsWith(
      `which ${norm}: holds (actor_rollout_ref.actor.loss_agg_mode = seq-mean-token-sum-norm); ${plain}: does not hold (actor_rollout_ref.actor.loss_agg_mode = token-mean)`,
    ),
    entropy,
  );
  assert.equal(refusalOf(verl, "clipfrac_mean"), undefined, "verl's clip fraction is a token mean under every loss_agg_mode");
  assert.equal(refusalOf(verl, "reward_mean"), undefined);
});

/** A copy of a run's rows without one key (a TRL before 0.17 logs no train/clip_ratio/region_mean). */
function withoutKey(rows: readonly HistoryRow[], key: string): HistoryRow[] {
  return rows.map((row) => {
    const out: HistoryRow = { _step: row._step };
    for (const k of keysOf(row)) if (k !== key) out[k] = row[k];
    return out;
  });
}

test("keys that prove a version range settle version notes from W&B and TensorBoard: TRL runs logging train/clip_ratio/region_mean are 0.17 or later; without that key the note stays", {
  skip,
}, async () => {
  const c = find("trl", "grpo-log1")!;
  for (const source of ["wandb", "tensorboard"] as const) {
    const runs = (await loadArchive(await archiveOf(c, source))).runs;
    assert.equal(runs[0].versions?.trl, undefined, `${source}: no trl version recorded`);
    const a = alignRuns(runs);
    assert.deepEqual(a.runs[0].versionBounds, [{ key: "train/clip_ratio/region_mean", package: "trl", atLeast: "0.17.0" }], source);
    assert.ok(!meaningNotes(a).some((n) => /trl < 0\.17\.0/.test(n)), `${source}: ${meaningNotes(a)}`);
    assert.ok(
      flagsLines(a).includes(`version of run ${runs[0].runId} (round R0) proven by its keys: trl >= 0.17.0 (it logs train/clip_ratio/region_mean)`),
      source,
    );
    runs[0].rows = withoutKey(runs[0].rows, "train/clip_ratio/region_mean");
    const old = alignRuns(runs);
    assert.equal(old.runs[0].versionBounds, undefined);
    assert.match(meaningNotes(old).join("\n"), /^if trl < 0\.17\.0 \(version not recorded\) in run \S+: clipfrac: TRL before 0\.17/m, source);
  }
});

test("OpenRLHF: train/timing/step_total is exactly the sum of its four phase timers in every step of the own records, so step_time_mismatch applies to the real runs and flags none; a step total off by 1 s is flagged", {
  skip,
}, async () => {
  const parts = ["train/timing/generation", "train/timing/make_experience", "train/timing/ppo_train", "train/timing/broadcast"];
  let steps = 0;
  for (const c of CASES.filter((x) => x.framework === "openrlhf")) {
    for (const entries of survivingEntries(c).values()) {
      for (const e of entries) {
        // OpenRLHF sums status's timing/* keys in insertion order: make_experience, ppo_train, broadcast, then generation (ppo_trainer.py:545).
        const sum = e.values[parts[1]] + e.values[parts[2]] + e.values[parts[3]] + e.values[parts[0]];
        assert.equal(e.values["train/timing/step_total"], sum, `${c.case} step ${e.step}`);
        steps++;
      }
    }
  }
  assert.ok(steps >= 16, `steps checked: ${steps}`);
  const plain = await aligned(find("openrlhf", "plain")!);
  const check = runHealthChecks(plain).results.find((r) => r.check === "step_time_mismatch")!;
  assert.equal(check.status, "no flags", check.reason ?? undefined);
  assert.deepEqual(check.flags, []);
  const off = {
    ...plain,
    rollouts: plain.rollouts.map((r) =>
      r.rollout === 3 ? { ...r, values: { ...r.values, "train/timing/step_total": r.values["train/timing/step_total"] + 1 } } : r,
    ),
  };
  const flagged = runHealthChecks(off).results.find((r) => r.check === "step_time_mismatch")!;
  assert.deepEqual(
    flagged.flags.map((f) => [f.round, f.first, f.last]),
    [["R0", 3, 3]],
  );
});

test("frameworks without observable updates: the export says single optimizer updates are not observable, never that a round had no optimizer updates", {
  skip,
}, async () => {
  for (const [fw, name] of [
    ["openrlhf", "plain"],
    ["verl", "plain"],
    ["trl", "grpo-log1"],
  ] as const) {
    const a = await aligned(find(fw, name)!);
    const archive = await loadArchive(await archiveOf(find(fw, name)!));
    const notes = buildExports(archive, a, { workspaceVersion: "test" }).manifest.summaryNotes;
    assert.ok(!notes.some((n) => /no optimizer updates/.test(n)), `${fw}/${name}: ${notes.join(" | ")}`);
    assert.ok(
      notes.some((n) => /^zero-gradient-norm updates: single optimizer updates are not observable \(/.test(n)),
      `${fw}/${name}: ${notes.join(" | ")}`,
    );
  }
});

/** Per step of a one-round case's own record: its values. */
function ownSteps(c: FixtureCase): Map<number, Record<string, number>> {
  return new Map(
    survivingEntries(c)
      .get("R0")!
      .map((e) => [e.step, e.values]),
  );
}

test("OpenRLHF length penalties: train/reward is (score - 1) x 0.5 for samples 8 tokens long and truncated (overlong penalty 1 past 8 - 4 tokens, then x stop_properly_penalty_coef), not the score; the profile says so and compare refuses reward against the plain run, naming both settings", {
  skip,
}, async () => {
  const c = find("openrlhf", "penalties")!;
  const argv = c.options.openrlhfArgv as string[];
  const arg = (n: string) => Number(argv[argv.indexOf(n) + 1]);
  assert.deepEqual([arg("--reward.overlong_buffer_len"), arg("--reward.stop_properly_penalty_coef"), arg("--rollout.max_new_tokens")], [4, 0.5, 8]);
  let checked = 0;
  for (const [s, v] of ownSteps(c)) {
    // Every sample ran to max_new_tokens without stopping here, so each got both penalties.
    assert.deepEqual([v["train/rollout/response_length_mean"], v["train/rollout/truncated_rate"]], [8, 1], `step ${s}`);
    const score = v["train/label_hit"];
    assert.equal(v["train/reward"], (score - 1) * 0.5, `step ${s}`);
    assert.notEqual(v["train/reward"], score);
    checked++;
  }
  assert.equal(checked, 5);
  const a = await aligned(c);
  assert.match(metricOfAligned(a, "reward").is, /^mean over the step's samples of the reward after OpenRLHF's length penalties/);
  assert.doesNotMatch(metricOfAligned(await aligned(find("openrlhf", "plain")!), "reward").is, /penalt/);
  const reward = refusalOf(compare(await archiveOf(c), await archiveOf(find("openrlhf", "plain")!)), "reward_mean")!;
  assert.match(reward, /its meaning depends on reward\.overlong_buffer_len or reward\.stop_properly_penalty_coef set \(length penalties on\)/);
  assert.match(
    reward,
    /: holds \(reward\.overlong_buffer_len = 4, reward\.stop_properly_penalty_coef = 0\.5\); \S+: does not hold \(reward\.overlong_buffer_len not set, reward\.stop_properly_penalty_coef not set\)$/,
  );
});

test("OpenRLHF dynamic filtering: dynamic_filtering_pass_rate is kept samples per prompt x 100 (above 100 with 2 samples a prompt), noted with its source; the reward is over the kept prompts", {
  skip,
}, async () => {
  const c = find("openrlhf", "dynamic-filter")!;
  const rates = [...ownSteps(c).values()].map((v) => v["train/dynamic_filtering_pass_rate"]);
  assert.ok(rates.some((r) => r > 100) && rates.every((r) => r <= 200), `pass rates ${rates}`);
  // A step that dropped one prompt: its 2 prompts' 4 samples kept of 3 prompts consumed.
  assert.ok(
    rates.some((r) => Math.abs(r - 400 / 3) < 1e-9),
    `pass rates ${rates}`,
  );
  const a = await aligned(c);
  const notes = meaningNotes(a).join("\n");
  assert.match(notes, /algo\.dynamic_filtering_enable = true in run \S+: train\/dynamic_filtering_pass_rate: samples kept per prompt consumed x 100/);
  assert.match(metricOfAligned(a, "reward").is, /^mean over the step's kept samples/);
  assert.doesNotMatch(meaningNotes(await aligned(find("openrlhf", "plain")!)).join("\n"), /dynamic_filtering/);
});

test("OpenRLHF critic.freezing_steps 2: train/reward only from step 4, its first value the mean of steps 1-4's rewards (the replay buffer kept them), while train/rollout/reward_mean is at every step; the profile says so", {
  skip,
}, async () => {
  const c = find("openrlhf", "frozen")!;
  const steps = ownSteps(c);
  assert.deepEqual(
    [...steps].filter(([, v]) => v["train/reward"] !== undefined).map(([s]) => s),
    [4, 5],
  );
  assert.equal([...steps.values()].filter((v) => v["train/rollout/reward_mean"] !== undefined).length, 5);
  const rollout = [1, 2, 3, 4].map((s) => steps.get(s)!["train/rollout/reward_mean"]);
  assert.ok(Math.abs(steps.get(4)!["train/reward"] - rollout.reduce((x, y) => x + y, 0) / 4) < 1e-12, `${steps.get(4)!["train/reward"]} vs ${rollout}`);
  assert.equal(steps.get(5)!["train/reward"], steps.get(5)!["train/rollout/reward_mean"]);
  const a = await aligned(c);
  assert.match(metricOfAligned(a, "reward").is, /^mean reward of the samples the actor trained on .* nothing in the frozen steps 1 \.\. freezing_steps \+ 1/);
});

test("npm run compare verl against TRL: nothing comparable, so nothing written; why first, each concept refused once; verl's per-position ppo_kl is averaged away, not unlogged", {
  skip,
}, async () => {
  const verl = await archiveOf(find("verl", "plain")!);
  const trl = await archiveOf(find("trl", "grpo-log1")!);
  const out = path.join(tmp, "compare-verl-trl");
  const run = spawnSync(
    process.execPath,
    ["--import", "tsx", path.join(REPO, "scripts/compare.ts"), "--arm", `verl=${verl}`, "--arm", `trl=${trl}`, "--out", out, "--resamples", "100"],
    { cwd: REPO, encoding: "utf8" },
  );
  assert.equal(run.status, 1, run.stderr);
  assert.equal(fs.existsSync(out), false, "no header-only CSVs");
  const lines = run.stderr.split("\n").filter((l) => !l.startsWith("run "));
  assert.match(lines[0], /^compare: nothing compared, nothing written into .*: every concept was refused, for the reasons below$/);
  const reasons = lines.slice(1).filter((l) => l.startsWith("  "));
  const concepts = reasons.map((l) => l.trim().split(" ")[0]);
  assert.equal(concepts.length, 11, reasons.join("\n"));
  assert.deepEqual(concepts, [...new Set(concepts)], "each concept once");
  const kl = reasons.find((l) => l.startsWith("  ppo_kl_first_update_mean "))!;
  assert.match(
    kl,
    /is missing on both sides: .*plain: verl: verl logs one row per training step .* single updates and their positions are averaged away; .*grpo-log1: TRL GRPOTrainer logs no ppo_kl/,
  );
  assert.doesNotMatch(kl, /no value logged/);
});
