/**
 * Writes a scenario as a workspace data folder (scenario-data.ts), for trying the workspace on
 * real-slime traits by hand:
 *   tsx tools/simulate-slime/scenario-cli.ts --out-dir /tmp/scn '{"n":3,"alwaysUseTrainStep":true,"critic":true}'
 *     [--truth /tmp/scn-truth.json] [--ansi] [--repeated] [--tqdm glued|closed]
 * The positional argument is the JSON of `ScenarioOptions` (scenario.ts); `--truth` writes the ground truth.
 */
import { promises as fsp } from "node:fs";
import * as path from "node:path";
import { parseArgs } from "node:util";

import { simulateScenario, type ScenarioOptions } from "./scenario";
import { writeScenarioData } from "./scenario-data";

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    options: {
      "out-dir": { type: "string" },
      truth: { type: "string" },
      ansi: { type: "boolean", default: false },
      repeated: { type: "boolean", default: false },
      tqdm: { type: "string" },
    },
    allowPositionals: true,
    strict: true,
  });
  if (!values["out-dir"]) throw new Error("invalid --out-dir: (missing)");
  if (positionals.length > 1) throw new Error(`invalid options: ${positionals.join(" ")} (one JSON argument)`);
  let opts: ScenarioOptions = {};
  try {
    opts = positionals.length ? (JSON.parse(positionals[0]) as ScenarioOptions) : {};
  } catch (e) {
    throw new Error(`invalid options: ${positionals[0]} (${(e as Error).message})`);
  }
  const tqdm = values.tqdm ?? null;
  if (tqdm !== null && tqdm !== "glued" && tqdm !== "closed") throw new Error(`invalid --tqdm: ${tqdm}`);
  const s = simulateScenario(opts);
  const outDir = path.resolve(values["out-dir"]);
  await writeScenarioData(s, outDir, { ansi: values.ansi, repeated: values.repeated, tqdm });
  if (values.truth) await fsp.writeFile(path.resolve(values.truth), JSON.stringify(s.truth, null, 1) + "\n", "utf8");
  process.stderr.write(`wrote ${outDir}: ${s.runs.map((r) => `${r.round} ${r.runId} ${r.history.length} rows ${r.state}`).join(", ")}\n`);
}

main().catch((e: Error) => {
  process.stderr.write(`scenario: ${e.message}\n`);
  process.exitCode = 1;
});
