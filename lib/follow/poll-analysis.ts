/**
 * What a follow reads after a poll (docs/follow.md, "Flags as rounds complete"): the archive is
 * loaded and aligned as `npm run export` does, each running run's last record (a rollout batch, or a
 * logged step) is **open** (rows of it may still come) and left out, and the health checks run on
 * the closed records only. With `exportsDir` the same alignment is written as `npm run export` writes
 * it, byte for byte.
 */
import { checkExportDirs, loadAndAlign, writePlannedExports, type ExportResult } from "../export/write-exports";
import { planExports } from "../export/build-exports";
import type { HealthParams } from "../health/health-params";
import { profileOfAligned } from "../registry/profiles";
import { onAxis } from "../registry/profile-axis";
import { type HealthReport, runHealthChecks } from "../health/run-health-checks";
import type { AlignedRuns, Reporter } from "../types";
import type { AlignRunsOptions } from "../align/align-options";

/** A running run's last record, not analysed until a later record shows it is complete. */
export interface OpenBatch {
  runId: string;
  round: string;
  /**
   * What `rollout` is, from the profile's axis: a rollout id (rollout batches with their optimizer
   * updates), or a logged step (one record per step; single updates not observable, `updates` 0).
   */
  unit: "rollout" | "step";
  /** Its rollout id (a logged step on a step axis). */
  rollout: number;
  /** Rollout records and optimizer updates aligned to it so far. */
  rolloutRecords: number;
  updates: number;
}

/** What `analyseSnapshot` found. */
export interface SnapshotAnalysis {
  /** The health checks over the closed records (open batches left out). */
  health: HealthReport;
  open: OpenBatch[];
  /** The exports written (`exportsDir`), else null. */
  exports: ExportResult | null;
}

/** Options of `analyseSnapshot`. */
export interface AnalyseOptions {
  /** Health thresholds (default: the declared defaults), as `npm run export` reads them. */
  health?: HealthParams;
  /** Also write the exports of the whole archive here, as `npm run export -- --allow-issues` does. */
  exportsDir?: string;
  reporter?: Reporter;
  /** What the data cannot decide, stated (profile, N, rollout/step reading), as `npm run export` takes it. */
  align?: Pick<AlignRunsOptions, "n" | "alwaysUseTrainStep" | "profile">;
}

/**
 * Each running run's open batch: its highest rollout id among its rollout records and updates.
 * A batch is known complete only once a later one is logged, or once the run ended; a run in any
 * other state than "running" has none.
 * @example openBatches(aligned) // [{ runId: "abc", round: "R2", unit: "rollout", rollout: 47, rolloutRecords: 1, updates: 0 }]
 */
export function openBatches(aligned: AlignedRuns): OpenBatch[] {
  const unit = onAxis(profileOfAligned(aligned).axis, { "batch-updates": () => "rollout" as const, step: () => "step" as const });
  const out: OpenBatch[] = [];
  for (const run of aligned.runs) {
    if (run.state !== "running") continue;
    let last = -Infinity;
    for (const r of aligned.rollouts) if (r.runId === run.runId && r.rollout > last) last = r.rollout;
    for (const u of aligned.updates) if (u.runId === run.runId && u.rollout > last) last = u.rollout;
    if (last === -Infinity) continue;
    const rolloutRecords = aligned.rollouts.filter((r) => r.runId === run.runId && r.rollout === last).length;
    const updates = aligned.updates.filter((u) => u.runId === run.runId && u.rollout === last).length;
    out.push({ runId: run.runId, round: run.round, unit, rollout: last, rolloutRecords, updates });
  }
  return out;
}

/** The aligned runs without the open batches' rollout records, updates and critic-only updates. */
export function closedRecords(aligned: AlignedRuns, open: readonly OpenBatch[]): AlignedRuns {
  if (open.length === 0) return aligned;
  const openAt = new Map(open.map((b) => [b.runId, b.rollout]));
  const closed = (r: { runId: string; rollout: number }) => openAt.get(r.runId) !== r.rollout;
  return {
    ...aligned,
    rollouts: aligned.rollouts.filter(closed),
    updates: aligned.updates.filter(closed),
    criticOnly: aligned.criticOnly.filter(closed),
  };
}

/**
 * Loads and aligns the archive in `dataDir` (hashes and snapshot chain verified, as for an export),
 * runs the health checks on its closed records and, with `exportsDir`, writes its exports.
 * @example const { health, open } = await analyseSnapshot("data/live");
 */
export async function analyseSnapshot(dataDir: string, opts: AnalyseOptions = {}): Promise<SnapshotAnalysis> {
  const reporter = opts.reporter ?? {};
  if (opts.exportsDir !== undefined) checkExportDirs(dataDir, opts.exportsDir);
  const { manifest, aligned } = await loadAndAlign({ dataDir, align: opts.align }, reporter);
  const open = openBatches(aligned);
  const health = runHealthChecks(closedRecords(aligned, open), opts.health);
  if (opts.exportsDir === undefined) return { health, open, exports: null };
  const plan = planExports({ manifest }, aligned, { reporter, allowIssues: true, health: opts.health });
  return { health, open, exports: await writePlannedExports(opts.exportsDir, plan) };
}
