/** Test helper: copies of the bundled sample archive (data/wandb) with edited runs and a manifest that matches or not. */
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";

import { parseFrozenRow, serializeFrozenRow } from "../../lib/values/frozen-row";
import { serializeManifest } from "../../lib/archive/manifest";
import type { HistoryRow, SourceManifest } from "../../lib/types";

/** The bundled sample archive: 4 runs x 100 rows, N = 2, rollouts 1..80. */
export const SAMPLE_ARCHIVE = path.resolve(__dirname, "../..", "data", "wandb");

/** sha256 hex of a text. */
export const sha = (text: string) => createHash("sha256").update(text).digest("hex");

/** Path of a run's history file in an archive folder. */
export const fileOf = (data: string, runId: string) => path.join(data, "history", `${runId}.jsonl`);

/** The archive manifest as JSON. */
export function readManifest(data: string): SourceManifest {
  return JSON.parse(fs.readFileSync(path.join(data, "manifest.json"), "utf8")) as SourceManifest;
}

/** Writes a manifest in the archive's own format. */
export function writeManifest(data: string, manifest: SourceManifest): void {
  fs.writeFileSync(path.join(data, "manifest.json"), serializeManifest(manifest));
}

/** Replaces a run's file with `text`; with `rehash`, sha256, bytes and row count in the manifest follow, so only the content check can catch it. */
export function writeRaw(data: string, runId: string, text: string, rehash: boolean): void {
  fs.writeFileSync(fileOf(data, runId), text);
  if (!rehash) return;
  const manifest = readManifest(data);
  const run = manifest.runs.find((r) => r.runId === runId)!;
  run.sha256 = sha(text);
  run.bytes = Buffer.byteLength(text);
  run.historyEvents = text === "" ? 0 : text.replace(/\n$/, "").split("\n").length;
  writeManifest(data, manifest);
}

/** A run's frozen rows. */
export function readRows(data: string, runId: string): HistoryRow[] {
  return fs.readFileSync(fileOf(data, runId), "utf8").trimEnd().split("\n").map(parseFrozenRow);
}

/** Rewrites a run's rows (renumbering `_step` 0..n-1, as a fetch of such a run would give) with a matching manifest. */
export function writeRows(data: string, runId: string, rows: HistoryRow[]): void {
  writeRaw(data, runId, rows.map((r, i) => serializeFrozenRow({ ...r, _step: i }) + "\n").join(""), true);
  const manifest = readManifest(data);
  manifest.runs.find((r) => r.runId === runId)!.lastStep = rows.length - 1;
  writeManifest(data, manifest);
}

/** Keeps only the given runs in the archive (manifest and files). */
export function keepRuns(data: string, runIds: string[]): void {
  const manifest = readManifest(data);
  manifest.runs = manifest.runs.filter((r) => runIds.includes(r.runId));
  writeManifest(data, manifest);
  for (const f of fs.readdirSync(path.join(data, "history"))) if (!runIds.includes(f.replace(/\.jsonl$/, ""))) fs.rmSync(path.join(data, "history", f));
}
