/** Test helper: writes a frozen archive by hand (no server), with the library's own line and manifest format. */
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";

import { serializeFrozenRow } from "../../lib/values/frozen-row";
import { serializeManifest } from "../../lib/archive/manifest";
import type { HistoryRow, ManifestRun, SourceManifest } from "../../lib/types";

/** Writes `runs` as an archive into `dir` and returns the manifest. */
export function makeArchive(dir: string, runs: { runId: string; round: string; rows: HistoryRow[] }[]): SourceManifest {
  fs.mkdirSync(path.join(dir, "history"), { recursive: true });
  const manifestRuns: ManifestRun[] = runs.map(({ runId, round, rows }) => {
    const text = rows.map((r) => serializeFrozenRow(r) + "\n").join("");
    const file = `history/${runId}.jsonl`;
    fs.writeFileSync(path.join(dir, file), text);
    return {
      entity: "e",
      project: "p",
      runId,
      round,
      state: "finished",
      historyEvents: rows.length,
      lastStep: rows.length ? rows[rows.length - 1]._step : -1,
      createdAt: null,
      fetchedAt: "2024-01-01T00:00:00.000Z",
      file,
      sha256: createHash("sha256").update(text).digest("hex"),
      bytes: Buffer.byteLength(text),
    };
  });
  const manifest: SourceManifest = { kind: "wandb-frozen-history", formatVersion: 1, readerVersion: "test", pageSize: 1000, runs: manifestRuns };
  fs.writeFileSync(path.join(dir, "manifest.json"), serializeManifest(manifest));
  return manifest;
}

/** Rewrites a history file and its manifest hash/size so only the content check can catch it. */
export function rewriteWithHash(dir: string, runId: string, text: string): void {
  const manifestPath = path.join(dir, "manifest.json");
  const manifest = JSON.parse(fs.readFileSync(manifestPath, "utf8")) as SourceManifest;
  const run = manifest.runs.find((r) => r.runId === runId)!;
  fs.writeFileSync(path.join(dir, run.file), text);
  run.sha256 = createHash("sha256").update(text).digest("hex");
  run.bytes = Buffer.byteLength(text);
  fs.writeFileSync(manifestPath, serializeManifest(manifest));
}
