/**
 * A fetch never replaces a frozen run with a worse copy of it: fewer rows, a state that went back
 * (finished -> crashed), or a file that ends torn where the frozen one did not. That is what a copy
 * made while the run was still being written, or cut short on the way, looks like; the archive it
 * would replace is the better evidence. `replace` (CLI --replace) overrides, for a run that really
 * changed (a rewind, rows deleted on the server).
 */
import { promises as fsp } from "node:fs";
import * as path from "node:path";

import type { ManifestRun } from "../types";
import { MANIFEST_FILE, parseManifest } from "./manifest";

/** The frozen archive's manifest in `outDir`, or null when there is none that parses (nothing to protect, or nothing readable). */
async function frozenManifest(outDir: string): Promise<ManifestRun[] | null> {
  const file = path.join(outDir, MANIFEST_FILE);
  let text: string;
  try {
    text = await fsp.readFile(file, "utf8");
  } catch {
    return null;
  }
  try {
    return parseManifest(text, file).runs;
  } catch {
    return null; // a broken archive is no better than the new copy
  }
}

/** Bytes at the end of a run's files that held no whole record (its last log's, or any TensorBoard file's); 0 when they end whole. */
function tornBytes(run: ManifestRun): number {
  const s = run.resumedIn?.length ? run.resumedIn[run.resumedIn.length - 1] : run.source;
  if (s === undefined) return 0;
  if (s.kind === "tensorboard") return s.files.reduce((n, f) => n + (f.tornTail?.bytes ?? 0), 0);
  return s.tornTail?.bytes ?? 0;
}

/** What makes `now` a worse copy of the frozen `was`, in words; empty when it is not worse. */
export function worseThanFrozen(was: ManifestRun, now: ManifestRun): string[] {
  // The same bytes read again are never worse (an archive of a killed run, fetched again).
  if (was.sha256 === now.sha256) return [];
  const why: string[] = [];
  if (now.historyEvents < was.historyEvents) why.push(`${now.historyEvents} rows, not ${was.historyEvents}`);
  if (was.state === "finished" && now.state !== "finished") why.push(`state ${now.state}, not finished`);
  const torn = tornBytes(now);
  if (torn > 0 && tornBytes(was) === 0 && (why.length > 0 || now.historyEvents <= was.historyEvents))
    why.push(`its file ends torn (the last ${torn} bytes hold no whole record), the frozen copy's did not`);
  return why;
}

/**
 * Throws, before the archive in `outDir` is replaced, when a run of the new archive is a worse copy
 * of the same run frozen there (worseThanFrozen), naming each run, what is worse and the override.
 */
export async function refuseWorseCopies(outDir: string, runs: readonly ManifestRun[]): Promise<void> {
  const frozen = await frozenManifest(outDir);
  if (frozen === null) return;
  const byId = new Map(frozen.map((r) => [r.runId, r]));
  const worse: string[] = [];
  for (const run of runs) {
    const was = byId.get(run.runId);
    const why = was === undefined ? [] : worseThanFrozen(was, run);
    if (why.length > 0) worse.push(`run ${run.runId} (round ${run.round}): ${why.join("; ")}`);
  }
  if (worse.length === 0) return;
  throw new Error(
    `refusing to replace the archive in ${outDir} with a worse copy: ${worse.join("; ")}. A copy made while a run was still being written, or cut short, would lose what is frozen; the archive was not changed. If the run really changed (rewound, or rows deleted), replace it anyway with --replace (replace: true)`,
  );
}
