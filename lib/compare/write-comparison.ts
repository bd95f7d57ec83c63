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
import { ALL_ROUNDS } from "../export/summary-table";
import { AXIS_MEANING, binLow } from "./compare-axis";
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
  /** What welch_p_holm is: the family it adjusts over. */
  welchHolm: string;
  arms: { name: string; archives: ManifestArchive[] }[];
  reference: ManifestArchive | null;
  compared: string[];
  scopes: string[];
  refused: Refusal[];
  refusedAgainstReference: Refusal[];
  /** Only on a binned axis (absent on round labels, so those manifests stay as they were). */
  axis?: ManifestAxis;
  files: { name: string; sha256: string; bytes: number; rows: number }[];
}

/** The binned axis in the manifest: what it is, its grid, and what was not placed. */
interface ManifestAxis {
  name: string;
  width: number;
  unit: string;
  is: string;
  bins: string;
  /** Low edge of the first scope bin and high edge of the last. */
  edges: [number, number] | null;
  /** (experiment of an arm, compared concept, bin) without a value: left empty, never filled. */
  emptyCells: number;
  /** Records without a coordinate on the axis, per archive (left out). */
  unplaced: Record<string, number>;
}

/** The manifest's axis entry; null on the round axis. */
function axisEntry(arms: readonly Arm[], reference: Experiment | null, result: Comparison): ManifestAxis | null {
  const { axis } = result;
  if (axis.name === "round") return null;
  const bins = result.scopes.filter((s) => s !== ALL_ROUNDS);
  const experiments = arms.flatMap((a) => a.experiments);
  let emptyCells = 0;
  for (const column of result.columns) for (const bin of bins) for (const e of experiments) if ((e.cells[column]?.[bin] ?? null) === null) emptyCells++;
  const unplaced: Record<string, number> = {};
  for (const e of reference === null ? experiments : [...experiments, reference]) unplaced[e.dir] = e.unplaced;
  return {
    name: axis.name,
    width: axis.width!,
    unit: AXIS_MEANING[axis.name].unit,
    is: AXIS_MEANING[axis.name].is,
    bins: `scope "low-high" is the bin [low, high) = [k x ${axis.width}, (k + 1) x ${axis.width}): a record at low counts in it, one at high in the next; an experiment's value there is the mean over its records in it; no record, no value (never interpolated)`,
    edges: bins.length === 0 ? null : [binLow(bins[0]), Number((binLow(bins[bins.length - 1]) + axis.width!).toPrecision(12))],
    emptyCells,
    unplaced,
  };
}

function archiveEntry(e: Experiment): ManifestArchive {
  return { dir: e.dir, manifestSha256: e.manifestSha256, profile: e.profile.name, updatesPerBatch: e.updatesPerBatch };
}

/** How many rows of improvement.csv have a Welch p-value (the family Holm adjusts over). */
function welchTests(improvement: ExportTable): number {
  const at = improvement.columns.indexOf("welch_p");
  return improvement.rows.filter((r) => r[at] !== null).length;
}

/** `{ axis }` when there is one, else nothing (the key is left out, not null). */
function withAxis(axis: ManifestAxis | null): { axis?: ManifestAxis } {
  return axis === null ? {} : { axis };
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
    welchHolm: `Holm's step-down adjustment of welch_p over the ${welchTests(result.improvement)} Welch tests of improvement.csv (every pair of arms, concept and scope): read it before calling any one p-value a difference`,
    arms: arms.map((a) => ({ name: a.name, archives: a.experiments.map(archiveEntry) })),
    reference: reference === null ? null : archiveEntry(reference),
    compared: result.columns,
    scopes: result.scopes,
    refused: result.refused,
    refusedAgainstReference: result.refusedAgainstReference,
    ...withAxis(axisEntry(arms, reference, result)),
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
