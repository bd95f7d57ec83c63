/**
 * Writes a scenario (scenario.ts) as a workspace data folder, the layout `npm run simulate` gives
 * `data/`: `wandb/` (a frozen archive that lib/archive's `loadArchive` verifies and loads),
 * `runs.json` and `local/<runId>.log`. No SDK and no server: the frozen bytes are made with the
 * archive's own serializers, so an export or notebook can run on a scenario as on the sample.
 */
import { createHash } from "node:crypto";
import { promises as fsp } from "node:fs";
import * as path from "node:path";

import { serializeFrozenRow } from "../../lib/values/frozen-row";
import { HISTORY_DIR, historyFile, MANIFEST_FILE, serializeManifest } from "../../lib/archive/manifest";
import type { ManifestRun, SourceManifest } from "../../lib/types";
import { DEFAULT_PAGE_SIZE } from "../../lib/wandb/scan-history";
import { READER_VERSION } from "../../lib/wandb/version";
import { ARCHIVE_SUBDIR } from "../../lib/workspace/workspace-params";
import type { Scenario } from "./scenario";
import { scenarioLocalLog, type ScenarioLogOptions } from "./scenario-local-log";

/** Frozen history text of one run (one sorted-key JSON line per row). */
export function scenarioHistoryText(s: Scenario, runIndex: number): string {
  return s.runs[runIndex].history.map((r) => serializeFrozenRow(r) + "\n").join("");
}

/** W&B's `createdAt` form (UTC, seconds, no zone) of epoch ms. */
const createdAt = (ms: number) => new Date(Math.floor(ms / 1000) * 1000).toISOString().slice(0, 19);

/** The manifest of the scenario's archive; `fetchedAt` is 30 minutes after the last row, on the minute. */
export function scenarioManifest(s: Scenario): SourceManifest {
  const lastMs = Math.max(...s.runs.map((r) => Math.max(...r.rows.map((x) => x.timeMs))));
  const fetchedAt = new Date(Math.ceil(lastMs / 60_000) * 60_000 + 30 * 60_000).toISOString();
  const runs: ManifestRun[] = s.runs.map((run, i) => {
    const text = scenarioHistoryText(s, i);
    return {
      entity: s.entity,
      project: s.project,
      runId: run.runId,
      round: run.round,
      displayName: `scenario-${run.round}`,
      state: run.state,
      historyEvents: run.history.length,
      lastStep: run.history.length - 1,
      createdAt: createdAt(run.segmentStartMs[0]),
      fetchedAt,
      file: historyFile(run.runId),
      sha256: createHash("sha256").update(text, "utf8").digest("hex"),
      bytes: Buffer.byteLength(text, "utf8"),
      droppedKeys: {},
    };
  });
  return { kind: "wandb-frozen-history", formatVersion: 1, readerVersion: READER_VERSION, pageSize: DEFAULT_PAGE_SIZE, runs };
}

/** Writes `<outDir>/wandb/`, `<outDir>/runs.json` and `<outDir>/local/` for a scenario (replacing those three). */
export async function writeScenarioData(s: Scenario, outDir: string, logOptions: ScenarioLogOptions = {}): Promise<void> {
  if (typeof outDir !== "string" || !outDir) throw new Error(`invalid outDir: ${JSON.stringify(outDir)}`);
  const archive = path.join(outDir, ARCHIVE_SUBDIR);
  const local = path.join(outDir, "local");
  for (const dir of [archive, local]) await fsp.rm(dir, { recursive: true, force: true });
  await fsp.mkdir(path.join(archive, HISTORY_DIR), { recursive: true });
  await fsp.mkdir(local, { recursive: true });
  for (let i = 0; i < s.runs.length; i++) {
    await fsp.writeFile(path.join(archive, historyFile(s.runs[i].runId)), scenarioHistoryText(s, i), "utf8");
    await fsp.writeFile(path.join(local, `${s.runs[i].runId}.log`), scenarioLocalLog(s.runs[i], logOptions), "utf8");
  }
  await fsp.writeFile(path.join(archive, MANIFEST_FILE), serializeManifest(scenarioManifest(s)), "utf8");
  const runsFile = { entity: s.entity, project: s.project, runs: s.runs.map((r) => ({ runId: r.runId, round: r.round })) };
  await fsp.writeFile(path.join(outDir, "runs.json"), JSON.stringify(runsFile, null, 2) + "\n", "utf8");
}
