/**
 * An experiment: one frozen archive (a lineage of rounds, e.g. one seed), loaded hash-verified,
 * aligned and summarised exactly as `npm run export` does. Its value of a concept in a scope is the
 * summary.csv cell: the round's row, or the `all` row over every record of every round.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import * as path from "node:path";

import { loadOrReport } from "../archive/load-archive";
import { MANIFEST_FILE } from "../archive/manifest";
import { alignRuns } from "../align/align-runs";
import { ALL_ROUNDS, summaryTable } from "../export/summary-table";
import type { FrameworkProfile } from "../registry/framework-profile";
import { chooseProfile } from "../registry/profile-choice";
import { profileOfAligned } from "../registry/profiles";
import type { RunFlags } from "../registry/semantic-flags";
import type { RunVersions } from "../registry/versions";
import type { Reporter } from "../types";
import { comparedColumns, type ComparedColumn } from "./compared-columns";

/** One loaded experiment. */
export interface Experiment {
  /** The archive folder as given (names the experiment in every output and refusal). */
  dir: string;
  /** sha256 of the archive's manifest.json bytes: names the frozen data compared. */
  manifestSha256: string;
  profile: FrameworkProfile;
  /** Optimizer updates per rollout batch, distinct values over the experiment's runs, ascending. */
  updatesPerBatch: number[];
  /** Round labels in run order (then `all` is a scope too). */
  rounds: string[];
  columns: ComparedColumn[];
  /** The runs' frozen flags and versions (absent: unknown), which decide the meanings that hold. */
  runs: { runId: string; flags?: RunFlags; versions?: RunVersions }[];
  /** cells[column name][scope]: the summary cell, null when empty; a scope the experiment lacks is absent. */
  cells: Record<string, Record<string, number | null>>;
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

/**
 * Load, verify, align and summarise one archive folder. Throws, naming the folder, when a file does
 * not verify or the archive lists no runs; the axis mapping must hold (as for `npm run export`).
 * `label` names it in outputs and refusals (default: the folder as given).
 */
export async function loadExperiment(dir: string, reporter: Reporter = {}, label: string = dir): Promise<Experiment> {
  const loaded = await loadOrReport(dir, reporter, { compact: true });
  if ("report" in loaded) {
    const bad = loaded.report.files.filter((f) => !f.ok).map((f) => `${path.join(dir, f.file)}: ${f.problem}`);
    throw new Error(`refusing to compare ${label}: ${bad.join("; ")}`);
  }
  const { archive } = loaded;
  if (archive.runs.length === 0) throw new Error(`refusing to compare ${label}: ${MANIFEST_FILE} lists no runs (empty archive)`);
  const profileName = chooseProfile(undefined, path.join(path.dirname(path.resolve(dir)), "runs.json"));
  const aligned = alignRuns(archive.runs, { profile: profileName, reporter, compact: true, releaseRows: true });
  const summary = summaryTable(aligned, { reporter }).table;
  const profile = profileOfAligned(aligned);
  const columns = comparedColumns(profile);
  return {
    dir: label,
    manifestSha256: createHash("sha256")
      .update(readFileSync(path.join(dir, MANIFEST_FILE)))
      .digest("hex"),
    profile,
    updatesPerBatch: [...new Set(aligned.mapping.runs.map((r) => r.n))].sort((a, b) => a - b),
    rounds: summary.rows.map((r) => String(r[0])).filter((r) => r !== ALL_ROUNDS),
    columns,
    runs: aligned.runs.map((r) => ({ runId: r.runId, flags: r.flags, versions: r.versions })),
    cells: cellsByColumn(
      summary,
      columns.map((c) => c.name),
    ),
  };
}
