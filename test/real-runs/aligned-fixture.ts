/**
 * One real fixture run (test/fixtures/real-runs/<framework>/<case>) frozen from its first .wandb file
 * as round R0 and aligned, as the notebooks see it; frozen once per fixture per test process.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { after } from "node:test";

import { alignRuns } from "../../lib/align/align-runs";
import { fetchAndFreeze } from "../../lib/archive/fetch-and-freeze";
import { loadArchive } from "../../lib/archive/load-archive";
import type { AlignedRuns } from "../../lib/types";

const ROOT = path.resolve(__dirname, "../fixtures/real-runs");
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "aligned-fixture-"));
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

const frozen = new Map<string, Promise<AlignedRuns>>();

/** One fixture's first .wandb file frozen as round R0 and aligned (once per fixture). */
export function alignedFixture(framework: string, name: string): Promise<AlignedRuns> {
  const id = `${framework}/${name}`;
  if (!frozen.has(id)) frozen.set(id, freezeFixture(framework, name));
  return frozen.get(id)!;
}

/** Freezes a fixture's first .wandb file under the run id its case.json names, and aligns it. */
async function freezeFixture(framework: string, name: string): Promise<AlignedRuns> {
  const outDir = path.join(tmp, framework, name);
  await freezeFixtureInto(framework, name, outDir);
  return alignRuns((await loadArchive(outDir)).runs);
}

/** Freezes a fixture's first .wandb file as round R0 into `outDir`, under the run id its case.json names. */
export async function freezeFixtureInto(framework: string, name: string, outDir: string): Promise<void> {
  const dir = path.join(ROOT, framework, name);
  const c = JSON.parse(fs.readFileSync(path.join(dir, "case.json"), "utf8"));
  const first = c.rounds?.[0] ?? c;
  await fetchAndFreeze({
    entity: "",
    project: "",
    runs: [{ runId: first.wandbRunId, round: "R0", file: path.join(dir, first.wandbFile) }],
    outDir,
    env: {},
    now: () => new Date("2026-12-01T00:00:00.000Z"),
    profile: "detect",
  });
}
