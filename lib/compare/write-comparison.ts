/**
 * The comparison's files in the out folder, all or nothing: compare.csv, improvement.csv,
 * corridor.csv (with a reference; removed when a comparison without one replaces it) and
 * compare-manifest.json, which names every archive by its manifest sha256, the seed and every refusal.
 * Same archives, same seed, same code: byte-identical files.
 */
import { createHash } from "node:crypto";

import { csvText, type ExportTable } from "../export/csv-text";
import { writeFilesAtomically } from "../export/write-files-atomically";
import { workspaceVersion } from "../export/workspace-version";
import { INTERVAL_COVERAGE } from "./bootstrap";
import type { Arm, Comparison } from "./compare-arms";
import type { Refusal } from "./comparability";
import type { Experiment } from "./experiment";
import { ALPHA, POWER } from "./experiments-needed";

/** File name of the comparison manifest. */
export const COMPARE_MANIFEST_FILE = "compare-manifest.json";

/** Kind tag of the comparison manifest. */
const COMPARE_MANIFEST_KIND = "rl-run-diagnostics/compare-manifest@1";

/** One archive in the manifest. */
interface ManifestArchive {
  dir: string;
  manifestSha256: string;
  profile: string;
  updatesPerBatch: number[];
}

/** The comparison manifest. */
export interface CompareManifest {
  kind: string;
  workspaceVersion: string;
  seed: number;
  resamples: number;
  intervals: string;
  nNeeded: string;
  arms: { name: string; archives: ManifestArchive[] }[];
  reference: ManifestArchive | null;
  compared: string[];
  scopes: string[];
  refused: Refusal[];
  refusedAgainstReference: Refusal[];
  files: { name: string; sha256: string; bytes: number; rows: number }[];
}

function archiveEntry(e: Experiment): ManifestArchive {
  return { dir: e.dir, manifestSha256: e.manifestSha256, profile: e.profile.name, updatesPerBatch: e.updatesPerBatch };
}

/** The comparison's files as text, manifest last. */
export function comparisonFiles(
  arms: readonly Arm[],
  reference: Experiment | null,
  result: Comparison,
  opts: { seed: number; resamples: number; workspaceVersion?: string },
): { name: string; text: string }[] {
  const tables: ExportTable[] = [result.compare, result.improvement, ...(result.corridor ? [result.corridor] : [])];
  const files = tables.map((t) => ({ name: t.name, text: csvText(t), rows: t.rows.length }));
  const manifest: CompareManifest = {
    kind: COMPARE_MANIFEST_KIND,
    workspaceVersion: opts.workspaceVersion ?? workspaceVersion(),
    seed: opts.seed,
    resamples: opts.resamples,
    intervals: `${INTERVAL_COVERAGE * 100}% percentile bootstrap, experiments resampled with replacement within their arm`,
    nNeeded: `experiments per arm for ${POWER * 100}% power at ${ALPHA * 100}% (two-sided), normal approximation from the observed variances`,
    arms: arms.map((a) => ({ name: a.name, archives: a.experiments.map(archiveEntry) })),
    reference: reference === null ? null : archiveEntry(reference),
    compared: result.columns,
    scopes: result.scopes,
    refused: result.refused,
    refusedAgainstReference: result.refusedAgainstReference,
    files: files.map((f) => ({
      name: f.name,
      sha256: createHash("sha256").update(f.text).digest("hex"),
      bytes: Buffer.byteLength(f.text),
      rows: f.rows,
    })),
  };
  return [...files.map(({ name, text }) => ({ name, text })), { name: COMPARE_MANIFEST_FILE, text: `${JSON.stringify(manifest, null, 2)}\n` }];
}

/** Write the comparison into `outDir` all or nothing; a stale corridor.csv goes when there is no reference. */
export async function writeComparison(outDir: string, files: readonly { name: string; text: string }[]): Promise<void> {
  const remove = files.some((f) => f.name === "corridor.csv") ? [] : ["corridor.csv"];
  await writeFilesAtomically(outDir, files, { remove });
}
