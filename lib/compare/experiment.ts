/**
 * An experiment: one frozen archive (a lineage of rounds, e.g. one seed), loaded hash-verified,
 * aligned and summarised exactly as `npm run export` does. Its value of a concept in a scope is the
 * summary.csv cell: the round's row, or the `all` row over every record of every round; on a binned
 * axis (compare-axis.ts) the bins' cells replace the rounds' and the `all` cell stays.
 */

import { ALL_ROUNDS, summaryTable } from "../export/summary-table";
import { openArchive } from "../pipeline/open-archive";
import type { FrameworkProfile } from "../registry/framework-profile";
import { profileByName, profileOfAligned } from "../registry/profiles";
import type { ConditionRun } from "../registry/semantic-flags";
import type { ExportTable } from "../export/csv-text";
import type { AlignedRuns, Reporter } from "../types";
import { axisCells, type AxisCells } from "./axis-cells";
import { ROUND_AXIS, type AxisName, type CompareAxis } from "./compare-axis";
import { comparedColumns, type ComparedColumn } from "./compared-columns";
import { wallClock, type WallClock } from "./wall-clock";

/** One loaded experiment. */
export interface Experiment {
  /** The archive folder as given (names the experiment in every output and refusal). */
  dir: string;
  /** sha256 of the archive's manifest.json bytes: names the frozen data compared. */
  manifestSha256: string;
  profile: FrameworkProfile;
  /** Optimizer updates per rollout batch, distinct values over the experiment's runs, ascending. */
  updatesPerBatch: number[];
  /** Round labels in run order, or on a binned axis the bins it has records in (then `all` is a scope too). */
  rounds: string[];
  columns: ComparedColumn[];
  /** The runs' frozen flags and versions (absent: unknown), which decide the meanings that hold. */
  runs: ({ runId: string } & ConditionRun)[];
  /** cells[column name][scope]: the summary cell, null when empty; a scope the experiment lacks is absent. */
  cells: Record<string, Record<string, number | null>>;
  /** The axis its scopes are on. */
  axis: AxisName;
  /** On a binned axis: columns this experiment has no coordinate for, and why; empty on the round axis. */
  axisMissing: Record<string, string>;
  /** On a binned axis: records without a coordinate (left out); 0 on the round axis. */
  unplaced: number;
}

/** An experiment as plain data (what a worker thread sends back): its profile by name, no columns. */
export type ExperimentData = Omit<Experiment, "profile" | "columns"> & { profileName: string };

/** The experiment of its plain data: the profile and its compared columns looked up again. */
export function experimentOf(data: ExperimentData): Experiment {
  const { profileName, ...rest } = data;
  const profile = profileByName(profileName);
  return { ...rest, profile, columns: comparedColumns(profile) };
}

/** The summary rows of an export table as cells by column name and scope. */
function cellsByColumn(table: { columns: string[]; rows: (number | string | null)[][] }, names: readonly string[]): Experiment["cells"] {
  const cells: Experiment["cells"] = {};
  const roundAt = table.columns.indexOf("round");
  for (const name of names) {
    const at = table.columns.indexOf(name);
    const byScope: Record<string, number | null> = {};
    for (const row of table.rows) {
      const v = row[at];
      byScope[String(row[roundAt])] = typeof v === "number" ? v : null;
    }
    cells[name] = byScope;
  }
  return cells;
}

/** Round cells, or on a binned axis the bins' cells with the summary's `all` cell kept. */
function scopedCells(
  summary: ExportTable,
  columns: readonly ComparedColumn[],
  binned: AxisCells | null,
): Pick<Experiment, "rounds" | "cells" | "axisMissing" | "unplaced"> {
  const cells = cellsByColumn(
    summary,
    columns.map((c) => c.name),
  );
  if (binned === null) return { rounds: summary.rows.map((r) => String(r[0])).filter((r) => r !== ALL_ROUNDS), cells, axisMissing: {}, unplaced: 0 };
  for (const c of columns) cells[c.name] = { ...binned.cells[c.name], [ALL_ROUNDS]: cells[c.name][ALL_ROUNDS] };
  return { rounds: binned.scopes, cells, axisMissing: binned.missing, unplaced: binned.unplaced };
}

/**
 * Load, verify, align and summarise one archive folder as plain data (on any thread). Throws, naming
 * the folder, when a file does not verify or the archive lists no runs; the axis mapping must hold
 * (as for `npm run export`). `label` names it in outputs and refusals (default: the folder as given).
 */
export async function loadExperimentData(dir: string, reporter: Reporter = {}, label: string = dir, axis: CompareAxis = ROUND_AXIS): Promise<ExperimentData> {
  // No load worker per archive: starting one (tsx's hook included) cost more than the parse it saves
  // (bench/RESULTS.md); a comparison loads whole archives on worker threads instead (compare-threads.ts).
  let wall: WallClock | null = null;
  const { aligned, manifestSha256 } = await openArchive(dir, {
    purpose: "compare",
    label,
    reporter,
    compact: true,
    worker: false,
    releaseRows: true,
    // Read before alignment releases the rows (W&B bookkeeping is no record value).
    beforeAlign: (archive) => {
      if (axis.name === "wall") wall = wallClock(archive.runs);
    },
  });
  return experimentDataOf(aligned, { label, manifestSha256, axis, wall, reporter });
}

/** What {@link experimentDataOf} needs besides the alignment. */
export interface ExperimentSource {
  /** Names the experiment in outputs and refusals. */
  label: string;
  /** sha256 of the archive's manifest.json bytes. */
  manifestSha256: string;
  axis: CompareAxis;
  /** The runs' wall clock (wallClock over their rows, read before alignment released them); needed on the wall axis only. */
  wall: WallClock | null;
  reporter?: Reporter;
}

/**
 * An experiment of an archive already aligned (an archive kept open, as the MCP server keeps it):
 * summarised exactly as {@link loadExperimentData} does after loading.
 */
export function experimentDataOf(aligned: AlignedRuns, src: ExperimentSource): ExperimentData {
  const { axis } = src;
  const summary = summaryTable(aligned, { reporter: src.reporter }).table;
  const profile = profileOfAligned(aligned);
  const columns = comparedColumns(profile);
  return {
    dir: src.label,
    manifestSha256: src.manifestSha256,
    profileName: profile.name,
    axis: axis.name,
    updatesPerBatch: [...new Set(aligned.mapping.runs.map((r) => r.n))].sort((a, b) => a - b),
    runs: aligned.runs.map((r) => ({ runId: r.runId, flags: r.flags, versions: r.versions, versionBounds: r.versionBounds })),
    ...scopedCells(summary, columns, axis.name === "round" ? null : axisCells(aligned, profile, columns, axis, src.wall)),
  };
}

/** {@link loadExperimentData} on this thread, as an {@link Experiment}. */
export async function loadExperiment(dir: string, reporter: Reporter = {}, label: string = dir, axis: CompareAxis = ROUND_AXIS): Promise<Experiment> {
  return experimentOf(await loadExperimentData(dir, reporter, label, axis));
}
