/**
 * The bundled sample comparison (`npm run simulate:compare`): two arms of three seeds each from the
 * scenario generator (scenario.ts), differing in one declared setting, `nSamplesPerPrompt` (8 vs 16),
 * written as frozen archives `data/compare/<arm>-s<seed>/` (manifest.json + history/; each run's
 * declared flags frozen from its config as a fetch does) and listed in
 * `data/compare.json`. The generator draws every metric independently of that setting, so any
 * difference between the arms is seed noise: a null comparison the intervals should show as such.
 *   tsx tools/simulate-slime/compare-sample.ts [--out-dir data]
 */
import { promises as fsp } from "node:fs";
import * as path from "node:path";
import { parseArgs } from "node:util";

import { historyFile, HISTORY_DIR, MANIFEST_FILE, serializeManifest } from "../../lib/archive/manifest";
import { configFacts } from "../../lib/archive/run-config-facts";
import type { SourceManifest } from "../../lib/types";
import { type Scenario, simulateScenario, type ScenarioOptions } from "./scenario";
import { scenarioHistoryText, scenarioManifest } from "./scenario-data";

/** The two arms: name, the one setting they differ in, and the seeds of their experiments (independent runs: no seed shared). */
export const SAMPLE_ARMS: readonly { name: string; nSamplesPerPrompt: number; seeds: readonly number[] }[] = [
  { name: "n8", nSamplesPerPrompt: 8, seeds: [1, 2, 3] },
  { name: "n16", nSamplesPerPrompt: 16, seeds: [4, 5, 6] },
];

/** Settings every experiment shares: two rounds of 8 rollouts, N = 2. */
const SHARED: ScenarioOptions = { n: 2, rounds: [{ rollouts: 8 }, { rollouts: 8 }], evalInterval: null, rolloutBatchSize: 4 };

/** Folder of one experiment's archive, relative to the data folder. */
export function sampleArchive(arm: string, seed: number): string {
  return `compare/${arm}-s${seed}`;
}

/** The stand-in for a published run: the first arm's setting with a seed of its own. */
const REFERENCE = { dir: "compare/reference", seed: 100 };

/**
 * The scenario's manifest with each run's config frozen as a fetch freezes a server run's
 * (lib/archive/run-config-facts.ts `configFacts`): its declared flags, typed, and nothing else of it.
 */
export function sampleManifest(s: Scenario): SourceManifest {
  const m = scenarioManifest(s);
  return { ...m, runs: m.runs.map((run, i) => ({ ...run, ...configFacts([s.runs[i].config]) })) };
}

/** Every archive of the sample (folder relative to the data folder) with the scenario it is made from. */
export function sampleScenarios(): { dir: string; scenario: Scenario }[] {
  const one = (dir: string, opts: ScenarioOptions) => ({ dir, scenario: simulateScenario({ ...SHARED, ...opts }) });
  return [
    ...SAMPLE_ARMS.flatMap((arm) => arm.seeds.map((seed) => one(sampleArchive(arm.name, seed), { seed, nSamplesPerPrompt: arm.nSamplesPerPrompt }))),
    one(REFERENCE.dir, { seed: REFERENCE.seed, nSamplesPerPrompt: SAMPLE_ARMS[0].nSamplesPerPrompt }),
  ];
}

/** One scenario's frozen archive in `dir` (replaced whole). */
async function writeArchive(dir: string, s: Scenario): Promise<void> {
  await fsp.rm(dir, { recursive: true, force: true });
  await fsp.mkdir(path.join(dir, HISTORY_DIR), { recursive: true });
  for (let i = 0; i < s.runs.length; i++) await fsp.writeFile(path.join(dir, historyFile(s.runs[i].runId)), scenarioHistoryText(s, i), "utf8");
  await fsp.writeFile(path.join(dir, MANIFEST_FILE), serializeManifest(sampleManifest(s)), "utf8");
}

/** Write every experiment's archive, the reference and compare.json into `dataDir`. */
export async function writeCompareSample(dataDir: string): Promise<void> {
  for (const { dir, scenario } of sampleScenarios()) await writeArchive(path.join(dataDir, dir), scenario);
  const config = {
    arms: SAMPLE_ARMS.map((a) => ({ name: a.name, archives: a.seeds.map((seed) => sampleArchive(a.name, seed)) })),
    reference: REFERENCE.dir,
    seed: 0,
  };
  await fsp.writeFile(path.join(dataDir, "compare.json"), `${JSON.stringify(config, null, 2)}\n`, "utf8");
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { "out-dir": { type: "string", default: path.resolve(__dirname, "../../data") } }, strict: true });
  await writeCompareSample(path.resolve(values["out-dir"]!));
  process.stderr.write(`wrote ${SAMPLE_ARMS.length} arms x 3 seeds and a reference into ${values["out-dir"]}/compare, and compare.json\n`);
}

if (require.main === module) {
  main().catch((e: Error) => {
    process.stderr.write(`compare-sample: ${e.message}\n`);
    process.exitCode = 1;
  });
}
