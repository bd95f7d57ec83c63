/**
 * The framework of runs frozen together, decided at fetch from each run's keys (decideRunProfiles),
 * and read back from the manifest by detectProfile: one framework per archive, every run holding
 * keys of it; refusals name each run, what its keys match and what to do.
 */
import assert from "node:assert/strict";
import { test } from "node:test";

import { decideRunProfiles, detectProfile } from "../../lib/registry/detect-profile";
import type { RunHistory } from "../../lib/types";

/** Keys as the real runs log them (test/fixtures/real-runs: TRL 1.16 GRPO, verl 0.9.1). */
const TRL_KEYS = [
  "_runtime",
  "_step",
  "train/clip_ratio/region_mean",
  "train/completions/mean_length",
  "train/loss",
  "train/num_tokens",
  "train/rewards/reward_len/mean",
];
const VERL_KEYS = ["_step", "actor/entropy", "critic/score/mean", "response_length/mean", "timing_s/step", "training/global_step"];
/** A supervised run (transformers' Trainer through W&B): loss and accuracy, no RL key. */
const SFT_KEYS = ["_step", "eval/accuracy", "eval/loss", "train/epoch", "train/grad_norm", "train/learning_rate", "train/loss"];

test("one framework: every run's profile recorded with the entries its own keys match; a run without metric keys follows the others", () => {
  const decided = decideRunProfiles([
    { runId: "a", round: "R0", keys: TRL_KEYS },
    { runId: "b", round: "R1", keys: ["_step", "train/num_tokens"] },
    { runId: "empty", round: "R2", keys: ["_step", "_runtime"] },
  ]);
  assert.deepEqual(decided, [
    { name: "trl", how: "detected", evidence: ["train/completions/", "train/clip_ratio/", "train/num_tokens", "train/rewards/"] },
    { name: "trl", how: "detected", evidence: ["train/num_tokens"] },
    { name: "trl", how: "detected", evidence: [] },
  ]);
  assert.equal(decideRunProfiles([{ runId: "empty", round: "R0", keys: ["_step"] }]), null, "nothing to decide from");
  assert.deepEqual(decideRunProfiles([{ runId: "v", round: "R0", keys: VERL_KEYS }], "verl")![0].how, "given");
});

test("two frameworks are refused naming each run, its framework and the keys that say so, and the fix; in any order", () => {
  const message =
    "these runs were written by different frameworks: run trlgrpolog1 (round R0): trl (train/completions/, train/clip_ratio/, train/num_tokens, train/rewards/); run verl-plain (round R1): verl (training/global_step, actor/, timing_s/, response_length/, critic/score/). An archive holds the runs of one framework: fetch each framework's runs into an archive of its own (e.g. --out data/trl/wandb and --out data/verl/wandb)";
  assert.throws(
    () =>
      decideRunProfiles([
        { runId: "trlgrpolog1", round: "R0", keys: TRL_KEYS },
        { runId: "verl-plain", round: "R1", keys: VERL_KEYS },
      ]),
    { message },
  );
  // A tie on the union (one key of each) is still two frameworks, not "name the profile".
  assert.throws(
    () =>
      decideRunProfiles([
        { runId: "t", round: "R0", keys: ["train/num_tokens"] },
        { runId: "v", round: "R1", keys: ["actor/entropy"] },
      ]),
    { message: /^these runs were written by different frameworks: run t \(round R0\): trl \(train\/num_tokens\); run v \(round R1\): verl \(actor\/\)\./ },
  );
  assert.throws(
    () =>
      decideRunProfiles([
        { runId: "verl-plain", round: "R0", keys: VERL_KEYS },
        { runId: "trlgrpolog1", round: "R1", keys: TRL_KEYS },
      ]),
    { message: /^these runs were written by different frameworks: run verl-plain \(round R0\): verl .*; run trlgrpolog1 \(round R1\): trl / },
  );
});

test("a run with none of any profile's keys (a supervised run) is refused naming it, its keys and the keys looked for", () => {
  assert.throws(
    () =>
      decideRunProfiles([
        { runId: "trlgrpolog1", round: "R0", keys: TRL_KEYS },
        { runId: "sft1", round: "R1", keys: SFT_KEYS },
      ]),
    (e: Error) => {
      assert.match(
        e.message,
        /^not a run of a framework the workspace reads: run sft1 \(round R1\) holds none of them; its keys: eval\/accuracy, eval\/loss, train\/epoch, train\/grad_norm, train\/learning_rate, train\/loss\. /,
      );
      assert.match(e.message, /Each framework profile looks for some of these keys \(slime: train\/step rollout\/step .*; trl: train\/completions\/ .*\)\./);
      assert.match(e.message, /leave this run out of the fetch$/);
      assert.doesNotMatch(e.message, /trlgrpolog1/, "the TRL run is fine");
      return true;
    },
  );
});

test("a named profile refuses a run holding none of its keys (it would read as empty cells), at fetch and when the runs are read", () => {
  const message =
    "run verl-plain (round R1) holds none of trl's keys (train/completions/, train/clip_ratio/, train/num_tokens, train/frac_reward_zero_std, train/rewards/), so the profile named would read it as empty cells; its keys match verl (training/global_step, actor/, timing_s/, response_length/, critic/score/). Name the profile the run's keys match (data/runs.json \"profile\", CLI --profile), or fetch that run into an archive of its own";
  const runs = [
    { runId: "trlgrpolog1", round: "R0", keys: TRL_KEYS },
    { runId: "verl-plain", round: "R1", keys: VERL_KEYS },
  ];
  assert.throws(() => decideRunProfiles(runs, "trl"), { message });
  const histories: RunHistory[] = runs.map((r) => ({
    runId: r.runId,
    round: r.round,
    entity: "",
    project: "",
    state: "finished",
    rows: [Object.fromEntries(r.keys.map((k, i) => [k, i]))],
  }));
  assert.throws(() => detectProfile(histories, "trl"), { message });
});

test("detectProfile reads the profile the fetch recorded (given or detected) instead of deciding again; mixed records fall back to the keys", () => {
  const row = { _step: 0, "train/num_tokens": 1, "train/policy_loss": 2 }; // trl and openrlhf tie on these keys
  const run = (runId: string, profile?: RunHistory["profile"]): RunHistory => ({
    runId,
    round: runId,
    entity: "",
    project: "",
    state: "finished",
    rows: [row],
    profile,
  });
  const given = detectProfile([run("a", { name: "openrlhf", how: "given", evidence: ["train/policy_loss"] })]);
  assert.deepEqual([given.profile.name, given.how, given.evidence], ["openrlhf", "given", []]);
  const detected = detectProfile([
    run("a", { name: "trl", how: "detected", evidence: ["train/num_tokens"] }),
    run("b", { name: "trl", how: "detected", evidence: ["train/rewards/", "train/completions/"] }),
  ]);
  assert.deepEqual([detected.profile.name, detected.how, detected.evidence], ["trl", "detected", ["train/completions/", "train/num_tokens", "train/rewards/"]]);
  assert.throws(() => detectProfile([run("a", { name: "trl", how: "detected", evidence: [] }), run("b")]), /match equally/);
});
