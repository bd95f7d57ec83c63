/**
 * Semantic flags frozen from the real runs' own configs (.wandb config records written by TRL, verl
 * and OpenRLHF): the declared entries, typed, match what each maker passed (case.json), and nothing
 * else of a config (paths, other settings) reaches any file of the archive or the exports.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { after, test } from "node:test";

import { spawnSync } from "node:child_process";

import { fetchAndFreeze } from "../../lib/archive/fetch-and-freeze";
import { readRunsConfig } from "../../lib/archive/runs-config";
import { loadArchive } from "../../lib/archive/load-archive";
import { alignRuns } from "../../lib/align/align-runs";
import { archiveAndExportsText } from "../archive/written-text";
import { meaningNotes } from "../../lib/registry/profiles";
import { VERL_PROFILE } from "../../lib/registry/profile-verl";
import { readFlags } from "../../lib/registry/semantic-flags";
import { fixtureCases, type FixtureCase } from "./own-record";

const ROOT = path.resolve(__dirname, "../fixtures/real-runs");
const CASES = fixtureCases(ROOT);
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "real-flags-"));
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

function findCase(framework: string, name: string): FixtureCase | undefined {
  return CASES.find((c) => c.framework === framework && c.case === name);
}

/** Freezes a case's first round; returns the manifest entry and every byte written (archive, then exports). */
async function freeze(c: FixtureCase) {
  const r = c.rounds[0];
  const outDir = path.join(tmp, c.framework, c.case);
  const manifest = await fetchAndFreeze({
    entity: "",
    project: "",
    runs: [{ runId: r.wandbRunId, round: "R0", file: path.join(c.dir, r.wandbFile) }],
    outDir,
    env: {},
    now: () => new Date("2026-12-01T00:00:00.000Z"),
  });
  return { run: manifest.runs[0], archive: await loadArchive(outDir), written: await archiveAndExportsText(outDir) };
}

const skip = CASES.length === 0 ? "real-run fixtures absent (test/fixtures/real-runs)" : false;

test("TRL: the GRPOConfig flags are frozen typed, as the maker set them; output_dir and the model path are in no file", { skip }, async () => {
  const c = findCase("trl", "grpo-bnpo-noscale")!;
  const { run, archive, written } = await freeze(c);
  const value = (n: string) => run.flags?.[n]?.value;
  assert.equal(value("beta"), c.options.beta);
  assert.equal(value("num_iterations"), c.options.num_iterations);
  assert.equal(value("loss_type"), c.options.loss_type);
  // Defaults TRL 1.16 wrote into the config (not set by the maker).
  assert.equal(value("importance_sampling_level"), "token");
  assert.equal(value("use_vllm"), false);
  assert.ok(Object.values(run.flags!).every((f) => f.source === "config"));
  assert.deepEqual(archive.runs[0].flags, run.flags, "the loaded run carries the frozen flags");
  // Config entries outside the allow-list, with values that are in the .wandb file: in no output.
  const raw = fs.readFileSync(path.join(c.dir, c.rounds[0].wandbFile), "latin1");
  const outDirValue = /\/tmp\/trl-grpo-bnpo-noscale-[a-z0-9_]+\/out/.exec(raw)?.[0];
  assert.ok(outDirValue, "the fixture's config holds an output_dir path");
  assert.ok(!written.includes(outDirValue), "output_dir's value reaches no file");
  assert.ok(!written.includes("/tmp/trl-model-"), "the model path reaches no file");
  assert.ok(!written.includes("transformers_version") && !written.includes("adam_beta1"), "no undeclared config name reaches any file");
});

test("verl rollout correction: rollout_is and the comma-list rollout_rs read as the maker set them, nothing dropped", { skip }, async () => {
  const c = findCase("verl", "rollout-corr")!;
  const set = (name: string) => (c.options.extra_overrides as string[]).find((o) => o.startsWith(`${name}=`))!.split("=")[1];
  const { run } = await freeze(c);
  assert.equal(run.flags?.["algorithm.rollout_correction.rollout_is"]?.value, set("algorithm.rollout_correction.rollout_is"));
  assert.equal(run.flags?.["algorithm.rollout_correction.rollout_rs"]?.value, set("algorithm.rollout_correction.rollout_rs"));
  assert.equal(run.flagsDropped, undefined);
  // A list of modes is read as written; a mode verl does not have is dropped by its type, never its value.
  const rs = VERL_PROFILE.flags.find((f) => f.name === "algorithm.rollout_correction.rollout_rs")!;
  assert.deepEqual(readFlags([rs], { algorithm: { rollout_correction: { rollout_rs: "token_k1, seq_max_k3" } } }).flags, {
    "algorithm.rollout_correction.rollout_rs": "token_k1,seq_max_k3",
  });
  assert.deepEqual(readFlags([rs], { algorithm: { rollout_correction: { rollout_rs: "token_k1,secret" } } }).dropped, [
    {
      name: "algorithm.rollout_correction.rollout_rs",
      reason: `expected a comma-separated list of ${(rs.type as { listOf: string[] }).listOf.join(", ")}, got another string`,
    },
  ]);
});

test("verl: nested Hydra entries are read by their dot path; OpenRLHF: namespace reprs", { skip }, async () => {
  const verl = await freeze(findCase("verl", "plain")!);
  assert.deepEqual(Object.fromEntries(Object.entries(verl.run.flags!).map(([k, f]) => [k, f.value])), {
    "actor_rollout_ref.actor.loss_agg_mode": "token-mean",
    "actor_rollout_ref.actor.ppo_epochs": 1,
    "actor_rollout_ref.actor.ppo_mini_batch_size": 2,
    "actor_rollout_ref.actor.use_dynamic_bsz": false,
    "actor_rollout_ref.actor.use_kl_loss": false,
    "algorithm.adv_estimator": "grpo",
    "data.train_batch_size": 4,
    "trainer.use_v1": false,
  });
  const orl = findCase("openrlhf", "plain")!;
  const argv = orl.options.openrlhfArgv as string[];
  const { run } = await freeze(orl);
  assert.equal(run.flags?.["algo.advantage.estimator"]?.value, argv[argv.indexOf("--algo.advantage.estimator") + 1]);
  assert.equal(run.flags?.["algo.kl.use_loss"]?.value, argv.includes("--algo.kl.use_loss"));
  assert.equal(run.flags?.["algo.advantage.is_correction_level"]?.value, "off");
});

test("versions: the telemetry's wandb, Python and transformers equal the maker's (fixture README); a run folder's requirements.txt gives the framework's, and no other package", {
  skip,
}, async () => {
  const c = findCase("trl", "grpo-bnpo-noscale")!;
  const readme = fs.readFileSync(path.join(ROOT, "README.md"), "utf8");
  const row = readme.split("\n").find((l) => l.startsWith("| `trl/grpo-bnpo-noscale`"))!;
  const made = (pkg: string) => new RegExp(`${pkg} ([0-9.]+)`).exec(row)?.[1];
  const { run } = await freeze(c);
  assert.deepEqual(run.versions, {
    python: { value: made("Python"), source: "telemetry" },
    transformers: { value: made("transformers"), source: "telemetry" },
    wandb: { value: made("wandb"), source: "telemetry" },
  });
  // A W&B run folder: run-<id>/run-<id>.wandb and run-<id>/files/requirements.txt (pip freeze).
  const r = c.rounds[0];
  const folder = path.join(tmp, "run-folder", `run-${r.wandbRunId}`);
  fs.mkdirSync(path.join(folder, "files"), { recursive: true });
  const file = path.join(folder, `run-${r.wandbRunId}.wandb`);
  fs.copyFileSync(path.join(c.dir, r.wandbFile), file);
  fs.writeFileSync(
    path.join(folder, "files", "requirements.txt"),
    `accelerate==1.9.0\nTRL==${made("trl")}\nprivate-internal-pkg==3.1.4\n-e git+https://example.com/x.git@abc#egg=x\n`,
  );
  const manifest = await fetchAndFreeze({
    entity: "",
    project: "",
    runs: [{ runId: r.wandbRunId, round: "R0", file }],
    outDir: path.join(tmp, "run-folder", "archive"),
    env: {},
    now: () => new Date("2026-12-01T00:00:00.000Z"),
  });
  assert.deepEqual(manifest.runs[0].versions?.trl, { value: made("trl"), source: "requirements" });
  const text = fs.readFileSync(path.join(tmp, "run-folder", "archive", "manifest.json"), "utf8");
  assert.ok(!text.includes("private-internal-pkg") && !text.includes("accelerate") && !text.includes("example.com"), "other packages are never kept");
});

test('flags stated by hand (runs.json "flags", --flag RUN:NAME=VALUE) win over the config\'s, with source stated; undeclared names and wrong types are refused', {
  skip,
}, async () => {
  const c = findCase("trl", "grpo-bnpo-noscale")!;
  const r = c.rounds[0];
  const file = path.join(c.dir, r.wandbFile);
  const dir = path.join(tmp, "stated");
  fs.mkdirSync(dir, { recursive: true });
  const config = (flags: unknown) => {
    const p = path.join(dir, `runs-${Math.random().toString(36).slice(2)}.json`);
    fs.writeFileSync(p, JSON.stringify({ runs: [{ file, round: "R0", flags }] }));
    return p;
  };
  const manifest = await fetchAndFreeze({
    entity: "",
    project: "",
    runs: readRunsConfig(config({ beta: 0.04, use_rollout_logprobs: true })).runs,
    outDir: path.join(dir, "archive"),
    env: {},
    now: () => new Date("2026-12-01T00:00:00.000Z"),
  });
  const flags = manifest.runs[0].flags!;
  assert.deepEqual(flags.beta, { value: 0.04, source: "stated" });
  assert.deepEqual(flags.use_rollout_logprobs, { value: true, source: "stated" });
  assert.deepEqual(flags.loss_type, { value: "bnpo", source: "config" }, "the config's other flags stay");
  assert.throws(() => readRunsConfig(config({ api_key: "x" })), /invalid runs config: .*: invalid flag: runs\[0\]: api_key is no declared flag/);
  assert.throws(() => readRunsConfig(config({ beta: "high" })), /invalid flag: runs\[0\]: beta must be number, not "high"/);
  // The CLI: a flag of a run not selected is an option error (exit 2), before anything is read.
  const fetchCli = (flag: string) =>
    spawnSync(
      process.execPath,
      ["--import", "tsx", path.join(__dirname, "../../scripts/fetch.ts"), "--wandb-file", `${file}=R0`, "--flag", flag, "--out", path.join(dir, "cli")],
      {
        encoding: "utf8",
      },
    );
  const cli = fetchCli("nope:beta=0.1");
  assert.equal(cli.status, 2, cli.stderr);
  assert.match(cli.stderr, /^invalid --flag: nope:beta=0\.1 \(no selected run has the id nope\)/);
  const ok = fetchCli(`${r.wandbRunId}:loss_type=grpo`);
  assert.equal(ok.status, 0, ok.stderr);
  const written = JSON.parse(fs.readFileSync(path.join(dir, "cli", "manifest.json"), "utf8"));
  assert.deepEqual(written.runs[0].flags.loss_type, { value: "grpo", source: "stated" });
});

test('versions stated by hand (runs.json "versions", --version RUN:PACKAGE=VERSION) win with source stated and make a version meaning hold; unknown packages and non-versions are refused', {
  skip,
}, async () => {
  const c = findCase("trl", "grpo-log1")!;
  const r = c.rounds[0];
  const file = path.join(c.dir, r.wandbFile);
  const dir = path.join(tmp, "stated-versions");
  fs.mkdirSync(dir, { recursive: true });
  const config = (versions: unknown) => {
    const p = path.join(dir, `runs-${Math.random().toString(36).slice(2)}.json`);
    fs.writeFileSync(p, JSON.stringify({ runs: [{ file, round: "R0", versions }] }));
    return p;
  };
  const outDir = path.join(dir, "archive");
  const manifest = await fetchAndFreeze({
    entity: "",
    project: "",
    runs: readRunsConfig(config({ trl: "0.16.1", transformers: "4.49.0" })).runs,
    outDir,
    env: {},
    now: () => new Date("2026-12-01T00:00:00.000Z"),
  });
  const versions = manifest.runs[0].versions!;
  assert.deepEqual(versions.trl, { value: "0.16.1", source: "stated" });
  assert.deepEqual(versions.transformers, { value: "4.49.0", source: "stated" }, "stated wins over the telemetry's");
  assert.equal(versions.wandb.source, "telemetry", "the recorded ones stay");
  // TRL's clip ratio before 0.17: the meaning now holds for certain (no "version not recorded").
  const aligned = alignRuns((await loadArchive(outDir)).runs, { profile: "trl" });
  assert.match(meaningNotes(aligned)[0], /^trl < 0\.17\.0 in run \w+: clipfrac: TRL before 0\.17 logs no train\/clip_ratio\/region_mean/);
  assert.throws(
    () => readRunsConfig(config({ numpy: "2.0.0" })),
    /invalid version: runs\[0\]: numpy is none of the packages read \(wandb, python, transformers, slime/,
  );
  assert.throws(() => readRunsConfig(config({ trl: "latest" })), /invalid version: runs\[0\]: trl must be a release version such as 0\.16\.1, not "latest"/);
  const cli = spawnSync(
    process.execPath,
    [
      "--import",
      "tsx",
      path.join(__dirname, "../../scripts/fetch.ts"),
      "--wandb-file",
      `${file}=R0`,
      "--version",
      `${r.wandbRunId}:verl=0.4.0`,
      "--out",
      path.join(dir, "cli"),
    ],
    { encoding: "utf8" },
  );
  assert.equal(cli.status, 0, cli.stderr);
  assert.deepEqual(JSON.parse(fs.readFileSync(path.join(dir, "cli", "manifest.json"), "utf8")).runs[0].versions.verl, { value: "0.4.0", source: "stated" });
});
