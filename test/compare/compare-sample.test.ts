/**
 * The bundled sample comparison: data/compare/ and data/compare.json regenerate byte for byte, each
 * run carries the declared flags its scenario used (and nothing else of its config), and comparing
 * them gives byte-identical files for the same seed.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

import { parseManifest, serializeManifest } from "../../lib/archive/manifest";
import { readCompareConfigFile, runComparison } from "../../lib/compare/compare-config";
import { exportSourceRuns, FLAGS_UNKNOWN } from "../../lib/export/export-manifest";
import { allDeclaredFlags } from "../../lib/registry/profiles";
import { SAMPLE_ARMS, sampleManifest, sampleScenarios, writeCompareSample } from "../../tools/simulate-slime/compare-sample";

const ROOT = path.resolve(__dirname, "../..");
const work = mkdtempSync(path.join(os.tmpdir(), "compare-sample-test-"));
after(() => rmSync(work, { recursive: true, force: true }));

/** Every file under dir, relative, sorted. */
function files(dir: string, rel = ""): string[] {
  return readdirSync(path.join(dir, rel), { withFileTypes: true })
    .flatMap((d) => (d.isDirectory() ? files(dir, path.join(rel, d.name)) : [path.join(rel, d.name)]))
    .sort();
}

test("npx tsx tools/simulate-slime/compare-sample.ts regenerates data/compare/ and data/compare.json byte for byte", async () => {
  await writeCompareSample(work);
  const committed = files(path.join(ROOT, "data/compare"));
  assert.deepEqual(files(path.join(work, "compare")), committed);
  assert.equal(committed.filter((f) => f.endsWith("manifest.json")).length, 7, "2 arms x 3 seeds and the reference");
  for (const f of committed) assert.ok(readFileSync(path.join(work, "compare", f)).equals(readFileSync(path.join(ROOT, "data/compare", f))), f);
  assert.equal(readFileSync(path.join(work, "compare.json"), "utf8"), readFileSync(path.join(ROOT, "data/compare.json"), "utf8"));
});

/** n_samples_per_prompt of each sample archive, as the scenario table sets it: the arm's name, the reference the first arm's. */
const SAMPLES_PER_PROMPT: Readonly<Record<string, number>> = {
  "n8-s1": 8,
  "n8-s2": 8,
  "n8-s3": 8,
  "n16-s4": 16,
  "n16-s5": 16,
  "n16-s6": 16,
  reference: 8,
};

/**
 * The declared slime flags a scenario run with `n` samples per prompt logs in its config: GRPO (no
 * critic), no KL, no train-step axis, and global batch = 4 prompts x n samples over N = 2 updates.
 */
function expectedFlags(n: number): Record<string, { value: boolean | number | string; source: string }> {
  const c = (value: boolean | number | string) => ({ value, source: "config" });
  return {
    advantage_estimator: c("grpo"),
    global_batch_size: c((4 * n) / 2),
    kl_coef: c(0),
    n_samples_per_prompt: c(n),
    use_kl_loss: c(false),
    wandb_always_use_train_step: c(false),
  };
}

test("each sample run's manifest freezes the declared flags its scenario used (n_samples_per_prompt 8 or 16 by arm), read from config", () => {
  const dirs = readdirSync(path.join(ROOT, "data/compare")).sort();
  assert.deepEqual(dirs, Object.keys(SAMPLES_PER_PROMPT).sort());
  for (const dir of dirs) {
    const file = path.join(ROOT, "data/compare", dir, "manifest.json");
    const manifest = parseManifest(readFileSync(file, "utf8"), file);
    assert.equal(manifest.runs.length, 2, dir);
    for (const run of manifest.runs) {
      assert.deepEqual(run.flags, expectedFlags(SAMPLES_PER_PROMPT[dir]), `${dir} ${run.runId}`);
      assert.equal(run.flagsDropped, undefined, `${dir} ${run.runId}`);
    }
    // An export of the archive states the flags instead of "unknown".
    for (const r of exportSourceRuns(manifest)) assert.notEqual(r.flags, FLAGS_UNKNOWN, `${dir} ${r.runId}`);
  }
});

test("no config entry but a declared flag reaches data/compare: the simulator's other entries, and a probe added to its config, stay out", () => {
  const declared = new Set(allDeclaredFlags().map((f) => f.name));
  const texts = [
    ...files(path.join(ROOT, "data/compare")).map((f) => readFileSync(path.join(ROOT, "data/compare", f), "utf8")),
    readFileSync(path.join(ROOT, "data/compare.json"), "utf8"),
  ];
  const scenarios = sampleScenarios();
  assert.equal(scenarios.length, 7);
  for (const { dir, scenario } of scenarios) {
    for (const run of scenario.runs) {
      const undeclared = Object.keys(run.config).filter((k) => !declared.has(k));
      // The simulator's config holds entries no profile declares: the check below has something to find.
      for (const k of ["simulated", "simulated_profile", "rollout_batch_size", "use_critic", "num_rollout"]) assert.ok(undeclared.includes(k), `${dir}: ${k}`);
      for (const k of undeclared) assert.ok(!texts.some((t) => t.includes(`"${k}"`)), `${dir} ${run.runId}: undeclared config entry ${k} leaked`);
    }
  }
  const { scenario } = scenarios[0];
  const probed = { ...scenario, runs: scenario.runs.map((r) => ({ ...r, config: { ...r.config, leak_probe_entry: "leak-probe-value" } })) };
  const text = serializeManifest(sampleManifest(probed));
  assert.ok(!text.includes("leak_probe_entry") && !text.includes("leak-probe-value"), "a config entry no profile declares reached the manifest");
  assert.equal(text, serializeManifest(sampleManifest(scenario)));
});

test("the sample's arms differ in one declared setting and share no seed; the same seed gives byte-identical outputs", async () => {
  assert.equal(SAMPLE_ARMS.length, 2);
  assert.equal(new Set(SAMPLE_ARMS.flatMap((a) => a.seeds)).size, 6);
  const spec = { ...readCompareConfigFile(path.join(ROOT, "data/compare.json")), resamples: 2000 };
  const a = await runComparison(spec, path.join(work, "a"));
  const b = await runComparison(spec, path.join(work, "b"));
  assert.deepEqual(
    a.files.map((f) => f.text),
    b.files.map((f) => f.text),
  );
  assert.deepEqual(a.result.refused, [], "one framework, one N, n_samples_per_prompt changes no meaning: nothing refused");
  // The experiments carry their runs' flags (not unknown): n_samples_per_prompt is each arm's.
  const sides = [...a.arms.map((arm) => ({ name: arm.name, experiments: arm.experiments })), { name: "reference", experiments: [a.reference!] }];
  for (const side of sides) {
    for (const e of side.experiments) {
      const n = side.name === "reference" ? 8 : Number(side.name.slice(1));
      assert.deepEqual(
        e.runs.map((r) => r.flags?.n_samples_per_prompt),
        e.runs.map(() => ({ value: n, source: "config" })),
        e.dir,
      );
    }
  }
  assert.equal(a.result.compare.rows.length, 2 * 11 * 3, "2 arms x 11 concepts x (R0, R1, all)");
});

test("exports/compare/ is what comparing data/compare.json writes, byte for byte (seed 0, 50,000 resamples)", async () => {
  const out = path.join(work, "exports-compare");
  const run = await runComparison(readCompareConfigFile(path.join(ROOT, "data/compare.json")), out);
  assert.equal(run.files.length, 4);
  for (const f of run.files)
    assert.equal(readFileSync(path.join(ROOT, "exports/compare", f.name), "utf8"), f.text, `exports/compare/${f.name} differs from a regeneration`);
});
