/**
 * Writes a framework simulation as a workspace data folder: `wandb/` (a frozen archive that
 * lib/archive's `loadArchive` verifies and loads) and `runs.json`. No SDK and no server: the frozen
 * bytes come from the archive's own serializers, as tools/simulate-slime/scenario-data.ts does for
 * slime scenarios. Non-numeric keys (OpenRLHF's samples table) are listed in `droppedKeys`, as a
 * freeze of the logged run lists them.
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
import type { FrameworkSimulation, FwRun } from "./types";

/** Frozen history text of one run (one sorted-key JSON line per row). */
export function frameworkHistoryText(run: FwRun): string {
  return run.history.map((r) => serializeFrozenRow(r) + "\n").join("");
}

/** W&B's `createdAt` form (UTC, seconds, no zone) of epoch ms. */
const createdAt = (ms: number) => new Date(Math.floor(ms / 1000) * 1000).toISOString().slice(0, 19);

/** Non-numeric keys of a run -> rows holding them. */
function droppedKeys(run: FwRun): Record<string, number> {
  const out: Record<string, number> = {};
  for (const row of run.rows) for (const v of row.values) if (typeof v.value !== "number") out[v.key] = (out[v.key] ?? 0) + 1;
  return out;
}

/** The manifest of the simulation's archive; `fetchedAt` is 30 minutes after the last row, on the minute. */
export function frameworkManifest(s: FrameworkSimulation): SourceManifest {
  const lastMs = Math.max(...s.runs.map((r) => Math.max(r.initMs, ...r.rows.map((x) => x.timeMs))));
  const fetchedAt = new Date(Math.ceil(lastMs / 60_000) * 60_000 + 30 * 60_000).toISOString();
  const runs: ManifestRun[] = s.runs.map((run) => {
    const text = frameworkHistoryText(run);
    const steps = run.history.map((h) => h._step);
    return {
      entity: s.entity,
      project: s.project,
      runId: run.runId,
      round: run.round,
      displayName: `${run.round}-${run.runId}`,
      state: run.state,
      historyEvents: run.history.length,
      lastStep: steps.length ? Math.max(...steps) : -1,
      createdAt: createdAt(run.initMs),
      fetchedAt,
      file: historyFile(run.runId),
      sha256: createHash("sha256").update(text, "utf8").digest("hex"),
      bytes: Buffer.byteLength(text, "utf8"),
      droppedKeys: droppedKeys(run),
    };
  });
  return { kind: "wandb-frozen-history", formatVersion: 1, readerVersion: READER_VERSION, pageSize: DEFAULT_PAGE_SIZE, runs };
}

/** `runs.json` text: entity, project and the runs in round order. */
export function frameworkRunsFileText(s: FrameworkSimulation): string {
  return JSON.stringify({ entity: s.entity, project: s.project, runs: s.runs.map((r) => ({ runId: r.runId, round: r.round })) }, null, 2) + "\n";
}

/** Writes `<outDir>/wandb/` and `<outDir>/runs.json` (replacing those two). */
export async function writeFrameworkData(s: FrameworkSimulation, outDir: string): Promise<void> {
  if (typeof outDir !== "string" || !outDir) throw new Error(`invalid outDir: ${JSON.stringify(outDir)}`);
  const archive = path.join(outDir, ARCHIVE_SUBDIR);
  await fsp.rm(archive, { recursive: true, force: true });
  await fsp.mkdir(path.join(archive, HISTORY_DIR), { recursive: true });
  for (const run of s.runs) await fsp.writeFile(path.join(archive, historyFile(run.runId)), frameworkHistoryText(run), "utf8");
  await fsp.writeFile(path.join(archive, MANIFEST_FILE), serializeManifest(frameworkManifest(s)), "utf8");
  await fsp.writeFile(path.join(outDir, "runs.json"), frameworkRunsFileText(s), "utf8");
}
